"""Prose linting of the records and guides with rumdl, as ``file:line`` problems.

sphinx-lint reads only reStructuredText, Python and .po files: it passes any ``.md`` file
without a look.  rumdl is a markdownlint-compatible linter with a MyST flavour (directives,
roles, targets and front matter are understood) that checks a whole site in a fraction of a
second; PyMarkdown, the pure-Python alternative, takes a few tenths of a second per file.
Nothing here imports Sphinx.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from ..core.reading import not_a_file
from ..core.records import Problem

#: Rules that do not fit this site: prose is wrapped by hand and messages are long (MD013),
#: and shell sessions may show a ``$`` prompt without output (MD014).
DISABLED_RULES = ("MD013", "MD014")


class LintUnavailable(RuntimeError):
    """The linter is not installed."""


def rumdl_command() -> str:
    """rumdl next to this Python (a virtual environment's bin/) or on the PATH."""
    here = str(Path(sys.executable).parent)
    found = shutil.which("rumdl", path=here + os.pathsep + os.environ.get("PATH", ""))
    if found is None:
        raise LintUnavailable("prose linting needs rumdl, which the check extra installs: pip install 'errorkb[check]'")
    return found


def lint_prose(files: list[Path], *, root: Path) -> list[Problem]:
    """Every Markdown style problem in ``files``, one :class:`Problem` per rule broken."""
    readable: list[Path] = []
    problems: list[Problem] = []
    for path in files:
        kind = not_a_file(path)
        if kind is not None:
            problems.append(Problem(_shown(path, root), 1, f"not read: it is {kind}, not a file"))
            continue
        try:
            raw = path.read_bytes()
            raw.decode("utf-8")
            readable.append(path)
        except OSError as exc:
            problems.append(Problem(_shown(path, root), 1, f"cannot read the file: {exc.strerror}"))
        except UnicodeDecodeError as exc:
            problems.append(Problem(_shown(path, root), raw[: exc.start].count(b"\n") + 1, "the file is not UTF-8 text"))
    if not readable:
        return problems
    cmd = [
        rumdl_command(), "check", "--no-config", "--no-cache", "--respect-gitignore=false",
        "--flavor", "myst", "--disable", ",".join(DISABLED_RULES), "--output-format", "json",
        "--color", "never", "--", *map(str, readable),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    try:
        warnings = json.loads(done.stdout or "[]")
    except json.JSONDecodeError:
        raise LintUnavailable(f"rumdl failed: {(done.stderr or done.stdout).strip()[:500]}") from None
    for w in warnings:
        problems.append(Problem(_shown(Path(w["file"]), root), max(1, int(w["line"])), f"{w['message']} ({w['rule']})"))
    return problems


def markdown_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.md") if p.is_file()) if folder.is_dir() else []


def _shown(path: Path, root: Path) -> str:
    """``path`` from ``root``: as written where it can be (a link to a device is named by the link)."""
    for shown, base in ((path.absolute(), root.absolute()), (path.resolve(), root.resolve())):
        if shown.is_relative_to(base):
            return shown.relative_to(base).as_posix()
    return path.as_posix()
