"""The Makefile's contributor targets, run as a contributor would, in a throw-away project."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
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
    assert checked.returncode != 0 and "errors/demo/demo-alloc.md:3: unfilled scaffold placeholder" in checked.stdout
    path.write_text(fill(path.read_text(encoding="utf-8")), encoding="utf-8")
    checked = make(project, "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    built = make(project, "html")
    assert built.returncode == 0, built.stderr
    assert (project.root / "_build/html/errors/demo/demo-alloc.html").is_file()


def test_a_failed_build_leaves_no_site_behind(project):
    project.add_record()
    assert make(project, "html").returncode == 0
    site = project.root / "_build/html"
    assert (site / "errors/demo/demo-oom.html").is_file()

    guide = project.write("docs/guide.md", "# Guide\n\nSee {doc}`no-such-page`.\n")
    for attempt in ("first", "unchanged"):  # a second run must not pass on a cached, failed read
        failed = make(project, "html")
        assert failed.returncode != 0, attempt
        assert "no-such-page" in failed.stderr and not site.exists(), attempt

    guide.write_text("# Guide\n\nSee {doc}`/index`.\n", encoding="utf-8")
    project.write("index.md", "# Demo\n\n```{toctree}\n:glob:\n\nerrors/*/*\ndocs/*\n```\n")
    rebuilt = make(project, "html")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert (site / "docs/guide.html").is_file() and (site / "errors/demo/demo-oom.html").is_file()
