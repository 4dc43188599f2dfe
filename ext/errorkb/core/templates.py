"""Message templates: parse ``{name:type}`` placeholders and compile them to matchers proven linear.

A template is literal text with typed placeholders, e.g.
``Used {used:size} of {capacity:size} hbm``.  ``{{`` and ``}}`` stand for literal braces.
``{?...}`` is an optional part, for what only some releases or settings print:
``is free.{? Process {pid:int} has {other:size} memory in use.}`` matches with or without the
sentence, and gives ``pid`` and ``other`` only when the line holds it.  ``{`` followed by ``?``
cannot start a placeholder, so optional parts leave the meaning of every template without them
as it is (square brackets stay literal); inside one, a lone ``}`` closes it.

Each template compiles to one regular expression, ``L0 P1 L1 ... Pk Lk``: literal runs ``Li``
(blanks match any run of spaces and tabs) and placeholders ``Pi``, some of them inside optional
groups.  Every placeholder is atomic (Python's ``(?>...)``, JavaScript's ``(?=(...))\\N``): from a
given position it yields one value or none, and is never re-entered to try a shorter one.  So
is every optional part: it is taken whenever it matches where it stands, and never given back
to try the line without it.  A ``text`` placeholder reads up to the first place where a literal
that can follow it, or another copy of the template's first literal, begins.  The same
expression is emitted in JavaScript syntax for the browser (see ``Template.js_source``).

Why the search is linear in the length of a line
-------------------------------------------------

A search tries the expression at every position of the line.  With atomic placeholders and
optional parts the only choices left are how many blanks a literal's blank run takes, and
giving blanks back only lets the next placeholder start on a blank, where every type but
``text`` fails at once (and ``text`` is told not to start on one).  So an attempt walks the
elements once, each optional part being tried once, and its cost is that of the literals plus
the length of the runs its placeholders read.  A run of a value of at most ``SHORT``
characters (sizes, numbers, hex numbers, data types) costs a bounded amount wherever it starts.
:func:`compile_template` accepts a template only when the longer runs cannot pile up on the
same stretch of a line.  The literals *before* and *after* a placeholder are every literal that
can stand there, with the optional parts between them taken or skipped (:class:`Layout`):

1. *It starts with literal text that is always printed* (or matches a whole line, ``^...$``,
   and so is tried once): a leading placeholder would run from every position of a line.
2. *Each longer placeholder stops before the next copy of each literal that can come before
   it*: either that literal holds a character the placeholder's values cannot contain (its
   first character may not be a value's first either, since a copy can begin right where the
   run does), or the values are delimited (``shape``, ``quoted`` and ``hex`` begin with a
   bracket, a quote or ``0x`` that cannot occur again inside them).  Runs that start after two
   copies of the literal at least its length apart are then disjoint, so each character of a
   line is read by at most as many runs as the literals before the placeholder have
   characters, and each copy of a literal is reached by a bounded number of attempts.
   ``text`` stops before any copy of the template's first literal instead: the runs that
   overlap one of its runs all belong to attempts that started before it and still span it,
   and by the same count only a bounded number of attempts span a given character.
3. *Two placeholders are never adjacent*, and *no blank run follows another*, whichever
   optional parts are taken: a second blank run, or a second placeholder, right after the
   first could share its characters in as many ways as the run is long.
4. *Optional parts do not nest*: an attempt tries each at most once, wherever the matcher is.

Rules 1 to 4 bound the work at ``(length of the line) x (a constant of the template)``, with no
factor from the long placeholders' length limits (512 characters of ``text``, 1024 of a path);
``tests/test_templates.py`` checks the growth on adversarial lines.  And

5. *No placeholder can swallow the first character of a literal after it* (``{n:size}B``): its
   atomic value would run on into that literal, which could then never match.

Rule 5 keeps matching predictable.  A template that would match almost anything is refused
too: fewer than ``MIN_LITERAL`` literal characters outside optional parts (a whole line
without placeholders aside), or only words that are common in any log (:data:`COMMON_WORDS`).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
from typing import Any

#: Longest line a template is matched against; longer lines are cut.
MAX_LINE = 4096
#: Fewest literal, non-blank characters of a template that may match inside a line.
MIN_LITERAL = 8

# One entry per placeholder type: (pattern, short description).  Patterns are written in the
# common subset of Python's and JavaScript's (``u`` flag) regular expressions.
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
    "path": (r"""[^\s'"<>|]{1,1024}""", "a file path: /tmp/x.pb, ~/data/train.json"),
    "identifier": (r"[A-Za-z_][A-Za-z0-9_.\-]{0,255}", "a name: jit_train_step, CUDA0"),
    "quoted": (
        r"""'[^'\n]{0,512}'|"[^"\n]{0,512}"|`[^`\n]{0,512}`""",
        "text in quotes: 'u8[1024]{0}'",
    ),
    "text": (
        r"(?:(?!{stops})[^\n]){0,512}",
        "any text up to the literal after it (at most one per template, never last)",
    ),
}

