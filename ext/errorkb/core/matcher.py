"""Which templates a line may hold, and where they match: the one short-lister and line matcher
of the lookup, the cross-record example check and the snippet judge.

Each template is filed under the rarest of its whole literal words (:func:`keys_for`: lowest
document frequency over the templates filed together), or, with none, found by its least likely
literal run.  A line is tried only when it holds the template's key and that run; where the
line alone gives no match, so is the line joined with one space to the line before or after,
for a match that crosses the join (a wrapped message).  Matches rank by :data:`RANK_KEY`.
Nothing here imports Sphinx.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Callable, Container, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .templates import Template

# Bytes of UTF-8 text to its words: ASCII letters lower case, digits and '_' kept, line ends
# kept, every other byte a space (a non-ASCII character ends a word, as ``words.WORD`` says).
_TO_WORDS = bytes(
    c + 32 if 65 <= c <= 90 else c if (48 <= c <= 57 or 97 <= c <= 122 or c in (95, 10)) else 32
    for c in range(256)
)


def whole_words(template: Template) -> tuple[str, ...]:
    """The template's whole words (see ``Template.whole_words``) of 3+ characters, lower case."""
    return tuple(sorted({w.lower() for w in template.whole_words if len(w) >= 3}))


def rarest_run(template: Template) -> str:
    """The least likely in a log of the literal runs without blanks that every matching line
    holds: the longest, a character other than a lower-case letter counting thrice."""
    runs = {run for s in template.segments if isinstance(s, str) for run in s.split()}
    return min(runs, key=lambda r: (-sum(1 if "a" <= c <= "z" else 3 for c in r), r))


def keys_for(words: Sequence[Sequence[str]]) -> list[str | None]:
    """Each template's key, given each one's whole words: the rarest among the templates, the
    longest among equals; None for a template without whole words."""
    df: dict[str, int] = {}
    for found in words:
        for w in found:
            df[w] = df.get(w, 0) + 1
    return [min(found, key=lambda w: (df[w], -len(w), w)) if found else None for found in words]


#: Which of two matches ranks first: the more literal characters, then the better standing in
#: its line, then the earlier line and position, then the template's place.  Each a match's
#: attribute and its sign: the smaller key ranks first.
RANK_KEY = (("specificity", -1), ("standing", -1), ("line", 1), ("start", 1), ("order", 1))


class Candidate:
    """A template as the short-lister and the line matcher know it; the lookup index ships these
    fields as they are: ``pieces``, its regular expression cut around its required literal text
    (``Template.pieces``); ``key``, the rarest of its whole words, lower case (None: found by
    ``run`` alone); ``run``, its least likely literal run (:func:`rarest_run`), which every line
    it matches holds; and its ``specificity``."""

    def __init__(self, pieces: Sequence[str], key: str | None, run: str, specificity: int):
        self.pieces, self.key, self.run, self.specificity = pieces, key, run, specificity

    @classmethod
    def of(cls, template: Template, key: str | None) -> Candidate:
        return cls(template.pieces, key, rarest_run(template), template.specificity)

    @functools.cached_property
    def regex(self) -> re.Pattern[str]:
        """Compiled on first use: a search compiles only what it short-lists."""
        return re.compile("".join(self.pieces))


class Filed(Sequence[Candidate]):
    """Templates filed by their keys, once, to be searched for in many texts (:func:`find`)."""

    def __init__(self, templates: Sequence[Template]):
        keys = keys_for([whole_words(t) for t in templates])
        self.candidates = [Candidate.of(t, key) for t, key in zip(templates, keys)]
        self.by_key: dict[bytes, list[int]] = {}
        for k, c in enumerate(self.candidates):
            if c.key is not None:
                self.by_key.setdefault(c.key.encode(), []).append(k)
        self.keys = frozenset(self.by_key)
        self.unkeyed = [k for k, c in enumerate(self.candidates) if c.key is None]

    def __getitem__(self, k: int) -> Candidate:  # type: ignore[override]
        return self.candidates[k]

    def __len__(self) -> int:
        return len(self.candidates)


