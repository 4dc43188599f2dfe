"""What a snippet is: its claim, its code, its language and its options, validated once for every entry point.

The Sphinx directive, ``errorkb check`` and the pytest collector all hand the raw option strings
to :func:`make_snippet`, with the site's :class:`~.rules.SnippetRules`, so a snippet means the
same thing on a page, in ``errorkb check``, in ``make doctest`` and under pytest.  Nothing here
imports Sphinx.
"""

from __future__ import annotations

import dataclasses
import re

from packaging.requirements import InvalidRequirement, Requirement

from ..core.languages import DEFAULT, Language
from ..core.settings import Ceilings
from . import numbers
from .hardware import HardwareNeed
from .rules import SnippetRules

KINDS = {
    "reproduces": "must fail with one of this record's messages",
    "fixes": "must run cleanly (exit status 0)",
    "shows": "a session whose output must match",
}
OPTIONS = ("id", "language", "requires", "timeout", "memory", "tolerance")


DEFAULT_TIMEOUT = 60
DEFAULT_MEMORY = Ceilings.memory
MIN_MEMORY = 64 * 1024**2

_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


class SnippetError(ValueError):
    """A snippet that cannot be run as written; the message names the option at fault."""


@dataclasses.dataclass(frozen=True)
class Snippet:
    """One runnable snippet of a record's page."""

    path: str  # the record's file, relative to the source folder: errors/xla/xla-e1000.md
    line: int  # line of the opening fence in that file
    record_id: str
    id: str
    kind: str
    code: str
    language: Language
    packages: tuple[str, ...] = ()  # PEP 508 requirements on the site's declared packages: "jax", "torch>=2.0"
    programs: tuple[str, ...] = ()  # programs on the sandbox's PATH, with a version range: "git>=2.30"
    hardware: tuple[HardwareNeed, ...] = ()
    timeout: int = DEFAULT_TIMEOUT
    memory: int = DEFAULT_MEMORY
    tolerance: float | None = None
    templates: tuple[str, ...] = ()  # the record's message templates, for ``reproduces``

    @property
    def key(self) -> str:
        """The readable id shared by the pages, ``make doctest`` and pytest."""
        return f"{self.path}::{self.id}"

    @property
    def requires(self) -> list[str]:
        return [*self.packages, *self.programs, *map(str, self.hardware)]

    @property
    def highlight(self) -> str:
        return self.language.session_lexer if self.kind == "shows" else self.language.highlight


@dataclasses.dataclass(frozen=True)
class Requires:
    """``:requires:`` read: packages the site declares, programs, and what the hardware profile reads."""

    packages: tuple[str, ...] = ()
    programs: tuple[str, ...] = ()
    hardware: tuple[HardwareNeed, ...] = ()


def parse_requires(text: str, rules: SnippetRules = SnippetRules()) -> Requires:
    """Split ``jax, git>=2.30, cuda, gpu-memory>=40G``: hardware is what the site's profile reads,
    packages what its requirements file declares, and any other name a program."""
    packages: list[str] = []
    programs: list[str] = []
    needs: list[HardwareNeed] = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        try:
            need = rules.hardware.need(item)
        except ValueError as exc:
            raise SnippetError(f":requires: {exc}") from None
        if need is not None:
            needs.append(need)
            continue
        try:
            requirement = Requirement(item)
        except InvalidRequirement:
            named = f", nor hardware ({rules.hardware.syntax})" if rules.hardware.syntax else ""
            raise SnippetError(f":requires: {item!r} is neither a package nor a program with a version range "
                               f"(such as 'torch>=2.0' or 'git>=2.30'){named}") from None
        if requirement.extras or requirement.marker or requirement.url:
            if not rules.is_package(requirement.name):
                raise SnippetError(f":requires: {item!r}: extras, markers and URLs are for packages, and "
                                   f"{requirement.name} is not declared in {rules.packages_file}")
        (packages if rules.is_package(requirement.name) else programs).append(item)
    return Requires(tuple(packages), tuple(programs), tuple(needs))


def _seconds(text: str, ceiling: int) -> int:
    value = numbers.whole_number(text, 1, 10**18)
    if value is None:
        raise SnippetError(f":timeout: {text.strip()[:40]!r} must be a whole number of seconds in digits 0-9, such as 60")
    if value > ceiling:
        raise SnippetError(f":timeout: {value} is more than this site allows (errorkb_max_timeout = {ceiling})")
    return value


