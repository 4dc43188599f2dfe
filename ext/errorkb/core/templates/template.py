"""A compiled template: its parts, its matcher, and what every line it matches holds."""

from __future__ import annotations

import dataclasses
import functools
import re
from typing import Any

from ..values import Field, Value, values_of
from ..words import WORD
from .catch_all import refuse_catch_all
from .grammar import Placeholder, Segment, parse, placeholders
from .layout import EDGE, Layout
from .linearity import prove_linear
from .writer import write

#: Longest line a template is matched against; longer lines are cut.
MAX_LINE = 4096


@dataclasses.dataclass(frozen=True)
class Template:
    """A compiled message template."""

    text: str
    segments: tuple[Segment, ...]
    whole_line: bool
    pieces: tuple[str, ...]  # its regular expression, cut around its required literal text (see ``writer``)
    groups: tuple[int, ...]  # the capturing group of each placeholder

    @property
    def source(self) -> str:
        """The regular expression, the same in Python and JavaScript."""
        return "".join(self.pieces)

    @functools.cached_property
    def regex(self) -> re.Pattern[str]:
        """The matcher, compiled on first use: compiling is most of a catalogue's load time."""
        return re.compile(self.source)

    def __getstate__(self) -> dict[str, Any]:
        """Pickle without the compiled matcher (unpickling would compile it again)."""
        return {k: v for k, v in self.__dict__.items() if k != "regex"}

    def release(self) -> None:
        """Drop the compiled matcher (compiled again on next use): a catalogue kept for a whole
        build need not hold thousands of them once its examples are checked."""
        self.__dict__.pop("regex", None)

    @property
    def placeholders(self) -> list[Placeholder]:
        """Every placeholder, those of optional parts included, in order."""
        return placeholders(self.segments)

    @property
    def fields(self) -> tuple[Field, ...]:
        """Each placeholder's name, type and capturing group, as a match gives its values."""
        return tuple(Field(p.name, p.type, g) for p, g in zip(self.placeholders, self.groups))

    @property
    def literal_text(self) -> str:
        """The literal text that every match holds: optional parts left out."""
        return "".join(s for s in self.segments if isinstance(s, str))

    @property
    def specificity(self) -> int:
        """Count of literal, non-space characters: the more, the more specific."""
        return sum(not c.isspace() for c in self.literal_text)

    @functools.cached_property
    def whole_words(self) -> frozenset[str]:
        """Literal words that every matching line holds as whole words (case kept); kept, and
        pickled with the record cache, since every build short-lists every template by them.

        Templates match anywhere in a line, so a word at the edge of a literal run may be glued
        to the text around it (``CUDA{n:int}`` matches ``CUDA0``); only words with a non-word
        character, or the edge of a whole-line template, on both sides count.
        """
        words: set[str] = set()
        layout = Layout(self.segments)
        for i, seg in enumerate(layout.items):
            if not isinstance(seg, str) or layout.groups[i] is not None:
                continue
            open_start = layout.before[i] != {EDGE} or not self.whole_line
            open_end = layout.after[i] != {EDGE} or not self.whole_line
            text = seg.strip() if self.whole_line else seg
            for m in WORD.finditer(text):
                if (m.start() == 0 and open_start) or (m.end() == len(text) and open_end):
                    continue
                words.add(m.group())
        return frozenset(words)

    def search(self, line: str) -> dict[str, Value] | None:
        """Match ``line``; return the placeholder values (those of optional parts that the line
        holds), or None."""
        m = self.regex.search(line[:MAX_LINE])
        if not m:
            return None
        return values_of(self.fields, m)

    def matches(self, line: str) -> bool:
        return self.regex.search(line[:MAX_LINE]) is not None


def build(text: str, segments: tuple[Segment, ...], whole_line: bool) -> Template:
    """The template with its matcher, unchecked (see :func:`compile_template`)."""
    return Template(text, segments, whole_line, *write(segments, whole_line))


def compile_template(text: str) -> Template:
    """Parse ``text``, prove its matcher linear, and write it.

    Raises :class:`~.grammar.TemplateError` for a template that cannot be parsed, could make
    the search slower than linear, or would match almost anything.
    """
    segments, whole_line = parse(text)
    prove_linear(segments, whole_line)
    refuse_catch_all(segments, whole_line)
    return build(text, segments, whole_line)
