"""Shared by the lookup benchmarks: serve a folder on 127.0.0.1 and drive Debian's Chromium."""

from __future__ import annotations

import contextlib
import functools
import http.server
import shutil
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Page

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request: socket.socket | tuple[bytes, socket.socket], client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a page that moved on before its file came
            super().handle_error(request, client_address)


@contextlib.contextmanager
def serve(folder: Path) -> Iterator[str]:
    """Serve ``folder``; yield its base URL."""
    server = _Server(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def chromium() -> Iterator[Page]:
    """A Playwright page in the system's Chromium (``apt-get install chromium``)."""
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium")
    if executable is None:
        raise SystemExit("bench: Chromium is not installed (apt-get install chromium)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=ARGS)
        page = browser.new_page()
        page.set_default_timeout(60_000)
        try:
            yield page
        finally:
            browser.close()
