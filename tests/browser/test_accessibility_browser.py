"""axe-core, the accessibility engine, finds no critical or serious violation on the real site's
pages: the landing page, a record page, the lookup page with a result, an index page, the 404
page and the search page answering an error message, on a laptop's and a phone's screen, in the
light and the dark theme.  axe comes from the axe-playwright-python package (its axe.min.js),
never from the network."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from browser_site import DESKTOP, PHONE

pytest_plugins = ["browser_site"]

PASTE = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.20 GiB. GPU 0 has a total capacity of "
         "23.64 GiB of which 1.02 GiB is free. Including non-PyTorch memory, this process has 22.50 GiB memory in use. "
         "Of the allocated memory 20.10 GiB is allocated by PyTorch, and 512.00 MiB is reserved by PyTorch but "
         "unallocated.")
PAGES = {
    "landing": "index.html",
    "record": "errors/pytorch/torch-cuda-oom.html",
    "lookup": "lookup.html#q=" + quote(PASTE),
    "index": "by/platform/gpu.html",
    "not found": "404.html",
    "search": "search.html?q=CUDA+out+of+memory",
}
#: What must be fixed before a page ships; "moderate" and "minor" ones are left to judgement.
BLOCKING = ("critical", "serious")


@pytest.fixture(scope="module")
def axe():
    try:
        from axe_playwright_python.sync_playwright import Axe
    except ImportError:
        pytest.skip("the axe-playwright-python package is not installed")
    return Axe()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_no_critical_or_serious_violation(browser, real_url, axe, size, scheme):
    context = browser.new_context(viewport=size, color_scheme=scheme)
    page = context.new_page()
    page.set_default_timeout(20_000)
    found = {}
    try:
        for name, path in PAGES.items():
            page.goto(real_url + path)
            if name == "lookup":
                page.wait_for_selector("#errorkb-lookup-results[data-state=done] > li")
            if name == "search":
                page.wait_for_selector(".errorkb-search-answer")
            violations = axe.run(page).response["violations"]
            blocking = [f"{v['id']} ({v['impact']}): {v['nodes'][0]['target']}" for v in violations
                        if v["impact"] in BLOCKING]
            if blocking:
                found[name] = blocking
    finally:
        context.close()
    assert not found, found
