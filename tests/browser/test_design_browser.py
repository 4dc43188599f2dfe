"""sphinx-design components in Chromium: a fix's framework tabs follow the reader's choice across
the page and onto other pages, and folded examples open on a click."""

from __future__ import annotations

import pytest

pytest_plugins = ["browser_site"]

SELECTED = ".errorkb-variants input:checked + label"


def selected(page) -> list[str]:
    return [label.strip() for label in page.locator(SELECTED).all_inner_texts()]


def test_choosing_a_framework_switches_every_fix_and_is_kept_on_other_pages(page, design_url):
    page.goto(design_url + "errors/demo/demo-oom.html")
    assert selected(page) == ["PyTorch", "PyTorch"]
    assert page.is_visible("text=Pass batch_size=8 to the DataLoader.") or page.is_visible("text=batch_size=8")
    page.locator(".errorkb-variants label", has_text="JAX").first.click()
    assert selected(page) == ["JAX", "JAX"]
    assert page.is_visible("text=Call .delete() on the array.") and not page.is_visible("text=torch.cuda.empty_cache()")
    page.goto(design_url + "guide.html")  # a guide's tab-set in the same group follows the choice
    assert page.locator(".sd-tab-set input:checked + label").inner_text().strip() == "JAX"
    assert page.is_visible("text=jax text") and not page.is_visible("text=torch text")


@pytest.mark.parametrize("width", [390, 1280])
def test_folded_examples_open_on_a_click(browser, design_url, width):
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        page.goto(design_url + "errors/demo/demo-oom.html")
        more = page.locator("details.errorkb-more-examples")
        assert not page.is_visible("text=DemoError: could not allocate 6.00 GiB on device 0")
        more.locator("> summary").click()
        assert page.is_visible("text=DemoError: could not allocate 6.00 GiB on device 0")
        log = page.locator("details.errorkb-long-example")
        assert not log.locator("pre").is_visible()
        log.locator("> summary").click()
        assert log.locator("pre").is_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= width  # nothing overflows sideways
    finally:
        context.close()
