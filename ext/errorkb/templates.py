"""Message templates: parse ``{name:type}`` placeholders and compile them to safe matchers.

A template is literal text with typed placeholders, e.g.
``Used {used:size} of {capacity:size} hbm``.  ``{{`` and ``}}`` stand for literal braces.

Each template compiles to one regular expression that runs in time linear in the line:
every placeholder is a bounded, atomic (possessive) pattern whose character class excludes
the first character of the literal that follows it, so it can never run past that literal,
and two placeholders must always be separated by literal text.  The same expression is
emitted in JavaScript syntax for the browser (see ``Template.js_source``).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from typing import Any

#: Longest line a template is matched against; longer lines are cut.
MAX_LINE = 4096

# One entry per placeholder type: (pattern for a bounded run, whether the class is a plain
# character class that can be narrowed by the next literal, short description).
# Patterns are written in the common subset of Python and JavaScript regular expressions.
_SIZE_UNITS = r"(?:[KMGTPE]i?B|[KMGTPE]|[kmgt]i?b|[KMGTPE]iB|bytes|byte|B)"
TYPES: dict[str, tuple[str, str]] = {
    "size": (
        r"[0-9]{1,20}(?:[.,][0-9]{0,6})?[ \t]?" + _SIZE_UNITS,
        "a size with its unit: 49.34G, 2.00 GiB, 512 bytes",
    ),
    "int": (r"-?[0-9][0-9,]{0,24}", "a whole number: 42, -1, 1,024"),
    "float": (r"-?[0-9]{1,20}(?:\.[0-9]{1,20})?(?:[eE][-+]?[0-9]{1,4})?", "a number: 0.9, 1e-3"),
    "hex": (r"0[xX][0-9a-fA-F]{1,32}", "a hexadecimal number: 0x7f3a"),
    "shape": (r"[\[(][0-9a-zA-Z?,x* \t]{0,256}[\])]", "a shape: [8, 1024], (32, 3, 224, 224)"),
    "dtype": (r"[A-Za-z][A-Za-z0-9_.]{0,40}", "a data type: float32, bf16, torch.float16"),
    "device": (r"[A-Za-z_/][A-Za-z0-9_:/.\-]{0,127}", "a device: cuda:0, /device:GPU:0, TPU_0"),
    "path": (r"[^\s'\"<>|]{1,1024}", "a file path: /tmp/x.pb, ~/data/train.json"),
    "identifier": (r"[A-Za-z_][A-Za-z0-9_.\-]{0,255}", "a name: jit_train_step, CUDA0"),
    "quoted": (
        r"'[^'\n]{0,512}'|\"[^\"\n]{0,512}\"|`[^`\n]{0,512}`",
        "text in quotes: 'u8[1024]{0}'",
    ),
    "text": (r"[^\n]{0,512}?", "any text up to the next literal (at most one per template)"),
}

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::([a-z]+))?\}")
#: What counts as a word, for short-listing templates by the words a line holds.
WORD = re.compile(r"[A-Za-z0-9_]+")
# Where parsing looks next: a doubled (literal) brace first, then a single one.
_BRACE = re.compile(r"\{\{|\}\}|[{}]")


class TemplateError(ValueError):
    """A template that cannot be compiled; ``column`` is 1-based."""

    def __init__(self, message: str, column: int = 1):
        super().__init__(message)
        self.column = column


@dataclasses.dataclass(frozen=True)
class Placeholder:
    name: str
    type: str


Segment = str | Placeholder


@dataclasses.dataclass(frozen=True)
class Template:
    """A compiled message template."""

    text: str
    segments: tuple[Segment, ...]
    whole_line: bool
    py_source: str
    js_source: str

    @functools.cached_property
    def regex(self) -> re.Pattern[str]:
        """The Python matcher, compiled on first use: compiling is most of a catalogue's load time."""
        return re.compile(self.py_source)

    def __getstate__(self) -> dict[str, Any]:
        """Pickle without the compiled matcher (unpickling would compile it again)."""
        return {k: v for k, v in self.__dict__.items() if k != "regex"}

    @property
    def placeholders(self) -> list[Placeholder]:
        return [s for s in self.segments if isinstance(s, Placeholder)]

    @property
    def literal_text(self) -> str:
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
        last = len(self.segments) - 1
        for pos, seg in enumerate(self.segments):
            if not isinstance(seg, str):
                continue
            open_start = pos > 0 or not self.whole_line
            open_end = pos < last or not self.whole_line
            text = seg.strip() if self.whole_line else seg
            for m in WORD.finditer(text):
                if (m.start() == 0 and open_start) or (m.end() == len(text) and open_end):
                    continue
                words.add(m.group())
        return frozenset(words)

    def search(self, line: str) -> dict[str, "Value"] | None:
        """Match ``line``; return the placeholder values, or None."""
        m = self.regex.search(line[:MAX_LINE])
        if not m:
            return None
        values = {}
        for i, ph in enumerate(self.placeholders):
            raw = m.group(f"p{i}")
            values[ph.name] = Value.parse(ph.type, raw)
        return values

    def matches(self, line: str) -> bool:
        return self.regex.search(line[:MAX_LINE]) is not None


