"""Shared fixtures: a tiny Sphinx project in a temporary folder, and valid record text."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

RECORD = """\
---
id: {id}
code: {code}
title: Demo device ran out of memory
summary: The demo device could not allocate a buffer because its memory was full.
source: {source}
platforms: [gpu]
frameworks: [pytorch]
phase: run-time
category: device-memory
messages:
  - template: "DemoError: could not allocate {{requested:size}} on device {{device:int}}"
    examples:
      - "DemoError: could not allocate 2.00 GiB on device 0"
related: {related}
---

## Causes

The program asked for more memory than the device had left.

## Fixes

### Use a smaller batch

Fewer samples per step need fewer activations.

### Free what you no longer need

Delete large tensors before the next allocation.

## Debugging

Print the memory in use before the failing step.
"""


def record_text(id: str = "demo-oom", code: str = "DEMO1", source: str = "demo", related: str = "[]") -> str:
    """A valid record; tests change one thing in it to make it invalid."""
    return RECORD.format(id=id, code=code, source=source, related=related)


class Project:
    """A throw-away Sphinx project using the errorkb extension."""

    CONF = 'extensions = ["errorkb"]\nexclude_patterns = ["_build"]\n'

    def __init__(self, root: Path):
        self.root = root
        self.write("conf.py", self.CONF)
        self.write("index.md", "# Demo\n\n```{toctree}\n:glob:\n\nerrors/*/*\n```\n")

    def write(self, relpath: str, text: str) -> Path:
        path = self.root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text) if text.startswith("\n") else text, encoding="utf-8")
        return path

    def add_record(self, text: str | None = None, **fields: str) -> Path:
        text = text if text is not None else record_text(**fields)
        id_ = fields.get("id", "demo-oom")
        return self.write(f"errors/{fields.get('source', 'demo')}/{id_}.md", text)

    def build(self, *args: str, builder: str = "html") -> subprocess.CompletedProcess[str]:
        """Run sphinx-build as a user would, warnings as errors."""
        cmd = [sys.executable, "-m", "sphinx", "-W", "-q", "-b", builder, *args, str(self.root), str(self.out)]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=300)

    @property
    def out(self) -> Path:
        return self.root / "_build" / "html"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real site, built once per test session into a temporary folder."""
    out = tmp_path_factory.mktemp("site")
    cmd = [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", "-d", str(out / "doctrees"), str(ROOT), str(out / "html")]
    env = {k: v for k, v in os.environ.items() if k != "READTHEDOCS_CANONICAL_URL"}  # a local build
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, env=env)
    assert result.returncode == 0, result.stderr
    return out / "html"


def wait_until(condition, seconds: float, what: str):
    """Poll ``condition`` until it returns something true, and return that; fail after ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")
