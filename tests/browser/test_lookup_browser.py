"""The lookup page in Chromium: paste, read the first result, follow it; the paste stays text."""

from __future__ import annotations

from urllib.parse import parse_qs, quote, urlparse

pytest_plugins = ["browser_site"]

DETAIL = ("RuntimeError: CUDA out of memory. Tried to allocate 1.71 GiB (GPU 0; 6.00 GiB total capacity; "
          "3.49 GiB already allocated; 1.04 GiB free; 3.50 GiB reserved in total by PyTorch)")
RESULTS = "#errorkb-lookup-results[data-state=done]"


def first_result(page):
    page.wait_for_selector(RESULTS)
    return page.locator("#errorkb-lookup-results > li").first


def test_paste_on_the_landing_page_finds_and_follows_the_error(page, base_url):
    page.goto(base_url + "index.html")
    page.fill("#errorkb-paste-q", "Epoch 3/10\n" + DETAIL + "\nexit code 1")
    page.click(".errorkb-paste button")
    page.wait_for_url("**/lookup.html?q=*")
    first = first_result(page)
    assert first.get_attribute("data-id") == "demo-cuda-detail"
    assert first.get_attribute("data-exact") == "true"
    assert first.locator("mark").inner_text().startswith("CUDA out of memory. Tried to allocate 1.71 GiB")
    assert "Line 2 of your paste" in first.inner_text()
    assert "1.71 GiB" in first.locator(".errorkb-result-values").inner_text()
    assert "Asked for 1.71 GiB with 1.04 GiB free: 686.08 MiB short." in first.inner_text()
    assert first.locator(".errorkb-result-fixes li").first.inner_text() == "Use a smaller batch"
    first.locator("a.errorkb-result-title").click()
    page.wait_for_url("**/errors/demo/demo-cuda-detail.html")
    assert "DCD: Demo CUDA allocation failed, with the device" in page.title()


def test_html_in_the_paste_stays_text(page, base_url):
    page.goto(base_url + "lookup.html")
    paste = ('<img src=x onerror="window.pwned=1"><script>window.pwned=2</script> '
             "CUDA out of memory. Tried to allocate 2.00 MiB")
    page.fill("#errorkb-lookup-q", paste)
    page.click("#errorkb-lookup-form button")
    first = first_result(page)
    assert first.get_attribute("data-id") == "demo-cuda-generic"
    assert '<img src=x onerror="window.pwned=1">' in first.locator("pre").inner_text()
    assert page.locator("#errorkb-lookup-results img, #errorkb-lookup-results script").count() == 0
    assert page.evaluate("window.pwned") is None
    # The search went into the address, so the result can be shared.
    assert parse_qs(urlparse(page.url).query)["q"] == [paste]


def test_query_in_the_url_reproduces_the_result(page, base_url):
    page.goto(base_url + "lookup.html?q=" + quote("Maximum peak HBM usage of 28.44GB exceeds HBM limit of\n24.00GB for Trn2."))
    first = first_result(page)
    assert first.get_attribute("data-id") == "demo-hbm-limit"
    assert "Line 1-2 of your paste" in first.inner_text()
    assert "Needs 1.19x this device's memory" in first.inner_text()
    assert page.input_value("#errorkb-lookup-q").startswith("Maximum peak HBM usage")


def test_no_exact_match_is_labelled_closest(page, base_url):
    page.goto(base_url + "lookup.html?q=" + quote("CUDA memory trouble while loading the model"))
    first = first_result(page)
    assert first.get_attribute("data-exact") == "false"
    assert "closest, not exact" in first.inner_text()
    assert "No exact match" in page.locator("#errorkb-lookup-status").inner_text()


def test_the_index_loads_only_when_someone_searches(page, base_url):
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(base_url + "lookup.html")
    page.wait_for_load_state("networkidle")
    assert not [u for u in requested if "lookup-index" in u or "lookup-worker" in u]
    page.fill("#errorkb-lookup-q", "Killed")
    page.click("#errorkb-lookup-form button")
    assert first_result(page).get_attribute("data-id") == "demo-killed"
    assert [u for u in requested if "lookup-index" in u]


def test_a_huge_paste_is_capped_with_a_notice(page, base_url):
    page.goto(base_url + "lookup.html")
    page.evaluate("""() => {
        const q = document.getElementById('errorkb-lookup-q');
        q.value = ('x'.repeat(99) + '\\n').repeat(100 * 1024) + 'Killed';
        document.querySelector('#errorkb-lookup-form button').click();
    }""")
    assert first_result(page).get_attribute("data-id") == "demo-killed"
    assert "only its last" in page.locator("#errorkb-lookup-status").inner_text()
    assert "q=" not in page.url


def test_the_opensearch_description_points_at_the_lookup_page(page, base_url):
    page.goto(base_url + "index.html")
    href = page.get_attribute('link[rel=search][type="application/opensearchdescription+xml"]', "href")
    xml = page.request.get(base_url + href).text()
    assert 'template="lookup.html?q={searchTerms}"' in xml
