"""errorkb as a package: a wheel built from the repository, installed into a fresh virtual
environment, works in a project of its own, with no file of the repository at hand.

One wheel and one environment serve the whole module (``installed``); each test works in its own
temporary project folder."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

import errorkb
from conftest import ROOT, Installed, Project, record_text

SNIPPET = "\n```{snippet} fixes\n:id: small-batch\n\nprint('fits')\n```\n"


@pytest.fixture
def tiny(tmp_path: Path) -> Project:
    """A new site: a landing page with the paste box and the table, one record with one snippet."""
    project = Project(tmp_path / "kb")
    project.write("index.md", "# Demo errors\n\n```{errorkb-paste}\n```\n\n```{err:catalogue}\n```\n\n"
                              "```{toctree}\n:glob:\n\nerrors/*/*\n```\n")
    project.add_record(record_text().replace("\n### Free what you no longer need", SNIPPET + "\n### Free what you no longer need"))
    return project


def test_the_wheel_holds_its_version_once(installed: Installed) -> None:
    assert installed.wheel.name.startswith(f"errorkb-{errorkb.__version__}-")
    assert 'dynamic = ["version"]' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def test_the_command_runs_from_the_installed_package(installed: Installed, tiny: Project) -> None:
    version = installed.run("errorkb", "--version", cwd=tiny.root)
    assert version.returncode == 0 and version.stdout.strip() == f"errorkb {errorkb.__version__}"
    where = installed.run("python", "-c", "import errorkb; print(errorkb.__file__)", cwd=tiny.root)
    assert Path(where.stdout.strip()).is_relative_to(installed.venv)
    check = installed.run("errorkb", "check", cwd=tiny.root)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "1 records OK, prose OK" in check.stderr
    tiny.write("docs/guide.md", "# Guide\n\n##No space\n")
    check = installed.run("errorkb", "check", cwd=tiny.root)
    assert check.returncode == 1 and "docs/guide.md:3:" in check.stdout and "(MD018)" in check.stdout


def test_a_site_builds_with_the_package_s_own_files(installed: Installed, tiny: Project) -> None:
    built = installed.run("sphinx-build", "-W", "-q", "-b", "html", ".", "_build/html", cwd=tiny.root)
    assert built.returncode == 0, built.stderr
    out = tiny.out
    static = {p.name for p in (out / "_static").iterdir()}
    assert {"errorkb.css", "errorkb-lookup-page.js", "errorkb-paste-box.js", "errorkb-lookup-index.json"} <= static
    shipped = {p.name for p in (ROOT / "ext/errorkb/site/static").iterdir()}
    assert shipped <= static and all(name.startswith("errorkb") for name in shipped)
    assert 'action="lookup.html"' in (out / "index.html").read_text(encoding="utf-8")
    assert "Find your error" in (out / "lookup.html").read_text(encoding="utf-8")
    assert "Page not found" in (out / "404.html").read_text(encoding="utf-8")
    assert 'class="errorkb-catalogue' in (out / "index.html").read_text(encoding="utf-8")


def test_the_pytest_plugin_collects_the_snippets(installed: Installed, tiny: Project) -> None:
    collected = installed.run("python", "-m", "pytest", "-p", "errorkb.examples.pytest_plugin", "--collect-only", "-q",
                              cwd=tiny.root)
    assert collected.returncode == 0, collected.stdout + collected.stderr
    assert "errors/demo/demo-oom.md::small-batch" in collected.stdout


def test_without_the_linter_check_says_which_extra_brings_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from errorkb.tools.lint import LintUnavailable, rumdl_command

    monkeypatch.setattr(sys, "executable", str(tmp_path / "bin" / "python"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(LintUnavailable, match=re.escape("pip install 'errorkb[check]'")):
        rumdl_command()
