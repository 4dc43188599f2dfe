"""The Makefile's contributor targets, run as a contributor would, in a throw-away project."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from conftest import ROOT, wait_until
from test_cli_new import fill


def make(project, *args: str) -> subprocess.CompletedProcess[str]:
    """Run a target of the project's Makefile in ``project``, with the tools of this Python."""
    if shutil.which("make") is None or not (Path(sys.executable).parent / "errorkb").exists():
        pytest.skip("needs make and the errorkb command installed next to this Python")
    cmd = ["make", "-s", "-f", str(ROOT / "Makefile"), "-C", str(project.root), "STAMP=", f"BIN={Path(sys.executable).parent}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300)


def test_make_new_then_make_check_then_make_html(project):
    message = 'DemoError: "$HOME" could not allocate 2.00 GiB'
    made = make(project, "new", "ID=demo-alloc", "CODE=", "SOURCE=demo", "TITLE=Demo allocation failed", f"MESSAGE={message}")
    assert made.returncode == 0, made.stderr
    path = project.root / "errors/demo/demo-alloc.md"
    assert f"      - {json.dumps(message)}" in path.read_text(encoding="utf-8")
    checked = make(project, "check")
    assert checked.returncode != 0 and "errors/demo/demo-alloc.md:5: unfilled scaffold placeholder" in checked.stdout
    path.write_text(fill(path.read_text(encoding="utf-8")), encoding="utf-8")
    checked = make(project, "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    built = make(project, "html")
    assert built.returncode == 0, built.stderr
    assert (project.root / "_build/html/errors/demo/demo-alloc.html").is_file()


def test_a_failed_build_leaves_the_last_site_as_it_was(project):
    project.add_record()
    assert make(project, "html").returncode == 0
    site = project.root / "_build/html"
    page = site / "errors/demo/demo-oom.html"
    before = page.read_bytes()

    guide = project.write("docs/guide.md", "# Guide\n\nSee {doc}`no-such-page`.\n")
    for attempt in ("first", "unchanged"):  # a second run must not pass on a cached, failed read
        failed = make(project, "html")
        assert failed.returncode != 0, attempt
        assert "no-such-page" in failed.stderr, attempt
        assert page.read_bytes() == before and not (site / "docs/guide.html").exists(), attempt
        assert sorted(p.name for p in site.parent.iterdir()) == ["doctrees", "html"], attempt

    guide.write_text("# Guide\n\nSee {doc}`/index`.\n", encoding="utf-8")
    project.write("index.md", "# Demo\n\n```{toctree}\n:glob:\n\nerrors/*/*\ndocs/*\n```\n")
    rebuilt = make(project, "html")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert (site / "docs/guide.html").is_file() and page.is_file()


def fetch(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read().decode("utf-8")
    except OSError:
        return None


def test_make_serve_rebuilds_when_records_or_the_extension_change(project):
    project.add_record()
    (project.root / "ext").mkdir()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = project.root / "serve.log"
    if shutil.which("make") is None or not (Path(sys.executable).parent / "sphinx-autobuild").exists():
        pytest.skip("needs make and sphinx-autobuild installed next to this Python")
    cmd = ["make", "-s", "-f", str(ROOT / "Makefile"), "-C", str(project.root), "STAMP=", f"BIN={Path(sys.executable).parent}",
           "serve", f"SPHINXOPTS=--host 127.0.0.1 --port {port} --no-initial"]
    with log.open("w") as out:
        server = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    page = f"http://127.0.0.1:{port}/errors/demo/demo-oom.html"
    try:
        project.build()  # --no-initial: serve what a build made, then rebuild on changes only
        assert "Demo device ran out of memory" in wait_until(lambda: fetch(page), 120, "the server")
        record = project.root / "errors/demo/demo-oom.md"
        record.write_text(record.read_text().replace("Demo device ran out", "Demo device really ran out"))
        wait_until(lambda: "Demo device really ran out" in (fetch(page) or ""), 120, "the page to change")
        (project.root / "ext/newer.py").write_text("")
        wait_until(lambda: "[new config]" in log.read_text().split("Detected changes (ext/newer.py)")[-1], 120, "a full re-read")
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
