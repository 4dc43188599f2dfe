"""What a paste that matches no record looks like: the site's kinds of error, told by their cue words.

A site declares its kinds in ``errorkb_kinds``, each with a triage page (what to check first,
and how to find the exact message in a log), the phrases that give it away and the records
that belong to it::

    errorkb_kinds = [
        {"name": "device-memory", "title": "Device memory ran out", "page": "docs/triage/device-memory",
         "cues": ["CUDA out of memory", "OOM when allocating"], "records": {"category": ["device-memory"]}},
        {"name": "not-memory", "title": "Not a memory error", "page": "docs/triage/not-memory",
         "records": {"category": ["collective-communication"]}},
    ]

When nothing matches exactly, the paste gets the kind whose cues it holds the most of (each
phrase counted once, case ignored, at word edges; the first declared wins a tie), or else the
kind declared without cues, and the closest records are taken from that kind's records only.
The browser twin is ``errorkb-lookup-core.js`` (``classify``), which reads each kind's pattern
from the lookup index.  Nothing here imports Sphinx.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, TypeVar

from .templates import escape

#: Longest cue, in characters, and most cues a kind may declare.
MAX_CUE = 200
MAX_CUES = 500


@dataclasses.dataclass(frozen=True)
class Kind:
    """One kind of error a paste can be told apart as, and where its triage page is."""

    name: str
    title: str
    page: str  # the triage page's document name, such as docs/triage/device-memory
    cues: tuple[str, ...] = ()
    records: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)  # field -> values

    @functools.cached_property
    def pattern(self) -> str:
        """One expression for every cue, in Python's and JavaScript's common syntax (case ignored):
        each cue as written, at word edges where it starts or ends with a word character."""
        if not self.cues:
            return ""
        parts = []
        for cue in sorted(self.cues, key=len, reverse=True):  # the longest of overlapping cues counts
            words = r"\s+".join(escape(word) for word in cue.split())
            head = r"(?<![A-Za-z0-9_])" if cue[0].isalnum() or cue[0] == "_" else ""
            tail = r"(?![A-Za-z0-9_])" if cue[-1].isalnum() or cue[-1] == "_" else ""
            parts.append(head + words + tail)
        return "(?:" + "|".join(parts) + ")"

    @functools.cached_property
    def matcher(self) -> re.Pattern[str] | None:
        return re.compile(self.pattern, re.IGNORECASE) if self.cues else None

    def holds(self, record: Any) -> bool:
        """Whether ``record`` is one of this kind's (a record whose field takes one of the values)."""
        return any(value in wanted for field, wanted in self.records.items() for value in record.values(field))


class Told(Protocol):
    """A kind as the lookup holds it: its compiled cues, or None for the kind without any."""

    @property
    def matcher(self) -> re.Pattern[str] | None: ...


K = TypeVar("K", bound=Told)


def cue_count(kind: Told, text: str) -> int:
    """How many of ``kind``'s cues ``text`` holds, each counted once."""
    if kind.matcher is None:
        return 0
    return len({" ".join(m.group().lower().split()) for m in kind.matcher.finditer(text)})


def classify(kinds: Sequence[K], text: str) -> K | None:
    """The kind ``text`` looks like most; the kind without cues when it holds none; else None."""
    best, most = None, 0
    for kind in kinds:
        count = cue_count(kind, text)
        if count > most:
            best, most = kind, count
    return best or next((kind for kind in kinds if kind.matcher is None), None)


def kinds_from(value: Any, fields: Sequence[str] = ()) -> tuple[Kind, ...]:
    """The kinds of ``errorkb_kinds``; ValueError names the entry and what is wrong.  ``fields`` are
    the names a kind's ``records`` may filter on (the source and the site's fields)."""
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise ValueError("errorkb_kinds must be a list of kinds (mappings with name, title, page, cues, records)")
    kinds = [_kind(i, entry, fields) for i, entry in enumerate(value)]
    names = [k.name for k in kinds]
    for name in names:
        if names.count(name) > 1:
            raise ValueError(f"errorkb_kinds declares {name!r} twice")
    if sum(not k.cues for k in kinds) > 1:
        raise ValueError("errorkb_kinds: only one kind may have no cues (the one a paste without any cue gets)")
    return tuple(kinds)


def _kind(i: int, entry: Any, fields: Sequence[str]) -> Kind:
    from .schema import SLUG  # validation only: the lookup reads built kinds without the records' model

    where = f"errorkb_kinds[{i}]"
    if not isinstance(entry, Mapping):
        raise ValueError(f"{where} must be a mapping such as {{'name': 'device-memory', 'title': ..., 'page': ...}}")
    unknown = sorted(set(entry) - {"name", "title", "page", "cues", "records"})
    if unknown:
        raise ValueError(f"{where} has unknown key(s) {', '.join(map(repr, unknown))} (known: name, title, page, "
                         "cues, records)")
    name, title, page = entry.get("name"), entry.get("title"), entry.get("page")
    if not isinstance(name, str) or not re.match(SLUG, name):
        raise ValueError(f"{where}: 'name' must be a lower-case slug such as 'device-memory'")
    where = f"errorkb_kinds[{i}] ({name})"
    if not isinstance(title, str) or not title.strip():
        raise ValueError(f"{where}: 'title' must be a non-empty string")
    if not isinstance(page, str) or not page.strip() or page.startswith("/") or ".." in page.split("/"):
        raise ValueError(f"{where}: 'page' must be a page of the site, such as 'docs/triage/{name}'")
    cues = entry.get("cues", [])
    if not isinstance(cues, Sequence) or isinstance(cues, str) or len(cues) > MAX_CUES or not all(
            isinstance(c, str) and c.strip() and len(c) <= MAX_CUE for c in cues):
        raise ValueError(f"{where}: 'cues' must be a list of at most {MAX_CUES} phrases of at most {MAX_CUE} "
                         "characters")
    records = entry.get("records", {})
    if not isinstance(records, Mapping) or not all(
            isinstance(k, str) and isinstance(v, Sequence) and not isinstance(v, str) and all(isinstance(x, str) for x in v)
            for k, v in records.items()):
        raise ValueError(f"{where}: 'records' must map a field to the values of the kind's records, "
                         "such as {'category': ['device-memory']}")
    for field in records:
        if fields and field not in fields:
            raise ValueError(f"{where}: 'records' names the field {field!r}; the fields are {', '.join(fields)}")
    return Kind(name, title.strip(), page.strip().removesuffix(".md"), tuple(c.strip() for c in cues),
                {k: tuple(v) for k, v in records.items()})
