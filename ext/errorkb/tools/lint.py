"""Prose linting of the records and guides with rumdl, as ``file:line`` problems.

sphinx-lint reads only reStructuredText, Python and .po files: it passes any ``.md`` file
without a look.  rumdl is a markdownlint-compatible linter with a MyST flavour (directives,
roles, targets and front matter are understood) that checks a whole site in a fraction of a
second; PyMarkdown, the pure-Python alternative, takes a few tenths of a second per file.

rumdl reads the site's own configuration (:data:`CONFIG_FILES`, in the site's folder), where a
site turns rules off, for every file or some (``per-file-ignores``); without one, errorkb's
defaults apply (:data:`DISABLED_RULES` off).  Nothing inside fenced code is prose: rumdl is
given each file with those lines emptied.  Nothing here imports Sphinx.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from ..core.markdown import fences
from ..core.page_rules import CODE_DIRECTIVES
from ..core.reading import not_a_file
from ..core.records import Problem, split_frontmatter

#: Rules off without a configuration of the site's own: prose is wrapped by hand and messages are
#: long (MD013), and shell sessions may show a ``$`` prompt without output (MD014).
DISABLED_RULES = ("MD013", "MD014")
#: rumdl's configuration files, as it names them; the first found in the site's folder is read.
CONFIG_FILES = (".rumdl.toml", "rumdl.toml", ".config/rumdl.toml", ".markdownlint.json", ".markdownlint.jsonc",
                ".markdownlint.yaml", ".markdownlint.yml")


class LintUnavailable(RuntimeError):
    """The linter is not installed."""


def rumdl_command() -> str:
    """rumdl next to this Python (a virtual environment's bin/) or on the PATH."""
    here = str(Path(sys.executable).parent)
    found = shutil.which("rumdl", path=here + os.pathsep + os.environ.get("PATH", ""))
    if found is None:
        raise LintUnavailable("rumdl is not installed (pip install 'errorkb[check]')")
    return found


def site_config(root: Path) -> Path | None:
    """The site's own rumdl configuration: one of :data:`CONFIG_FILES`, or ``pyproject.toml`` with ``[tool.rumdl]``."""
    found = next((root / name for name in CONFIG_FILES if (root / name).is_file()), None)
    if found is None and (root / "pyproject.toml").is_file():
        try:
            text = (root / "pyproject.toml").read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        found = root / "pyproject.toml" if re.search(r"^\[tool\.rumdl(\.|\])", text, re.M) else None
    return found


def code_lines(text: str) -> set[int]:
    """The lines of ``text`` inside fenced code (not the fences' own lines): not prose."""
    parts = split_frontmatter(text)
    skipped = parts[2] if parts else 0
    inside: set[int] = set()
    for fence in fences(parts[1] if parts else text, skipped + 1):
        if fence.directive is None or fence.directive in CODE_DIRECTIVES:
            inside.update(range(fence.line + 1, fence.end - 1))
    return inside


def prose_only(text: str) -> str:
    """``text`` with the lines inside fenced code emptied, for the linter: conflict markers in a
    ``text`` block would make rumdl skip the whole file, a long command would be a long line."""
    code = code_lines(text)
    return "\n".join("" if n in code else line for n, line in enumerate(text.split("\n"), 1))


def lint_prose(files: list[Path], *, root: Path) -> list[Problem]:
    """Every Markdown style problem in the prose of ``files``, one :class:`Problem` per rule broken."""
    texts: dict[str, str] = {}
    problems: list[Problem] = []
    for path in files:
        kind = not_a_file(path)
        if kind is not None:
            problems.append(Problem(_shown(path, root), 1, f"not read: it is {kind}, not a file"))
            continue
        try:
            raw = path.read_bytes()
            texts[_shown(path, root)] = prose_only(raw.decode("utf-8"))
        except OSError as exc:
            problems.append(Problem(_shown(path, root), 1, f"cannot read the file: {exc.strerror}"))
        except UnicodeDecodeError as exc:
            problems.append(Problem(_shown(path, root), raw[: exc.start].count(b"\n") + 1, "the file is not UTF-8 text"))
    if not texts:
        return problems
    config = site_config(root)
    settings = ["--config", str(config)] if config else ["--no-config", "--disable", ",".join(DISABLED_RULES)]
    cmd = [rumdl_command(), "check", *settings, "--no-cache", "--respect-gitignore=false", "--flavor", "myst",
           "--output-format", "json", "--color", "never", "--stdin-batch"]
    batch = "".join(f"{name}\0{text}\0" for name, text in texts.items())
    done = subprocess.run(cmd, input=batch, capture_output=True, text=True, timeout=120, cwd=root)
    try:
        warnings = json.loads(done.stdout or "[]")
    except json.JSONDecodeError:
        raise LintUnavailable(f"rumdl failed: {(done.stderr or done.stdout).strip()[:500]}") from None
    for w in warnings:
        problems.append(Problem(w["file"], max(1, int(w["line"])), f"{w['message']} ({w['rule']})"))
    return problems


def markdown_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.md") if p.is_file()) if folder.is_dir() else []


def _shown(path: Path, root: Path) -> str:
    """``path`` from ``root``: as written where it can be (a link to a device is named by the link)."""
    for shown, base in ((path.absolute(), root.absolute()), (path.resolve(), root.resolve())):
        if shown.is_relative_to(base):
            return shown.relative_to(base).as_posix()
    return path.as_posix()
