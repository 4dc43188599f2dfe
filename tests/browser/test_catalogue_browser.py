"""The landing page's catalogue table in Chromium: filters and sorting narrow and reorder the rows,
their state lives in the address, and a hostile value in the address stays text."""

from __future__ import annotations

from urllib.parse import parse_qs, quote, urlparse

pytest_plugins = ["browser_site"]

ROWS = "table.errorkb-catalogue tbody tr"
# By source, then id, as the page is built; demo-killed has no code.
BUILT_ORDER = ["NCC_DEMO1", "DCD", "DCG", "", "DTO"]


def shown_codes(page) -> list[str]:
    """The code column of the rows a reader can see, top to bottom."""
    return page.locator(ROWS).evaluate_all(
        "rows => rows.filter(r => !r.hidden).map(r => r.cells[0].textContent.trim())")


def open_catalogue(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("form.errorkb-filters:not([hidden])")


def query(page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def test_without_filters_every_error_is_shown_in_build_order(page, base_url):
    open_catalogue(page, base_url + "index.html")
    assert shown_codes(page) == BUILT_ORDER
    assert page.inner_text(".errorkb-count") == "5 errors"
    assert urlparse(page.url).query == ""


def test_text_filter_narrows_the_rows_and_goes_into_the_address(page, base_url):
    open_catalogue(page, base_url + "index.html")
    page.fill("form.errorkb-filters input[name=q]", "cuda")
    assert shown_codes(page) == ["DCD", "DCG"]
    assert page.inner_text(".errorkb-count") == "2 of 5 errors"
    assert query(page) == {"q": ["cuda"]}
    page.fill("form.errorkb-filters input[name=q]", "HBM usage of")  # words of the first message
    assert shown_codes(page) == ["NCC_DEMO1"]


def test_field_filter_combines_with_the_text_filter(page, base_url):
    open_catalogue(page, base_url + "index.html")
    page.select_option("form.errorkb-filters select[name=source]", "demo")
    assert shown_codes(page) == ["DCD", "DCG"]
    page.fill("form.errorkb-filters input[name=q]", "with the device")
    assert shown_codes(page) == ["DCD"]
    assert query(page) == {"q": ["with the device"], "source": ["demo"]}
    page.click("form.errorkb-filters button[type=reset]")
    page.wait_for_function("() => location.search === ''")
    assert shown_codes(page) == BUILT_ORDER


def test_sorting_by_a_column_reorders_and_a_second_click_reverses(page, base_url):
    open_catalogue(page, base_url + "index.html")
    code_header = page.locator("table.errorkb-catalogue thead th").first
    code_header.locator("button.errorkb-sort").click()
    assert shown_codes(page) == ["", "DCD", "DCG", "DTO", "NCC_DEMO1"]
    assert code_header.get_attribute("aria-sort") == "ascending"
    assert query(page) == {"sort": ["code"]}
    code_header.locator("button.errorkb-sort").click()
    assert shown_codes(page) == ["NCC_DEMO1", "DTO", "DCG", "DCD", ""]
    assert code_header.get_attribute("aria-sort") == "descending"
    assert query(page) == {"sort": ["-code"]}


def test_reloading_the_address_restores_filters_and_order(page, base_url):
    open_catalogue(page, base_url + "index.html")
    page.select_option("form.errorkb-filters select[name=source]", "demo")
    page.fill("form.errorkb-filters input[name=q]", "allocation")
    page.locator("table.errorkb-catalogue thead th").nth(0).locator("button").click()
    page.locator("table.errorkb-catalogue thead th").nth(0).locator("button").click()
    assert shown_codes(page) == ["DCG", "DCD"]
    shared = page.url

    page.reload()
    page.wait_for_selector("form.errorkb-filters:not([hidden])")
    assert page.url == shared
    assert shown_codes(page) == ["DCG", "DCD"]
    assert page.input_value("form.errorkb-filters input[name=q]") == "allocation"
    assert page.input_value("form.errorkb-filters select[name=source]") == "demo"
    assert page.locator("table.errorkb-catalogue thead th").first.get_attribute("aria-sort") == "descending"

    # The same address opened afresh, as a shared link would be, gives the same view.
    page.goto("about:blank")
    open_catalogue(page, shared)
    assert shown_codes(page) == ["DCG", "DCD"]


def test_a_hostile_query_string_is_shown_as_text(page, base_url):
    hostile = '"><img src=x onerror="window.pwned=1"><script>window.pwned=2</script>'
    open_catalogue(page, base_url + "index.html?q=" + quote(hostile) + "&source=" + quote("<b>x</b>")
                   + "&sort=" + quote("constructor"))
    assert page.input_value("form.errorkb-filters input[name=q]") == hostile
    assert page.input_value("form.errorkb-filters select[name=source]") == ""  # no such option: all sources
    assert shown_codes(page) == []
    assert page.inner_text(".errorkb-count") == "0 of 5 errors"
    assert page.locator("article img, article script:not([src]), article b").count() == 0
    assert page.evaluate("window.pwned") is None