@dataclasses.dataclass(frozen=True)
class Value:
    """A typed placeholder value pulled out of a message."""

    type: str
    text: str
    number: float | None = None  # bytes for sizes, the number for int and float

    @classmethod
    def parse(cls, type_: str, text: str) -> "Value":
        if type_ == "size":
            return cls(type_, text, parse_size(text))
        if type_ == "int":
            return cls(type_, text, float(text.replace(",", "")))
        if type_ == "float":
            return cls(type_, text, float(text))
        if type_ == "quoted":
            return cls(type_, text[1:-1])
        return cls(type_, text)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "text": self.text}
        if self.number is not None:
            out["bytes" if self.type == "size" else "value"] = (
                int(self.number) if float(self.number).is_integer() else self.number
            )
        return out


_UNIT_FACTORS = {
    "b": 1, "byte": 1, "bytes": 1,
    "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4, "p": 1024**5, "e": 1024**6,
    "kib": 1024, "mib": 1024**2, "gib": 1024**3, "tib": 1024**4, "pib": 1024**5, "eib": 1024**6,
    "kb": 1000, "mb": 1000**2, "gb": 1000**3, "tb": 1000**4, "pb": 1000**5, "eb": 1000**6,
}
_SIZE_PARTS = re.compile(r"([0-9]+(?:[.,][0-9]*)?)[ \t]?([A-Za-z]+)")


def parse_size(text: str) -> float | None:
    """Bytes in a size such as ``49.34G`` (binary, as XLA prints) or ``2.00 GB`` (decimal)."""
    m = _SIZE_PARTS.fullmatch(text.strip())
    if not m:
        return None
    factor = _UNIT_FACTORS.get(m.group(2).lower())
    if factor is None:
        return None
    return round(float(m.group(1).replace(",", ".")) * factor)


def parse(text: str) -> tuple[tuple[Segment, ...], bool]:
    """Split a template into literal strings and placeholders.

    A leading ``^`` and trailing ``$`` ask for the template to match a whole line.
    """
    if "\n" in text:
        raise TemplateError("a template must be one line", text.index("\n") + 1)
    body = text.strip()
    whole_line = body.startswith("^") and body.endswith("$") and len(body) > 1
    offset = len(text) - len(text.lstrip())
    if whole_line:
        body = body[1:-1]
        offset += 1
    segments: list[Segment] = []
    literal: list[str] = []
    i = 0
    while (brace := _BRACE.search(body, i)) is not None:
        literal.append(body[i:brace.start()])
        i = brace.end()
        if len(brace.group()) == 2:  # {{ or }}: a literal brace
            literal.append(brace.group()[0])
            continue
        if brace.group() == "}":
            raise TemplateError("a lone '}' (write '}}' for a brace)", offset + brace.start() + 1)
        m = _PLACEHOLDER.match(body, brace.start())
        if not m:
            raise TemplateError(
                "a '{' must start a placeholder such as {size:size} (write '{{' for a brace)",
                offset + brace.start() + 1,
            )
        name, type_ = m.group(1), m.group(2) or m.group(1)
        if type_ not in TYPES:
            raise TemplateError(
                f"unknown placeholder type {type_!r} (known: {', '.join(TYPES)})",
                offset + brace.start() + 1,
            )
        if segments and isinstance(segments[-1], Placeholder) and not "".join(literal):
            raise TemplateError("two placeholders must be separated by literal text", offset + brace.start() + 1)
        if "".join(literal):
            segments.append("".join(literal))
            literal = []
        segments.append(Placeholder(name, type_))
        i = m.end()
    literal.append(body[i:])
    literal = [part for part in literal if part]
    if literal:
        segments.append("".join(literal))
    placeholders = [s for s in segments if isinstance(s, Placeholder)]
    names = [p.name for p in placeholders]
    for name in names:
        if names.count(name) > 1:
            raise TemplateError(f"placeholder name {name!r} is used twice")
    if sum(p.type == "text" for p in placeholders) > 1:
        raise TemplateError("at most one {…:text} placeholder per template")
    if not any(isinstance(s, str) and s.strip() for s in segments):
        raise TemplateError("a template needs some literal text")
    return tuple(segments), whole_line


