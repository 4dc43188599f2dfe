"""What a snippet is: its claim, its code and its options, validated once for every entry point.

The Sphinx directive and the pytest collector both hand the raw option strings to
:func:`make_snippet`, so a snippet means the same thing on a page, in ``make doctest`` and
under pytest.  Nothing here imports Sphinx.
"""

from __future__ import annotations

import dataclasses
import re

from packaging.requirements import InvalidRequirement, Requirement

from ..core.settings import Ceilings
from ..core.values import parse_size
from .hardware import NO_HARDWARE, HardwareNeed, Profile

KINDS = {
    "reproduces": "must fail with one of this record's messages",
    "fixes": "must run cleanly (exit status 0)",
    "shows": "a doctest session whose output must match",
}
OPTIONS = ("id", "requires", "timeout", "memory", "tolerance")


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
    packages: tuple[str, ...] = ()  # PEP 508 requirements: "jax", "torch>=2.0"
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
        return [*self.packages, *map(str, self.hardware)]


def parse_requires(text: str, hardware: Profile = NO_HARDWARE) -> tuple[tuple[str, ...], tuple[HardwareNeed, ...]]:
    """Split ``jax, torch>=2.0, cuda, gpu-memory>=40G`` into packages and the needs ``hardware`` reads."""
    packages: list[str] = []
    needs: list[HardwareNeed] = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        try:
            need = hardware.need(item)
        except ValueError as exc:
            raise SnippetError(f":requires: {exc}") from None
        if need is not None:
            needs.append(need)
            continue
        try:
            Requirement(item)
        except InvalidRequirement:
            named = f" nor hardware ({hardware.syntax})" if hardware.syntax else \
                " (this site names no hardware: errorkb_hardware)"
            raise SnippetError(f":requires: {item!r} is neither a package (such as 'torch>=2.0'){named}") from None
        packages.append(item)
    return tuple(packages), tuple(needs)


def _seconds(text: str, ceiling: int) -> int:
    if not text.strip().isdigit() or int(text) < 1:
        raise SnippetError(f":timeout: {text!r} must be a whole number of seconds, such as 60")
    if int(text) > ceiling:
        raise SnippetError(f":timeout: {text.strip()} is more than this site allows (errorkb_max_timeout = {ceiling})")
    return int(text)


def _memory(text: str, ceiling: int) -> int:
    size = parse_size(text.strip())
    if not size or size < MIN_MEMORY:
        raise SnippetError(f":memory: {text!r} must be a size of at least 64M, such as 2G")
    if size > ceiling:
        raise SnippetError(f":memory: {text.strip()} is more than this site allows "
                           f"(errorkb_max_memory = {ceiling / 1024**3:g}G)")
    return int(size)


def _tolerance(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < 1:
        raise SnippetError(f":tolerance: {text!r} must be a relative tolerance between 0 and 1, such as 0.01")
    return value


def make_snippet(kind: str, options: dict[str, str], code: str, *, path: str, line: int,
                 record_id: str, templates: tuple[str, ...] = (), ceilings: Ceilings = Ceilings(),
                 hardware: Profile = NO_HARDWARE) -> Snippet:
    """Validate a snippet as written, its hardware needs read by ``hardware``; raise :class:`SnippetError`
    with the first problem."""
    kind = kind.strip()
    if kind not in KINDS:
        raise SnippetError(f"a snippet claims one of {', '.join(KINDS)}, not {kind!r}")
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise SnippetError(f"unknown option :{unknown[0]}: (options: {', '.join(':' + o + ':' for o in OPTIONS)})")
    id_ = (options.get("id") or "").strip()
    if not _ID.match(id_):
        raise SnippetError(f":id: {id_!r} must be a lower-case slug such as 'donate-buffers'" if id_
                           else "a snippet needs an :id: (a slug such as 'donate-buffers')")
    if not code.strip():
        raise SnippetError(f"snippet {id_!r} has no code")
    if kind == "shows" and ">>>" not in code:
        raise SnippetError(f"snippet {id_!r} claims 'shows' but has no '>>>' prompt")
    if "tolerance" in options and kind != "shows":
        raise SnippetError(f"snippet {id_!r}: :tolerance: applies to 'shows' snippets only")
    if kind == "reproduces" and not templates:
        raise SnippetError(f"snippet {id_!r} claims 'reproduces' but its page has no message template")
    packages, needs = parse_requires(options.get("requires", ""), hardware)
    return Snippet(
        path=path, line=line, record_id=record_id, id=id_, kind=kind, code=code.rstrip() + "\n",
        packages=packages, hardware=needs,
        timeout=_seconds(options["timeout"], ceilings.timeout) if "timeout" in options else min(DEFAULT_TIMEOUT, ceilings.timeout),
        memory=_memory(options["memory"], ceilings.memory) if "memory" in options else min(DEFAULT_MEMORY, ceilings.memory),
        tolerance=_tolerance(options["tolerance"]) if "tolerance" in options else None,
        templates=templates,
    )