def _memory(text: str, ceiling: int) -> int:
    size = numbers.size(text)
    if size is None or size < MIN_MEMORY:
        raise SnippetError(f":memory: {text.strip()[:40]!r} must be a size of at least 64M in digits 0-9, such as 2G")
    if size > ceiling:
        raise SnippetError(f":memory: {text.strip()} is more than this site allows "
                           f"(errorkb_max_memory = {ceiling / 1024**3:g}G)")
    return size


def _tolerance(text: str) -> float:
    value = numbers.fraction(text)
    if value is None:
        raise SnippetError(f":tolerance: {text.strip()[:40]!r} must be a relative tolerance between 0 and 1 "
                           "in digits 0-9, such as 0.01")
    return value


def _language(text: str | None, rules: SnippetRules) -> Language:
    name = (text or DEFAULT).strip()
    if name not in rules.languages:
        raise SnippetError(f":language: {name[:40]!r} is not one of this site's languages "
                           f"({', '.join(sorted(rules.languages))}; others are declared in errorkb_languages)")
    return rules.languages[name]


def make_snippet(kind: str, options: dict[str, str], code: str, *, path: str, line: int,
                 record_id: str, templates: tuple[str, ...] = (), rules: SnippetRules = SnippetRules()) -> Snippet:
    """Validate a snippet as written, by the site's ``rules``; raise :class:`SnippetError` with the first
    problem, naming the snippet by its id where it has one."""
    try:
        return _make(kind, options, code, path=path, line=line, record_id=record_id, templates=templates, rules=rules)
    except SnippetError as exc:
        named = (options.get("id") or "").strip()[:40]
        if named and repr(named) not in str(exc):
            raise SnippetError(f"snippet {named!r}: {exc}") from None
        raise


def _make(kind: str, options: dict[str, str], code: str, *, path: str, line: int,
          record_id: str, templates: tuple[str, ...], rules: SnippetRules) -> Snippet:
    kind = kind.strip()
    if kind not in KINDS:
        raise SnippetError(f"a snippet claims one of {', '.join(KINDS)}, not {kind[:40]!r}")
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise SnippetError(f"unknown option :{unknown[0][:40]}: (options: {', '.join(':' + o + ':' for o in OPTIONS)})")
    id_ = (options.get("id") or "").strip()
    if not _ID.match(id_):
        raise SnippetError(f":id: {id_[:40]!r} must be a lower-case slug such as 'donate-buffers'" if id_
                           else "a snippet needs an :id: (a slug such as 'donate-buffers')")
    language = _language(options.get("language"), rules)
    if not code.strip():
        raise SnippetError(f"snippet {id_!r} has no code")
    if kind == "shows" and not language.prompt:
        raise SnippetError(f"snippet {id_!r} claims 'shows', but {language.name} declares no session prompt")
    if kind == "shows" and not any(row.lstrip().startswith(language.prompt.rstrip()) for row in code.splitlines()):
        raise SnippetError(f"snippet {id_!r} claims 'shows' but has no {language.prompt.strip()!r} prompt")
    if "tolerance" in options and kind != "shows":
        raise SnippetError(f"snippet {id_!r}: :tolerance: applies to 'shows' snippets only")
    if kind == "reproduces" and not templates:
        raise SnippetError(f"snippet {id_!r} claims 'reproduces' but its page has no message template")
    requires = parse_requires(options.get("requires", ""), rules)
    ceilings = rules.ceilings
    return Snippet(
        path=path, line=line, record_id=record_id, id=id_, kind=kind, code=code.rstrip() + "\n", language=language,
        packages=requires.packages, programs=requires.programs, hardware=requires.hardware,
        timeout=_seconds(options["timeout"], ceilings.timeout) if "timeout" in options else min(DEFAULT_TIMEOUT, ceilings.timeout),
        memory=_memory(options["memory"], ceilings.memory) if "memory" in options else min(DEFAULT_MEMORY, ceilings.memory),
        tolerance=_tolerance(options["tolerance"]) if "tolerance" in options else None,
        templates=templates,
    )