#: Types whose run is one character class: the pattern that stops at the first character of
#: the literal after it, ``{stop}`` escaped as a literal, ``{stop_class}`` inside a class.
NARROWED = {
    "int": r"-?[0-9](?:(?!{stop})[0-9,]){0,24}",
    "path": r"""[^\s'"<>|{stop_class}]{1,1024}""",
    "identifier": r"[A-Za-z_](?:(?!{stop})[A-Za-z0-9_.\-]){0,255}",
    "device": r"[A-Za-z_/](?:(?!{stop})[A-Za-z0-9_:/.\-]){0,127}",
    "dtype": r"[A-Za-z](?:(?!{stop})[A-Za-z0-9_.]){0,40}",
}


@dataclasses.dataclass(frozen=True)
class _Run:
    """What the linearity proof knows of a type's values (Python character classes)."""

    longest: int  # characters in the longest value
    first: str  # a value's first character
    rest: str  # its other characters
    tail: str  # characters that can extend a whole value into a longer one ("" for none)
    delimited: bool = False  # a value cannot start inside another one, but on its last character
    narrows_first: bool = False  # the stop character is taken out of ``first`` too (NARROWED)


_RUNS = {
    "size": _Run(33, "[0-9]", r"[0-9.,\t KMGTPEiBkmgtbyes]", "[iBbytes]"),
    "int": _Run(26, "[-0-9]", "[0-9,]", "[0-9,]"),
    "float": _Run(48, "[-0-9]", "[-+0-9.eE]", "[0-9.eE]"),
    "hex": _Run(34, "0", "[0-9a-fA-FxX]", "[0-9a-fA-F]", delimited=True),
    "shape": _Run(258, r"[\[(]", r"[\])0-9a-zA-Z?,* \t]", "", delimited=True),
    "dtype": _Run(41, "[A-Za-z]", "[A-Za-z0-9_.]", "[A-Za-z0-9_.]"),
    "device": _Run(128, "[A-Za-z_/]", r"[A-Za-z0-9_:/.\-]", r"[A-Za-z0-9_:/.\-]"),
    "path": _Run(1024, r"""[^\s'"<>|]""", r"""[^\s'"<>|]""", r"""[^\s'"<>|]""", narrows_first=True),
    "identifier": _Run(256, "[A-Za-z_]", r"[A-Za-z0-9_.\-]", r"[A-Za-z0-9_.\-]"),
    "quoted": _Run(514, """['"`]""", r"[^\n]", "", delimited=True),
}
#: Values of at most this many characters cost a bounded amount wherever they start.
SHORT = 64

#: Words that say nothing about which error a line holds: a template made only of these (and of
#: single characters) would claim countless unrelated lines.
COMMON_WORDS = frozenset("""
    an and are as at be been but by can cannot could did do does for from had has have if in
    into is it its no not of ok on or than that the then there this to was we were when which
    while will with would alloc allocate allocated allocating allocation enough error errors
    exception exceeded exceeds fail failed failure fatal insufficient memory out unable warning
""".split())

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::([a-z]+))?\}")
#: What counts as a word, for short-listing templates by the words a line holds.
WORD = re.compile(r"[A-Za-z0-9_]+")
# Where parsing looks next: a doubled (literal) brace first, then a single one.
_BRACE = re.compile(r"\{\{|\}\}|[{}]")
# Characters with a meaning in a regular expression outside a class, escaped in literals; the
# set is the same in Python and in JavaScript with the u flag (which refuses other escapes).
_SYNTAX = frozenset("\\^$.|?*+()[]{}")
_BLANKS = "[ \\t]+"


class PositionedError(ValueError):
    """A problem at a place in a line of text; ``column`` is 1-based."""

    def __init__(self, message: str, column: int = 1):
        super().__init__(message)
        self.column = column


class TemplateError(PositionedError):
    """A template that cannot be compiled; ``column`` is 1-based."""


@dataclasses.dataclass(frozen=True)
class Placeholder:
    name: str
    type: str
    column: int = dataclasses.field(default=1, compare=False)  # of its "{" in the template


