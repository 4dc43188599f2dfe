"""Browser fixtures: built demo sites (paste box and catalogue table on the landing page, every
request to it recorded in ``requests_seen``; the same in each theme errorkb is checked with; a
record using sphinx-design's components) served on 127.0.0.1, and Debian's Chromium under Playwright.

Test modules load them with ``pytest_plugins = ["browser_site"]``, so that every module shares one
site and one browser (a module importing them would get its own copies, and Playwright's
synchronous API cannot run twice at once).  The site is ``demo_site``: ``site`` is the real one.

Chromium comes from the system (``apt-get install chromium`` when missing), never a downloaded
browser.  Without it the tests are skipped, except under CI, where they fail."""

from __future__ import annotations

import functools
import http.server
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from conftest import Project
from lookup_records import write_records
from system_tools import require, unavailable

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

INDEX = ("# Demo errors\n\n```{errorkb-paste}\n```\n\n## All errors\n\n```{err:catalogue}\n```\n\n"
         "```{toctree}\n:glob:\n\nerrors/*/*\n```\n")
REPOSITORY = "https://github.com/example/errorkb"
#: What a paste that matches nothing is told it looks like (see triage.py), with its pages.
KINDS: list[dict[str, Any]] = [
    {"name": "device", "title": "Device memory ran out", "page": "docs/device", "cues": ["out of memory", "HBM"],
     "records": {"source": ["demo"]}},
    {"name": "other", "title": "Not a memory error", "page": "docs/other"},
]


@pytest.fixture(scope="session")
def demo_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = Project(tmp_path_factory.mktemp("site"))
    project.write("conf.py", Project.CONF + f"errorkb_repository_url = {REPOSITORY!r}\nerrorkb_kinds = {KINDS!r}\n")
    project.write("index.md", INDEX)
    for kind in KINDS:
        project.write(f"{kind['page']}.md", f"---\norphan: true\n---\n\n# {kind['title']}\n\nWhat to check first.\n")
    write_records(project.root, coded=False)
    result = project.build()
    assert result.returncode == 0, result.stderr
    return project.out


#: The widths the site is checked at: a laptop's and a phone's screen.
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def phone(browser) -> Iterator[object]:
    """A page on a phone's screen, touch and all."""
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=3)
    page = context.new_page()
    page.set_default_timeout(20_000)
    yield page
    context.close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


class _RecordingHandler(_QuietHandler):
    """Serves the site and keeps each request's line and headers, as a server's log would."""

    seen: list[str] = []

    def parse_request(self) -> bool:
        ok = super().parse_request()
        self.seen.append(self.requestline + "\n" + str(self.headers))
        return ok


@pytest.fixture(scope="session")
def requests_seen() -> list[str]:
    """Every request the demo site's server has received, line and headers."""
    return _RecordingHandler.seen


def serve(folder: Path, handler_class: type[http.server.SimpleHTTPRequestHandler]) -> Iterator[str]:
    """Serve ``folder`` on 127.0.0.1 until the generator is closed; yields the base URL."""
    handler = functools.partial(handler_class, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def base_url(demo_site: Path) -> Iterator[str]:
    yield from serve(demo_site, _RecordingHandler)


@pytest.fixture(scope="session")
def real_url(site: Path) -> Iterator[str]:
    """The real site (``site`` of tests/conftest.py), served."""
    yield from serve(site, _QuietHandler)


@pytest.fixture(scope="session")
def design_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A record with framework tabs and folded examples, and a guide with tabs of the same group."""
    project = Project(tmp_path_factory.mktemp("design"))
    shutil.copytree(Path(__file__).resolve().parents[1] / "roots" / "test-design", project.root, dirs_exist_ok=True)
    guide = ("# Guide\n\n````{tab-set}\n:sync-group: framework\n\n```{tab-item} PyTorch\n:sync: pytorch\n\n"
             "torch text\n```\n\n```{tab-item} JAX\n:sync: jax\n\njax text\n```\n````\n")
    project.write("guide.md", guide)
    project.write("index.md", "# Demo\n\n```{toctree}\n:glob:\n\nguide\nerrors/*/*\n```\n")
    result = project.build()
    assert result.returncode == 0, result.stderr
    yield from serve(project.out, _QuietHandler)


THEMES = [("alabaster", "html"), ("furo", "dirhtml"), ("pydata_sphinx_theme", "html")]


@pytest.fixture(scope="module", params=THEMES, ids=[f"{theme}-{builder}" for theme, builder in THEMES])
def themed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """The demo site's landing page and records in one theme: its base URL, and the builder that wrote it."""
    theme, builder = request.param
    project = Project(tmp_path_factory.mktemp(theme))
    project.write("conf.py", Project.CONF + f'html_theme = "{theme}"\nproject = "Demo KB"\n')
    project.write("index.md", INDEX)
    write_records(project.root, coded=False)
    result = project.build(builder=builder)
    assert result.returncode == 0, result.stderr
    for url in serve(project.out, _QuietHandler):
        yield url, builder


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    executable = require("chromium", "chromium")
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        unavailable("the playwright package is not installed")
    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
    except Error as exc:
        playwright.stop()
        unavailable(f"Chromium did not start: {exc}")
    yield browser
    browser.close()
    playwright.stop()


@pytest.fixture
def page(browser) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(20_000)
    yield page
    context.close()
