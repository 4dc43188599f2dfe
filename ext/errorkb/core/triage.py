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
The kinds are declared and checked in :mod:`.kinds`.  The browser twin is
``errorkb-lookup-core.js`` (``classify``), which reads each kind's pattern from the lookup
index.  Nothing here imports Sphinx.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Protocol, TypeVar


@functools.cache
def cue_matcher(pattern: str) -> re.Pattern[str] | None:
    """A kind's cues as one expression (``Kind.pattern``) compiled, case ignored, once; None for
    the kind without cues."""
    return re.compile(pattern, re.IGNORECASE) if pattern else None


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
