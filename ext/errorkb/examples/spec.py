"""What a snippet is: its claim, its code and its options, validated once for every entry point.

The Sphinx directive and the pytest collector both hand the raw option strings to
:func:`make_snippet`, so a snippet means the same thing on a page, in ``make doctest`` and
under pytest.  Nothing here imports Sphinx.
"""

from __future__ import annotations

import dataclasses
import re

from packaging.requirements import InvalidRequirement, Requirement

from ..config import Ceilings
from ..templates import parse_size

KINDS = {
    "reproduces": "must fail with one of this record's messages",
    "fixes": "must run cleanly (exit status 0)",
    "shows": "a doctest session whose output must match",
}
OPTIONS = ("id", "requires", "timeout", "memory", "tolerance")

#: Hardware names accepted in ``:requires:`` (everything else is a Python package).
HARDWARE = ("cuda", "gpu", "tpu", "neuron")
#: Hardware with a threshold is written ``gpu-memory>=40G`` or ``gpus>=4``.

DEFAULT_TIMEOUT = 60
DEFAULT_MEMORY = Ceilings.memory
MIN_MEMORY = 64 * 1024**2

_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_THRESHOLD = re.compile(r"^(gpu-memory|gpus)\s*>=\s*(\S+)$")
_THRESHOLD_NAME = re.compile(r"^(gpu-memory|gpus)(?![\w-])")


class SnippetError(ValueError):
    """A snippet that cannot be run as written; the message names the option at fault."""


@dataclasses.dataclass(frozen=True)
class HardwareNeed:
    """``cuda``, ``gpu``, ``tpu``, ``neuron``, or a threshold: ``gpu-memory`` bytes, ``gpus`` count."""

    name: str
    minimum: int | None = None

    def __str__(self) -> str:
        if self.minimum is None:
            return self.name
        if self.name == "gpu-memory":
            return f"gpu-memory>={self.minimum / 1024**3:g}G"
        return f"{self.name}>={self.minimum}"


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


def parse_requires(text: str) -> tuple[tuple[str, ...], tuple[HardwareNeed, ...]]:
    """Split ``jax, torch>=2.0, cuda, gpu-memory>=40G`` into packages and hardware."""
    packages: list[str] = []
    hardware: list[HardwareNeed] = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        if item in HARDWARE:
            hardware.append(HardwareNeed(item))
            continue
        m = _THRESHOLD.match(item)
        if m:
            name, value = m.groups()
            if name == "gpu-memory":
                size = parse_size(value)
                if not size:
                    raise SnippetError(f":requires: {item!r}: give the memory as a size such as 40G")
                hardware.append(HardwareNeed(name, int(size)))
            else:
                if not value.isdigit() or int(value) < 1:
                    raise SnippetError(f":requires: {item!r}: give the number of GPUs, e.g. gpus>=4")
                hardware.append(HardwareNeed(name, int(value)))
            continue
        if _THRESHOLD_NAME.match(item):
            raise SnippetError(f":requires: {item!r}: hardware thresholds are written gpu-memory>=40G or gpus>=4")
        try:
            Requirement(item)
        except InvalidRequirement:
            raise SnippetError(
                f":requires: {item!r} is neither a package (such as 'torch>=2.0') nor hardware "
                f"({', '.join(HARDWARE)}, gpu-memory>=40G, gpus>=4)"
            ) from None
        packages.append(item)
    return tuple(packages), tuple(hardware)


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
                 record_id: str, templates: tuple[str, ...] = (), ceilings: Ceilings = Ceilings()) -> Snippet:
    """Validate a snippet as written; raise :class:`SnippetError` with the first problem."""
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
    packages, hardware = parse_requires(options.get("requires", ""))
    return Snippet(
        path=path, line=line, record_id=record_id, id=id_, kind=kind, code=code.rstrip() + "\n",
        packages=packages, hardware=hardware,
        timeout=_seconds(options["timeout"], ceilings.timeout) if "timeout" in options else min(DEFAULT_TIMEOUT, ceilings.timeout),
        memory=_memory(options["memory"], ceilings.memory) if "memory" in options else min(DEFAULT_MEMORY, ceilings.memory),
        tolerance=_tolerance(options["tolerance"]) if "tolerance" in options else None,
        templates=templates,
    )
