"""errorkb in the themes a site is likely to use, in Chromium: the paste box leads to the lookup
page, the lookup page answers and links to the record, and the catalogue table filters.

Sphinx's default theme (alabaster), furo and pydata-sphinx-theme each get one small site
(``themed``, in browser_site.py); furo's is built with ``dirhtml``, where every page is a folder."""

from __future__ import annotations

pytest_plugins = ["browser_site"]

PASTE = ("Epoch 3/10\nRuntimeError: CUDA out of memory. Tried to allocate 1.71 GiB (GPU 0; 6.00 GiB total capacity; "
         "3.49 GiB already allocated; 1.04 GiB free; 3.50 GiB reserved in total by PyTorch)\n")


def page_url(builder: str, name: str) -> str:
    return f"{name}.html" if builder == "html" else f"{name}/"


def test_paste_box_opens_the_lookup_page_which_leads_to_the_record(page, themed):
    base, builder = themed
    page.goto(base)
    box = page.locator("#errorkb-paste-q")
    assert box.is_visible() and box.bounding_box()["width"] > 200
    page.evaluate("q => { document.getElementById('errorkb-paste-q').value = q; }", PASTE)
    page.click(".errorkb-paste button")
    page.wait_for_url(f"{base}{page_url(builder, 'lookup')}#q=*")
    page.wait_for_selector("#errorkb-lookup-results[data-state=done]")
    first = page.locator("#errorkb-lookup-results > li").first
    assert first.get_attribute("data-id") == "demo-cuda-detail" and first.get_attribute("data-exact") == "true"
    assert first.is_visible() and "Line 2 of your paste" in first.inner_text()
    first.locator("a.errorkb-result-title").click()
    page.wait_for_url(base + page_url(builder, "errors/demo/demo-cuda-detail"))
    assert "DCD: Demo CUDA allocation failed, with the device" in page.title()


def test_lookup_page_sits_in_the_theme_s_layout(page, themed):
    base, builder = themed
    page.goto(base + page_url(builder, "lookup"))
    form = page.locator("#errorkb-lookup-form")
    assert form.is_visible() and form.locator("textarea").bounding_box()["width"] > 200
    assert page.locator("h1", has_text="Find your error").is_visible()
    page.fill("#errorkb-lookup-q", "Maximum peak HBM usage of 28.44GB exceeds HBM limit of 24.00GB for Trn2.")
    page.wait_for_selector("#errorkb-lookup-results[data-state=done]")
    assert page.locator("#errorkb-lookup-results > li").first.get_attribute("data-id") == "demo-hbm-limit"


def test_catalogue_table_filters_in_the_theme(page, themed):
    base, _ = themed
    page.goto(base)
    page.wait_for_selector("form.errorkb-filters:not([hidden])")
    rows = "table.errorkb-catalogue tbody tr"
    assert page.locator(rows).count() == 5
    page.fill("form.errorkb-filters input[name=q]", "cuda")
    page.wait_for_function(f"() => [...document.querySelectorAll('{rows}')].filter(r => !r.hidden).length === 2")
    visible = page.locator(rows).evaluate_all("rows => rows.filter(r => !r.hidden).map(r => r.cells[0].textContent.trim())")
    assert visible == ["DCD", "DCG"]
    assert page.locator(f"{rows}:not([hidden])").first.is_visible()