class LineWords:
    """The words of each line (lower case, as bytes), worked out in one pass over the text."""

    def __init__(self, lines: list[str]):
        encoded = "\n".join(lines).encode("utf-8", "surrogatepass").translate(_TO_WORDS)
        self.split = encoded.split(b"\n")

    def holding(self, keys: frozenset[bytes]) -> dict[bytes, list[int]]:
        """The lines that hold each of ``keys`` that the text holds."""
        found: dict[bytes, list[int]] = {}
        isdisjoint, intersection = keys.isdisjoint, keys.intersection
        for i, line in enumerate(self.split):
            if line and not isdisjoint(words := line.split()):
                for key in intersection(words):
                    if key in found:
                        found[key].append(i)
                    else:
                        found[key] = [i]
        return found


Found = tuple[int, int, str, re.Match[str]]  # first line, how many lines (1 or 2), the text searched, the match


class LineMatcher:
    """Runs templates on the lines that short-list them; a text is searched once per template.

    ``scan_from``: the short-listed lines beyond which a template's lines are kept only near a
    copy of its run, found in one scan of the whole text.  ``among``: the lines that scan reads
    (all by default).
    """

    def __init__(self, lines: list[str], scan_from: int = 1000, among: Container[int] | None = None):
        self.lines, self.scan_from, self.among = lines, scan_from, among
        self.searched: dict[tuple[int, str], list[re.Match[str]]] = {}
        self.holding_run: dict[str, list[int]] = {}

    @functools.cached_property
    def flat(self) -> tuple[str, list[int]]:
        """The lines scanned as one text (the others left empty), and where each line starts in it."""
        lines = self.lines if self.among is None else [t if i in self.among else "" for i, t in enumerate(self.lines)]
        return "\n".join(lines), list(itertools.accumulate((len(line) + 1 for line in lines), initial=0))

    def lines_holding(self, run: str) -> list[int]:
        """The lines that contain ``run`` (once per copy), found in one scan of the text."""
        if run not in self.holding_run:
            flat, starts = self.flat
            found = self.holding_run[run] = []
            at = flat.find(run)
            while at >= 0:
                found.append(bisect.bisect_right(starts, at) - 1)
                at = flat.find(run, at + 1)
        return self.holding_run[run]

    def search(self, candidate: Candidate, text: str) -> list[re.Match[str]]:
        found = self.searched.get((id(candidate), text))
        if found is None:
            found = self.searched[(id(candidate), text)] = list(candidate.regex.finditer(text))
        return found

    def hits(self, candidate: Candidate, short_listed: list[int]) -> list[Found]:
        """Every occurrence of ``candidate`` in a short-listed line; where the line alone gives
        none, in it joined to the line before or after, crossing the join."""
        lines, run = self.lines, candidate.run
        if len(short_listed) > self.scan_from:  # keep the lines near a copy of its run
            near = {j + step for j in self.lines_holding(run) for step in (-1, 0, 1)}
            short_listed = [i for i in short_listed if i in near]
        hits: list[Found] = []
        tried: set[int] = set()  # first lines of the pairs tried
        for i in dict.fromkeys(short_listed):
            text = lines[i]
            if run in text:
                found = self.search(candidate, text)
                if found:
                    hits += [(i, 1, text, m) for m in found]
                    continue
            for first in (i - 1, i):
                other = i + 1 if first == i else first
                if first < 0 or other >= len(lines) or first in tried or not lines[other].strip():
                    continue
                if run not in text and run not in lines[other]:
                    continue
                tried.add(first)
                joined, join = lines[first] + " " + lines[first + 1], len(lines[first])
                hits += [(first, 2, joined, m) for m in self.search(candidate, joined) if m.start() < join < m.end() - 1]
        return hits


def find(filed: Filed, lines: list[str], among: Callable[[int], bool] | None = None) -> list[tuple[int, Found]]:
    """Every occurrence in ``lines`` of every filed template (or of those ``among`` keeps),
    short-listed as the lookup does it: (the template's index, occurrence)."""
    matcher = LineMatcher(lines)
    out = []
    for key, found in LineWords(lines).holding(filed.keys).items():
        for k in filed.by_key[key]:
            if among is None or among(k):
                out += [(k, hit) for hit in matcher.hits(filed[k], found)]
    for k in filed.unkeyed:
        if among is None or among(k):
            out += [(k, hit) for hit in matcher.hits(filed[k], matcher.lines_holding(filed[k].run))]
    return sorted(out, key=lambda found: (found[1][0], found[1][3].start(), found[0]))
