"""The languages a snippet may be written in: ``python`` and ``bash`` built in, others declared by a site.

A language says how the sandbox runs a snippet (a command line given the snippet's file), how
its code is highlighted, and, for ``shows`` snippets, the prompt of its sessions.  A site
declares more in ``conf.py``::

    errorkb_languages = {
        "javascript": {"command": "node {file}", "suffix": ".js"},
        "rust": {"command": "sh -c 'rustc -o snippet {file} && ./snippet'", "suffix": ".rs"},
    }

Nothing here imports Sphinx.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

#: Where a command names the snippet's file, and the build's own Python.
FILE, PYTHON = "{file}", "{python}"
_NAME = re.compile(r"^[a-z][a-z0-9+-]*$")


@dataclasses.dataclass(frozen=True)
class Language:
    """How snippets of one language run and look."""

    name: str
    command: tuple[str, ...]  # argv; FILE and PYTHON are replaced when it runs
    suffix: str  # of the snippet's file: ``.py``
    highlight: str  # Pygments' name for the code
    prompt: str = ""  # a ``shows`` session's prompt (``$ ``); none: the language has no sessions
    continuation: str = ""  # the prompt of a command's further lines (``> ``)
    session_highlight: str = ""  # Pygments' name for a session (``console``)
    doctest: bool = False  # its sessions are doctest sessions (Python's); others are transcripts

    @property
    def session_lexer(self) -> str:
        return self.session_highlight or self.highlight


BUILT_IN: dict[str, Language] = {
    "python": Language("python", (PYTHON, FILE), ".py", "python", ">>> ", "... ", "pycon", doctest=True),
    "bash": Language("bash", ("bash", FILE), ".sh", "bash", "$ ", "> ", "console"),
}
DEFAULT = "python"


class _Declared(BaseModel):
    """A language as ``errorkb_languages`` declares it."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    command: str | list[str] = Field(min_length=1)
    suffix: str = Field(default=".txt", pattern=r"^\.[A-Za-z0-9_+-]{1,16}$")
    highlight: str = ""
    prompt: str = ""
    continuation: str = ""
    session_highlight: str = ""


def _lexer_known(name: str) -> bool:
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        get_lexer_by_name(name)
    except ClassNotFound:
        return False
    return True


def _declared(name: str, value: Any) -> Language:
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"errorkb_languages: {name!r} is not a language name (lower-case, such as 'javascript')")
    if name in BUILT_IN:
        raise ValueError(f"errorkb_languages: {name!r} is built in; give yours another name")
    try:
        spec = _Declared.model_validate(value)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(map(str, err["loc"]))
        raise ValueError(f"errorkb_languages[{name!r}]{'.' + where if where else ''}: {err['msg']}") from None
    try:
        command = tuple(shlex.split(spec.command)) if isinstance(spec.command, str) else tuple(spec.command)
    except ValueError as exc:
        raise ValueError(f"errorkb_languages[{name!r}].command: {exc}") from None
    if not command or not any(FILE in part for part in command):
        raise ValueError(f"errorkb_languages[{name!r}].command must name the snippet's file as {FILE}, "
                         "such as 'node {file}'")
    if spec.continuation and not spec.prompt:
        raise ValueError(f"errorkb_languages[{name!r}]: a continuation prompt needs a prompt")
    highlight = spec.highlight or name
    for key, lexer in (("highlight", highlight), ("session_highlight", spec.session_highlight)):
        if lexer and not _lexer_known(lexer):
            raise ValueError(f"errorkb_languages[{name!r}].{key}: Pygments knows no language {lexer!r}")
    return Language(name, command, spec.suffix, highlight, spec.prompt, spec.continuation, spec.session_highlight)


def languages_from(value: Mapping[str, Any]) -> dict[str, Language]:
    """The built-in languages and those ``errorkb_languages`` declares; ValueError names a bad one."""
    return {**BUILT_IN, **{name: _declared(name, spec) for name, spec in value.items()}}