@dataclasses.dataclass(frozen=True)
class Optional:
    """A part of a message that only some releases or settings print, written ``{?...}``."""

    segments: tuple[str | Placeholder, ...]
    column: int = dataclasses.field(default=1, compare=False)  # of its "{?" in the template


Segment = str | Placeholder | Optional
Item = str | Placeholder  # a literal or a placeholder, required or in an optional part


def flatten(segments: tuple[Segment, ...]) -> list[tuple[Item, int | None]]:
    """Each literal and placeholder, in order, with the position among ``segments`` of the
    optional part that holds it (None for a required one)."""
    out: list[tuple[Item, int | None]] = []
    for pos, seg in enumerate(segments):
        if isinstance(seg, Optional):
            out += [(item, pos) for item in seg.segments]
        else:
            out.append((seg, None))
    return out


class Layout:
    """What may come before and after each literal and placeholder of a template, optional
    parts taken or skipped: the neighbours that the proof and the matchers look at."""

    def __init__(self, segments: tuple[Segment, ...]):
        flat = flatten(segments)
        self.items = [item for item, _ in flat]
        self.groups = [group for _, group in flat]
        n = len(self.items)
        self.after = [self._reach(i + 1, 1) for i in range(n)]
        self.before = [self._reach(i - 1, -1) for i in range(n)]
        self.texts = [self._trimmed(i) for i in range(n)]

    def _reach(self, j: int, step: int) -> frozenset[int | None]:
        """The items that can come first from ``j`` on (``step`` 1) or last up to ``j`` (-1);
        None for the end (or the start) of the template."""
        out: set[int | None] = set()
        n = len(self.items)
        while 0 <= j < n:
            out.add(j)
            group = self.groups[j]
            if group is None or (0 <= j - step < n and self.groups[j - step] == group):
                return frozenset(out)  # required, or inside an optional part
            while 0 <= j < n and self.groups[j] == group:
                j += step
        out.add(None)
        return frozenset(out)

    def _trimmed(self, i: int) -> str:
        """Literal ``i`` as it is matched: the template's outer blanks are dropped."""
        item = self.items[i]
        if not isinstance(item, str):
            return ""
        if i == 0:
            item = item.lstrip()
        if self.after[i] == {None}:
            item = item.rstrip()
        return item

    def following(self, i: int) -> list[str]:
        """The literals that can come right after item ``i``."""
        return [self.texts[j] for j in sorted(self.after[i] - {None})]  # type: ignore[operator]


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
        """Every placeholder, those of optional parts included, in order."""
        return [s for s, _ in flatten(self.segments) if isinstance(s, Placeholder)]

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
            open_start = layout.before[i] != {None} or not self.whole_line
            open_end = layout.after[i] != {None} or not self.whole_line
            text = seg.strip() if self.whole_line else seg
            for m in WORD.finditer(text):
                if (m.start() == 0 and open_start) or (m.end() == len(text) and open_end):
                    continue
                words.add(m.group())
        return frozenset(words)

    def search(self, line: str) -> dict[str, "Value"] | None:
        """Match ``line``; return the placeholder values (those of optional parts that the line
        holds), or None."""
        m = self.regex.search(line[:MAX_LINE])
        if not m:
            return None
        return values_of(self, m)

    def matches(self, line: str) -> bool:
        return self.regex.search(line[:MAX_LINE]) is not None


def values_of(template: Template, m: re.Match[str]) -> dict[str, "Value"]:
    """The values of a match of ``template``'s matcher; a placeholder of an optional part that
    the line does not hold has none."""
    values = {}
    for i, ph in enumerate(template.placeholders):
        raw = m.group(f"p{i}")
        if raw is not None:
            values[ph.name] = Value.parse(ph.type, raw)
    return values


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
        """``{"type", "text"}`` and the number as ``bytes`` (sizes) or ``value``: an integer
        below 2**53, else a float; ``null`` for a number out of range (``1e999``), whose
        ``text`` keeps what was written."""
        out: dict[str, Any] = {"type": self.type, "text": self.text}
        if self.number is not None:
            out["bytes" if self.type == "size" else "value"] = json_number(self.number)
        return out


def json_number(x: float) -> float | int | None:
    """``x`` as JSON and JavaScript's ``JSON.stringify`` write it: integers exact up to 2**53,
    other numbers as floats, infinities as null."""
    if x != x or x in (float("inf"), float("-inf")):
        return None
    if float(x).is_integer() and abs(x) < 2**53:
        return int(x)
    return float(x)


