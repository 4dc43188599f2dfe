"""Shared fixtures: Sphinx's test fixtures on the projects under ``tests/roots/``, snapshots of
rendered output under ``tests/snapshots/``, a throw-away project for tests that run
``sphinx-build`` as a user would, and valid record text.

A test builds a root with ``@pytest.mark.sphinx("html", testroot="basic")`` and the ``app``
fixture (``tests/roots/test-basic``, read in place, built into a temporary folder shared by the
tests of that root); ``srcdir="..."`` in the marker builds a copy that the test may change.
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from errorkb.core.settings import settings_from
from errorkb.tools.project import open_project

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"

pytest_plugins = ("sphinx.testing.fixtures",)

# The tests read what the tools print as plain text: Sphinx colours its messages on a terminal, under
# FORCE_COLOR, and wherever CI=true, and a colour code would stand before the file name they expect.
os.environ["NO_COLOR"] = "1"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-snapshots", action="store_true",
                     help="rewrite the files under tests/snapshots/ from the output of this run")


@pytest.fixture(scope="session")
def rootdir() -> Path:
    """Where Sphinx's ``app`` fixture finds ``testroot="name"``: ``tests/roots/test-name``."""
    return Path(__file__).resolve().parent / "roots"


@pytest.fixture(scope="session", autouse=True)
def cache_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The compiled catalogues the terminal tools cache (``$XDG_CACHE_HOME/errorkb``) go to a
    folder of the session's own, for the tests and every process they start."""
    folder = tmp_path_factory.mktemp("cache-home")
    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(folder)
    yield folder
    if before is None:
        del os.environ["XDG_CACHE_HOME"]
    else:
        os.environ["XDG_CACHE_HOME"] = before


class Snapshots:
    """Compares output with a file under ``tests/snapshots/``, or rewrites it.

    Rewritten with ``pytest --update-snapshots`` (or ``ERRORKB_UPDATE_SNAPSHOTS=1``); a missing
    file is written and the test fails, so that a new snapshot is reviewed before it is trusted.
    """

    def __init__(self, update: bool):
        self.update = update

    def check(self, name: str, text: str) -> None:
        path = SNAPSHOTS / name
        shown = path.relative_to(ROOT).as_posix()
        if self.update or not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            if not self.update:
                pytest.fail(f"wrote a new snapshot: review {shown} and commit it")
            return
        expected = path.read_text(encoding="utf-8")
        if text != expected:
            diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True), shown, "this run"))
            pytest.fail(f"the output differs from {shown} (if the change is meant, run pytest "
                        f"--update-snapshots and review the diff):\n{diff}", pytrace=False)


@pytest.fixture
def snapshots(request: pytest.FixtureRequest) -> Snapshots:
    return Snapshots(bool(request.config.getoption("--update-snapshots") or os.environ.get("ERRORKB_UPDATE_SNAPSHOTS")))


def doctree_text(app, docname: str) -> str:
    """The page's doctree as the writer gets it, pretty-printed, without this machine's paths."""
    doctree = app.env.get_and_resolve_doctree(docname, app.builder, tags=app.tags)
    return doctree.pformat().replace(str(app.srcdir), "<srcdir>")


def page(app, name: str) -> str:
    """A written page of ``app``'s build."""
    return (app.outdir / name).read_text(encoding="utf-8")

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


#: The configuration of the throw-away projects, that of the tiny test sites under tests/roots/:
#: the fields and sections of :data:`RECORD`, declared as the site's own ``conf.py`` declares them.
DEMO_CONF = (Path(__file__).parent / "roots" / "test-basic" / "conf.py").read_text(encoding="utf-8")


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
    """The real site, built once per test session into a temporary folder.

    Its snippets are not run here: each is a test item of its own (``errors/<source>/<id>.md::<id>``),
    so the pages show the statuses of an empty cache, and the build does not run them all again.
    """
    out = tmp_path_factory.mktemp("site")
    cmd = [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", "-D", "errorkb_run_examples=0",
           "-d", str(out / "doctrees"), str(ROOT), str(out / "html")]
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


# ---------------------------------------------------------------------------------------------
# errorkb as a user installs it

#: What the wheel is built from: the build configuration, the README it embeds and the package.
SOURCES = ("pyproject.toml", "README.md", "ext")


@dataclass
class Installed:
    """A virtual environment holding only the wheel, its dependencies and pytest."""

    venv: Path
    wheel: Path

    @property
    def bin(self) -> Path:
        return self.venv / "bin"

    def run(self, *cmd: str, cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess[str]:
        """Run a command of the environment in ``cwd``, as its user would: only its bin on the PATH
        before the system's, and nothing of the repository importable."""
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "ERRORKB_ROOT")}
        env["PATH"] = os.pathsep.join([str(self.bin), "/usr/bin", "/bin"])
        program = cmd[0] if "/" in cmd[0] else str(self.bin / cmd[0])
        return subprocess.run([program, *cmd[1:]], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _constraints(folder: Path) -> Path:
    """The pinned versions of requirements/, as pip constraints (which take no extras)."""
    lines = [line for path in sorted((ROOT / "requirements").glob("*.txt")) for line in path.read_text(encoding="utf-8").splitlines()]
    pins = sorted({re.sub(r"\[[^\]]*\]", "", line) for line in lines if "==" in line and not line.startswith("#")})
    path = folder / "constraints.txt"
    path.write_text("\n".join(pins) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The wheel built from this repository, installed with its extras (the linter, the MCP server)
    into a fresh environment."""
    work = tmp_path_factory.mktemp("package")
    source = work / "source"
    source.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(ROOT / name, source / name)
    dist = work / "dist"
    built = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist), str(source)],
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (wheel,) = dist.glob("errorkb-*.whl")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    pip = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                          "-c", str(_constraints(work)), f"{wheel}[check,mcp]", "pytest"],
                         capture_output=True, text=True, timeout=600)
    assert pip.returncode == 0, pip.stderr[-3000:]
    return Installed(venv, wheel)
