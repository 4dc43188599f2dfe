"""The grammar of a template: literal text, ``{name:type}`` placeholders, ``{?...}`` optional parts.

``{{`` and ``}}`` stand for literal braces.  ``{`` followed by ``?`` cannot start a placeholder,
so optional parts leave the meaning of every template without them as it is (square brackets
stay literal); inside one, a lone ``}`` closes it.  A leading ``^`` and trailing ``$`` ask for
the template to match a whole line.
"""

from __future__ import annotations

import dataclasses
import re

from ..positioned import PositionedError
from .placeholders import TYPES

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::([a-z]+))?\}")
# Where parsing looks next: a doubled (literal) brace first, then a single one.
_BRACE = re.compile(r"\{\{|\}\}|[{}]")


class TemplateError(PositionedError):
    """A template that cannot be compiled; ``column`` is 1-based."""


@dataclasses.dataclass(frozen=True)
class Placeholder:
    name: str
    type: str
    column: int = dataclasses.field(default=1, compare=False)  # of its "{" in the template


@dataclasses.dataclass(frozen=True)
class OptionalPart:
    """A part of a message that only some releases or settings print, written ``{?...}``."""

    segments: tuple[str | Placeholder, ...]
    column: int = dataclasses.field(default=1, compare=False)  # of its "{?" in the template


Segment = str | Placeholder | OptionalPart
Item = str | Placeholder  # a literal or a placeholder, required or in an optional part


def placeholders(segments: tuple[Segment, ...]) -> list[Placeholder]:
    """Every placeholder, those of optional parts included, in order."""
    out: list[Placeholder] = []
    for seg in segments:
        items = seg.segments if isinstance(seg, OptionalPart) else (seg,)
        out += [item for item in items if isinstance(item, Placeholder)]
    return out


class _Parser:
    """One pass over a template's body, brace by brace."""

    def __init__(self, body: str, offset: int):
        self.body, self.offset = body, offset  # offset: columns before the body
        self.segments: list[Segment] = []
        self.inner: list[str | Placeholder] | None = None  # the open optional part's segments
        self.opened = 0  # column of the open optional part
        self.literal: list[str] = []

    def parse(self) -> tuple[Segment, ...]:
        at = 0
        while (brace := _BRACE.search(self.body, at)) is not None:
            self.literal.append(self.body[at:brace.start()])
            at = self.brace(brace)
        self.literal.append(self.body[at:])
        if self.inner is not None:
            raise TemplateError("an optional part '{?' is not closed with '}'", self.opened)
        self.flush()
        return tuple(self.segments)

    def brace(self, brace: re.Match[str]) -> int:
        """Read what starts at ``brace``; returns where to go on."""
        if len(brace.group()) == 2:  # {{ or }}: a literal brace
            self.literal.append(brace.group()[0])
            return brace.end()
        column = self.offset + brace.start() + 1
        if brace.group() == "}":
            self.close(column)
            return brace.end()
        if self.body.startswith("?", brace.end()):
            self.open(column)
            return brace.end() + 1
        return self.placeholder(brace.start(), column)

    def flush(self) -> None:
        text = "".join(self.literal)
        if text:
            (self.segments if self.inner is None else self.inner).append(text)
        self.literal.clear()

    def open(self, column: int) -> None:
        if self.inner is not None:
            raise TemplateError("an optional part cannot hold another one", column)
        self.flush()
        self.inner, self.opened = [], column

    def close(self, column: int) -> None:
        if self.inner is None:
            raise TemplateError("a lone '}' (write '}}' for a brace)", column)
        self.flush()
        if not any(isinstance(s, str) and s.strip() for s in self.inner):
            raise TemplateError("an optional part needs literal text", self.opened)
        self.segments.append(OptionalPart(tuple(self.inner), self.opened))
        self.inner = None

    def placeholder(self, start: int, column: int) -> int:
        m = _PLACEHOLDER.match(self.body, start)
        if not m:
            raise TemplateError("a '{' must start a placeholder such as {size:size} or an optional part {?...} "
                                "(write '{{' for a brace)", column)
        name, type_ = m.group(1), m.group(2) or m.group(1)
        if type_ not in TYPES:
            raise TemplateError(f"unknown placeholder type {type_!r} (known: {', '.join(TYPES)})", column)
        target = self.segments if self.inner is None else self.inner
        if target and isinstance(target[-1], Placeholder) and not "".join(self.literal):
            raise TemplateError("two placeholders must be separated by literal text", column)
        self.flush()
        target.append(Placeholder(name, type_, column))
        return m.end()


def parse(text: str) -> tuple[tuple[Segment, ...], bool]:
    """Split a template into literal strings, placeholders and optional parts; and whether it
    matches a whole line (``^...$``)."""
    if "\n" in text:
        raise TemplateError("a template must be one line", text.index("\n") + 1)
    body = text.strip()
    whole_line = body.startswith("^") and body.endswith("$") and len(body) > 1
    offset = len(text) - len(text.lstrip())
    if whole_line:
        body, offset = body[1:-1], offset + 1
    segments = _Parser(body, offset).parse()
    seen: set[str] = set()
    for ph in placeholders(segments):
        if ph.name in seen:
            raise TemplateError(f"placeholder name {ph.name!r} is used twice", ph.column)
        seen.add(ph.name)
    if not any(isinstance(s, str) and s.strip() for s in segments):
        raise TemplateError("a template needs some literal text")
    return segments, whole_line