UNIT_FACTORS = {
    "b": 1, "byte": 1, "bytes": 1,
    "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4, "p": 1024**5, "e": 1024**6,
    "kib": 1024, "mib": 1024**2, "gib": 1024**3, "tib": 1024**4, "pib": 1024**5, "eib": 1024**6,
    "kb": 1000, "mb": 1000**2, "gb": 1000**3, "tb": 1000**4, "pb": 1000**5, "eb": 1000**6,
}
SIZE_PARTS = re.compile(r"([0-9]+(?:[.,][0-9]*)?)[ \t]?([A-Za-z]+)")


def parse_size(text: str) -> float | None:
    """Bytes in a size such as ``49.34G`` (binary, as XLA prints) or ``2.00 GB`` (decimal)."""
    m = SIZE_PARTS.fullmatch(text.strip())
    if not m:
        return None
    factor = UNIT_FACTORS.get(m.group(2).lower())
    size = float(m.group(1).replace(",", ".")) * factor if factor is not None else math.inf
    return round(size) if math.isfinite(size) else None


def parse(text: str) -> tuple[tuple[Segment, ...], bool]:
    """Split a template into literal strings, placeholders and optional parts.

    A leading ``^`` and trailing ``$`` ask for the template to match a whole line.  ``{?...}``
    is an optional part, taken whenever the line holds it; a lone ``}`` closes it.
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
    inner: list[str | Placeholder] | None = None  # the open optional part's segments
    opened = 0  # column of the open optional part
    literal: list[str] = []

    def flush() -> None:
        if "".join(literal):
            (segments if inner is None else inner).append("".join(literal))
        literal.clear()

    i = 0
    while (brace := _BRACE.search(body, i)) is not None:
        literal.append(body[i:brace.start()])
        i = brace.end()
        if len(brace.group()) == 2:  # {{ or }}: a literal brace
            literal.append(brace.group()[0])
            continue
        column = offset + brace.start() + 1
        if brace.group() == "}":
            if inner is None:
                raise TemplateError("a lone '}' (write '}}' for a brace)", column)
            flush()
            if not any(isinstance(s, str) and s.strip() for s in inner):
                raise TemplateError("an optional part needs literal text", opened)
            segments.append(Optional(tuple(inner), opened))
            inner = None
            continue
        if body.startswith("?", i):
            if inner is not None:
                raise TemplateError("an optional part cannot hold another one", column)
            flush()
            inner, opened = [], column
            i += 1
            continue
        m = _PLACEHOLDER.match(body, brace.start())
        if not m:
            raise TemplateError("a '{' must start a placeholder such as {size:size} or an optional part {?...} "
                                "(write '{{' for a brace)", column)
        name, type_ = m.group(1), m.group(2) or m.group(1)
        if type_ not in TYPES:
            raise TemplateError(f"unknown placeholder type {type_!r} (known: {', '.join(TYPES)})", column)
        target = segments if inner is None else inner
        if target and isinstance(target[-1], Placeholder) and not "".join(literal):
            raise TemplateError("two placeholders must be separated by literal text", column)
        flush()
        target.append(Placeholder(name, type_, column))
        i = m.end()
    literal.append(body[i:])
    if inner is not None:
        raise TemplateError("an optional part '{?' is not closed with '}'", opened)
    flush()
    placeholders = [s for s, _ in flatten(tuple(segments)) if isinstance(s, Placeholder)]
    names = [p.name for p in placeholders]
    for name in names:
        if names.count(name) > 1:
            raise TemplateError(f"placeholder name {name!r} is used twice")
    if sum(p.type == "text" for p in placeholders) > 1:
        raise TemplateError("at most one {…:text} placeholder per template")
    if not any(isinstance(s, str) and s.strip() for s in segments):
        raise TemplateError("a template needs some literal text")
    return tuple(segments), whole_line


def compile_template(text: str) -> Template:
    """Parse ``text``, prove its matcher linear, and build its Python and JavaScript matchers.

    Raises :class:`TemplateError` for a template that cannot be parsed, could make the search
    slower than linear, or would match almost anything.
    """
    segments, whole_line = parse(text)
    prove_linear(segments, whole_line)
    refuse_catch_all(segments, whole_line)
    return build(text, segments, whole_line)


# ---------------------------------------------------------------------------------------------
# The proof


def _stop(layout: Layout, i: int) -> str | None:
    """The character a narrowed placeholder stops at: the first of every literal after it."""
    ph = layout.items[i]
    assert isinstance(ph, Placeholder)
    if ph.type not in NARROWED or None in layout.after[i]:
        return None
    firsts = {text[:1] for text in layout.following(i)}
    stop = firsts.pop() if len(firsts) == 1 else ""
    return stop if stop and not stop.isspace() else None


def _in(klass: str, c: str) -> bool:
    """Whether ``c`` is in the character class ``klass``; any blank counts as a space."""
    return re.fullmatch(klass, " " if c.isspace() else c) is not None


def _holds(run: _Run, c: str, stop: str | None, *, first: bool) -> bool:
    """Whether a value of a placeholder that stops at ``stop`` can contain ``c``; ``first``:
    as its first character too (a copy of the literal's first character can begin right where
    the run does; its other characters come later)."""
    in_rest = _in(run.rest, c) and c != stop
    return in_rest or (first and _in(run.first, c) and not (c == stop and run.narrows_first))


def prove_linear(segments: tuple[Segment, ...], whole_line: bool) -> None:
    """Refuse a template whose matcher could take more than linear time (rules 1 to 4 of this
    module's docstring) or could never match after a placeholder (rule 5)."""
    if segments and isinstance(segments[0], Optional):
        raise TemplateError("an optional part cannot start the template: start with text that is always printed",
                            segments[0].column)
    layout = Layout(segments)
    for i, ph in enumerate(layout.items):
        if isinstance(ph, str):
            for j in layout.after[i] - {None}:
                if layout.texts[i][-1:].isspace() and layout.texts[j][:1].isspace():  # type: ignore[index]
                    raise TemplateError(
                        "blanks on both sides of an optional part's edge would be two blank runs in a row; "
                        "keep the blank on one side only", _column(segments, layout, j))  # type: ignore[arg-type]
            continue
        name = f"{{{ph.name}:{ph.type}}}"
        if any(j is not None and isinstance(layout.items[j], Placeholder) for j in layout.after[i]):
            raise TemplateError(f"{name} must be separated by literal text from the placeholder that can follow it "
                                "(an optional part taken or skipped)", ph.column)
        following = layout.following(i)
        if ph.type == "text" and None in layout.after[i]:
            raise TemplateError(f"{name} must be followed by literal text: it reads up to that text", ph.column)
        if None in layout.before[i] and not whole_line:
            raise TemplateError(
                f"{name} starts the template, so a search would run it from every character of a line; "
                "start with the literal text that comes before it", ph.column)
        if ph.type == "text":
            continue
        run = _RUNS[ph.type]
        stop = _stop(layout, i)
        if not whole_line and not run.delimited and run.longest > SHORT:
            for j in sorted(layout.before[i] - {None}):  # type: ignore[type-var]
                before = layout.texts[j]
                if all(_holds(run, c, stop, first=k == 0) for k, c in enumerate(before)):
                    raise TemplateError(
                        f"{name} can hold every character of the literal {before!r} before it, so its runs from "
                        "repeats of that literal overlap and the search can take quadratic time; put a character "
                        "it cannot hold (a space, a bracket, a colon) in that literal", ph.column)
        for text in following:
            if run.tail and _in(run.tail, text[0]) and text[0] != stop:
                raise TemplateError(
                    f"{name} can swallow the {text[0]!r} after it: its value would run on into that "
                    "literal, which then never matches; put a space or other separator between them", ph.column)


def _column(segments: tuple[Segment, ...], layout: Layout, j: int) -> int:
    """The column of the optional part that holds item ``j``, or of the one just before it."""
    group = layout.groups[j]
    if group is None:
        group = max((g for g in layout.groups[:j] if g is not None), default=None)
    seg = segments[group] if group is not None else None
    return seg.column if isinstance(seg, Optional) else 1


def refuse_catch_all(segments: tuple[Segment, ...], whole_line: bool) -> None:
    """Refuse a template that would match almost anything."""
    literal = "".join(s for s in segments if isinstance(s, str))
    count = sum(not c.isspace() for c in literal)
    fixed_line = whole_line and len(segments) == 1
    if count < MIN_LITERAL and not fixed_line:
        raise TemplateError(
            f"matches almost anything: {count} literal character(s), {MIN_LITERAL} needed "
            "(or a whole line, ^...$, without placeholders)")
    words = [w.lower() for w in re.findall(r"\w+", literal)]
    if not words:
        raise TemplateError("matches almost anything: its literal text holds no word")
    if all(len(w) == 1 or w in COMMON_WORDS for w in words):
        raise TemplateError(
            f"matches almost anything: its words ({', '.join(dict.fromkeys(words))}) are common in any log; "
            "keep a word that names this error")


# ---------------------------------------------------------------------------------------------
# The matchers


def escape(text: str) -> str:
    """``text`` as a literal pattern, in Python's and JavaScript's (u flag) common syntax."""
    return "".join("\\" + c if c in _SYNTAX else c for c in text)


def escape_in_class(c: str) -> str:
    return "\\" + c if c in "\\]^-[" else c


def literal_pattern(text: str) -> str:
    """Escape literal text; any run of white space matches one or more spaces or tabs."""
    return _BLANKS.join(escape(part) for part in re.split(r"\s+", text))


def _not_inside_blanks(pattern: str) -> str:
    """A stop pattern that begins with blanks only where a blank run begins: the same stops,
    without re-reading a long blank run from each of its characters."""
    return "(?<![ \\t])" + pattern if pattern.startswith(_BLANKS) else pattern


def value_pattern(ph: Placeholder, first: str | None, following: list[str], blank_before: bool) -> str:
    """The placeholder's pattern, given the compiled patterns of the template's first literal
    (None when the placeholder is first) and of the literals that can come after it."""
    if ph.type == "text":
        stops = [_not_inside_blanks(p) for p in (*following, first) if p]
        pattern = TYPES["text"][0].replace("{stops}", "|".join(stops))
        # The blanks in front belong to the literal (or line start) before it: a text starting
        # inside them would be tried again from each.
        return "(?![ \\t])" + pattern if blank_before else pattern
    return TYPES[ph.type][0]


def _narrowed(ph: Placeholder, stop: str | None) -> str | None:
    if stop is None:
        return None
    return NARROWED[ph.type].replace("{stop}", escape(stop)).replace("{stop_class}", escape_in_class(stop))


def build(text: str, segments: tuple[Segment, ...], whole_line: bool) -> Template:
    """The Python and JavaScript matchers of a parsed template (see :func:`compile_template`).

    A placeholder is an atomic group; so is an optional part, taken whenever it matches:
    Python's ``(?>(?:...)?)``, JavaScript's ``(?=((?:...)?))\\N``.
    """
    layout = Layout(segments)
    literals = {i: literal_pattern(layout.texts[i]) for i, s in enumerate(layout.items) if isinstance(s, str)}
    py_parts: list[str] = []
    js_parts: list[str] = []
    index = 0  # placeholders so far: Python's group p{index}
    groups = 0  # JavaScript's capturing groups so far
    opened = 0  # the open optional part's group
    for i, seg in enumerate(layout.items):
        group = layout.groups[i]
        if group is not None and (i == 0 or layout.groups[i - 1] != group):  # an optional part opens
            groups += 1
            opened = groups
            py_parts.append("(?>(?:")
            js_parts.append("(?=((?:")
        if isinstance(seg, str):
            py_parts.append(literals[i])
            js_parts.append(literals[i])
        else:
            befores = [literals[j] for j in layout.before[i] if j is not None and j in literals]
            blank_before = any(b.endswith(_BLANKS) for b in befores) or (None in layout.before[i] and whole_line)
            first = literals.get(0) if i > 0 else None
            following = [literals[j] for j in sorted(layout.after[i] - {None})]  # type: ignore[type-var]
            pattern = _narrowed(seg, _stop(layout, i)) or value_pattern(seg, first, following, blank_before)
            groups += 1
            # Atomic: Python's (?>...) and JavaScript's (?=(...))\N do the same thing.
            py_parts.append(f"(?P<p{index}>(?>{pattern}))")
            js_parts.append(f"(?=({pattern}))\\{groups}")
            index += 1
        if group is not None and (i == len(layout.items) - 1 or layout.groups[i + 1] != group):  # it closes
            py_parts.append(")?)")
            js_parts.append(f")?))\\{opened}")
    py_source = "".join(py_parts)
    js_source = "".join(js_parts)
    if whole_line:
        py_source = f"^[ \\t]*{py_source}[ \\t]*$"
        js_source = f"^[ \\t]*{js_source}[ \\t]*$"
    return Template(text, segments, whole_line, py_source, js_source)


def js_patterns() -> dict[str, list[str | None]]:
    """Each type's pattern and narrowed pattern: what the browser needs to compile templates."""
    return {name: [pattern, NARROWED.get(name)] for name, (pattern, _) in TYPES.items()}
