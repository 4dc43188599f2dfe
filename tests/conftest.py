"""Shared fixtures: a tiny Sphinx project in a temporary folder, and valid record text."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from errorkb.config import settings_from
from errorkb.project import open_project

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


#: The configuration of the throw-away projects: the fields and sections of :data:`RECORD`,
#: declared as the site's own ``conf.py`` declares them (with a shorter vocabulary).
DEMO_CONF = """\
extensions = ["errorkb"]
exclude_patterns = ["_build"]
errorkb_fields = [
    {"name": "platforms", "label": "Platform", "slug": "platform", "many": True, "required": True,
     "values": {"tpu": "TPU", "gpu": "GPU", "neuron": "AWS Neuron", "cpu": "CPU"},
     "badge": "info", "column": True, "filter": True, "index": True},
    {"name": "frameworks", "label": "Framework", "slug": "framework", "many": True, "required": True, "open": True,
     "values": {"pytorch": "PyTorch", "jax": "JAX", "tensorflow": "TensorFlow", "transformers": "Transformers"},
     "badge": "secondary", "filter": True, "index": True, "variants": True},
    {"name": "phase", "label": "Phase", "required": True,
     "values": {"compile-time": "Compile time", "load-time": "Load time", "run-time": "Run time"},
     "badge": "warning", "column": True, "filter": True, "index": True},
    {"name": "category", "label": "Category", "required": True,
     "values": {"device-memory": "Device memory", "on-chip-memory": "On-chip memory",
                "host-memory": "Host memory", "shared-memory": "Shared memory"},
     "badge": "plain", "filter": True, "index": True},
]
errorkb_sections = ["Causes", "Fixes", "Debugging"]
"""


def _schema(conf: str):
    namespace: dict = {}
    exec(conf, namespace)
    return settings_from({k: v for k, v in namespace.items() if k.startswith("errorkb_")}).schema


#: The schema of the throw-away projects' records, and of the site's own.
DEMO_SCHEMA = _schema(DEMO_CONF)
SITE_SCHEMA = open_project(ROOT).settings.schema


class Project:
    """A throw-away Sphinx project using the errorkb extension."""

    CONF = DEMO_CONF

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
