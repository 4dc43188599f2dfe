"""The kinds of error a site declares (``errorkb_kinds``), checked with its other options.

What a lookup does with them is :mod:`.triage`'s; here is each kind as declared, its rules,
and its cues compiled into one expression for the lookup index.  Nothing here imports Sphinx.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Mapping
from typing import Any

from .triage import cue_matcher

#: Longest cue, in characters, and most cues a kind may declare.
MAX_CUE = 200
MAX_CUES = 500


@dataclasses.dataclass(frozen=True)
class Kind:
    """One kind of error a paste can be told apart as, and where its triage page is: an entry of
    ``errorkb_kinds``, whose keys are these attributes (validated with the other options by
    :mod:`.settings`; :meth:`__post_init__` holds the rules on their values)."""

    __pydantic_config__ = {"extra": "forbid"}

    name: str
    title: str
    page: str  # the triage page's document name, such as docs/triage/device-memory
    cues: tuple[str, ...] = ()
    records: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)  # field -> values

    def __post_init__(self) -> None:
        from .schema import SLUG  # validation only: the lookup reads built kinds without the records' model

        if not re.match(SLUG, self.name):
            raise ValueError(f"'name': {self.name!r} is not a lower-case slug such as 'device-memory'")
        if not self.title.strip():
            raise ValueError("'title' is empty")
        page = self.page.strip().removesuffix(".md")
        if not page or page.startswith("/") or ".." in page.split("/"):
            raise ValueError(f"'page': {self.page!r} is not a page of the site, such as 'docs/triage/{self.name}'")
        if len(self.cues) > MAX_CUES or not all(c.strip() and len(c) <= MAX_CUE for c in self.cues):
            raise ValueError(f"'cues' must be at most {MAX_CUES} phrases of at most {MAX_CUE} characters")
        object.__setattr__(self, "title", self.title.strip())
        object.__setattr__(self, "page", page)
        object.__setattr__(self, "cues", tuple(c.strip() for c in self.cues))

    @functools.cached_property
    def pattern(self) -> str:
        """One expression for every cue, in Python's and JavaScript's common syntax (case ignored):
        each cue as written, at word edges where it starts or ends with a word character."""
        from .templates import escape  # building an index only: a lookup need not import templates

        if not self.cues:
            return ""
        parts = []
        for cue in sorted(self.cues, key=len, reverse=True):  # the longest of overlapping cues counts
            words = r"\s+".join(escape(word) for word in cue.split())
            head = r"(?<![A-Za-z0-9_])" if cue[0].isalnum() or cue[0] == "_" else ""
            tail = r"(?![A-Za-z0-9_])" if cue[-1].isalnum() or cue[-1] == "_" else ""
            parts.append(head + words + tail)
        return "(?:" + "|".join(parts) + ")"

    @property
    def matcher(self) -> re.Pattern[str] | None:
        return cue_matcher(self.pattern)

    def holds(self, record: Any) -> bool:
        """Whether ``record`` is one of this kind's (a record whose field takes one of the values)."""
        return any(value in wanted for field, wanted in self.records.items() for value in record.values(field))


def distinct_kinds(kinds: tuple[Kind, ...]) -> tuple[Kind, ...]:
    """``errorkb_kinds`` as a whole: each name once, and at most one kind without cues."""
    names = [k.name for k in kinds]
    for name in names:
        if names.count(name) > 1:
            raise ValueError(f"declares {name!r} twice")
    if sum(not k.cues for k in kinds) > 1:
        raise ValueError("only one kind may have no cues (the one a paste without any cue gets)")
    return kinds