def _literal_pattern(text: str) -> str:
    """Escape literal text; any run of white space matches one or more spaces or tabs."""
    parts = re.split(r"\s+", text)
    escaped = [re.escape(p) for p in parts]
    return "[ \\t]+".join(escaped)


def compile_template(text: str) -> Template:
    """Parse ``text`` and build its Python and JavaScript matchers."""
    segments, whole_line = parse(text)
    py_parts: list[str] = []
    js_parts: list[str] = []
    index = 0
    group = 0  # JavaScript group number, for the atomic-group emulation
    for pos, seg in enumerate(segments):
        if isinstance(seg, str):
            if pos == 0:
                seg = seg.lstrip()
            if pos == len(segments) - 1:
                seg = seg.rstrip()
            lit = _literal_pattern(seg)
            py_parts.append(lit)
            js_parts.append(lit)
            continue
        following = segments[pos + 1] if pos + 1 < len(segments) else None
        pattern = _class_for(seg, following if isinstance(following, str) else None)
        if seg.type == "text":
            py_parts.append(f"(?P<p{index}>{pattern})")
            group += 1
            js_parts.append(f"({pattern})")
        else:
            # Atomic: Python's (?>...) and JavaScript's (?=(...))\N do the same thing.
            py_parts.append(f"(?P<p{index}>(?>{pattern}))")
            group += 1
            js_parts.append(f"(?=({pattern}))\\{group}")
        index += 1
    py_source = "".join(py_parts)
    js_source = "".join(js_parts)
    if whole_line:
        py_source = f"^[ \\t]*{py_source}[ \\t]*$"
        js_source = f"^[ \\t]*{js_source}[ \\t]*$"
    return Template(text, segments, whole_line, py_source, js_source)


def _class_for(ph: Placeholder, following: str | None) -> str:
    """The placeholder's pattern, narrowed so it stops at the first character of ``following``."""
    pattern = TYPES[ph.type][0]
    if not following or ph.type not in NARROWED:
        return pattern
    stop = following[:1]
    if stop.isspace():
        return pattern  # white space already ends these runs
    return NARROWED[ph.type].replace("{stop}", re.escape(stop))


#: Types whose run is one character class: the class without the stop character, which
#: replaces ``{stop}`` (escaped).
NARROWED = {
    "int": r"-?[0-9](?:(?!{stop})[0-9,]){0,24}",
    "path": r"[^\s'\"<>|{stop}]{1,1024}",
    "identifier": r"[A-Za-z_](?:(?!{stop})[A-Za-z0-9_.\-]){0,255}",
    "device": r"[A-Za-z_/](?:(?!{stop})[A-Za-z0-9_:/.\-]){0,127}",
    "dtype": r"[A-Za-z](?:(?!{stop})[A-Za-z0-9_.]){0,40}",
}


def js_patterns() -> dict[str, list[str | None]]:
    """Each type's pattern and narrowed pattern: what the browser needs to compile templates."""
    return {name: [pattern, NARROWED.get(name)] for name, (pattern, _) in TYPES.items()}
