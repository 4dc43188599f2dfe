"""The proof that a template's matcher takes time linear in the length of a line.

Each template compiles to one regular expression, ``L0 P1 L1 ... Pk Lk``: literal runs ``Li``
(blanks match any run of spaces and tabs) and placeholders ``Pi``, some of them inside optional
parts.  Every placeholder is atomic: from a given position it yields one value or none, and is
never re-entered to try a shorter one.  So is every optional part: it is taken whenever it
matches where it stands, and never given back to try the line without it.  A ``text``
placeholder reads up to the first place where a literal that can follow it, or another copy of
the template's first literal, begins, or to the end of the line.

A search tries the expression at every position of the line.  With atomic placeholders and
optional parts the only choices left are how many blanks a literal's blank run takes, and
giving blanks back only lets the next placeholder start on a blank, where every type but
``text`` fails at once (and ``text`` is told not to start on one).  So an attempt walks the
elements once, each optional part being tried once, and its cost is that of the literals plus
the length of the runs its placeholders read.  A run of a value of at most ``SHORT``
characters (sizes, numbers, hex numbers, data types) costs a bounded amount wherever it starts.
:func:`prove_linear` accepts a template only when the longer runs cannot pile up on the same
stretch of a line.  The literals *before* and *after* a placeholder are every literal that can
stand there, with the optional parts between them taken or skipped (:class:`.Layout`):

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
   and by the same count only a bounded number of attempts span a given character.  That holds
   for each ``text`` of a template, and for one that ends it and reads to the end of the line.
3. *Two placeholders are never adjacent*, and *no blank run follows another*, whichever
   optional parts are taken: a second blank run, or a second placeholder, right after the
   first could share its characters in as many ways as the run is long.
4. *Optional parts do not nest*: an attempt tries each at most once, wherever the matcher is.

Rules 1 to 4 bound the work at ``(length of the line) x (a constant of the template)``, with no
factor from the long placeholders' length limits (512 characters of ``text``, 1024 of a path);
``tests/test_templates.py`` counts the steps of a backtracking matcher on adversarial lines.  And

5. *No placeholder can swallow the first character of a literal after it* (``{n:size}B``): its
   atomic value would run on into that literal, which could then never match.

Rule 5 keeps matching predictable.
"""

from __future__ import annotations

import re

from .grammar import OptionalPart, Placeholder, Segment, TemplateError
from .layout import EDGE, Layout
from .placeholders import SHORT, TEXT, TYPES, PlaceholderType


def narrowing_stop(layout: Layout, i: int) -> str | None:
    """The character that placeholder ``i`` stops at, when its type narrows: the first of every
    literal that can follow it, when they share it and it is no blank."""
    ph = layout.items[i]
    assert isinstance(ph, Placeholder)
    if TYPES[ph.type].narrowed is None or EDGE in layout.after[i]:
        return None
    firsts = {text[:1] for text in layout.following(i)}
    stop = firsts.pop() if len(firsts) == 1 else ""
    return stop if stop and not stop.isspace() else None


def _in(klass: str, c: str) -> bool:
    """Whether ``c`` is in the character class ``klass``; any blank counts as a space."""
    return re.fullmatch(klass, " " if c.isspace() else c) is not None


def _holds(kind: PlaceholderType, c: str, stop: str | None, *, first: bool) -> bool:
    """Whether a value of a placeholder that stops at ``stop`` can contain ``c``; ``first``:
    as its first character too (a copy of the literal's first character can begin right where
    the run does; its other characters come later)."""
    in_rest = _in(kind.rest, c) and c != stop
    return in_rest or (first and _in(kind.first, c) and not (c == stop and kind.narrows_first))


def prove_linear(segments: tuple[Segment, ...], whole_line: bool) -> None:
    """Refuse a template whose matcher could take more than linear time (rules 1 to 4 of this
    module's docstring) or could never match after a placeholder (rule 5)."""
    if segments and isinstance(segments[0], OptionalPart):
        raise TemplateError("an optional part cannot start the template: start with text that is always printed",
                            segments[0].column)
    layout = Layout(segments)
    for i, item in enumerate(layout.items):
        if isinstance(item, str):
            _one_blank_run(segments, layout, i)
        else:
            _placeholder_is_linear(layout, i, item, whole_line)


def _one_blank_run(segments: tuple[Segment, ...], layout: Layout, i: int) -> None:
    """Rule 3 for blanks: literal ``i`` and a literal after it do not both have blanks at the join."""
    for j in layout.next_items(i):
        if layout.texts[i][-1:].isspace() and layout.texts[j][:1].isspace():
            raise TemplateError("blanks on both sides of an optional part's edge would be two blank runs in a row; "
                                "keep the blank on one side only", _column(segments, layout, j))


def _placeholder_is_linear(layout: Layout, i: int, ph: Placeholder, whole_line: bool) -> None:
    """Rules 1, 2, 3 and 5 for placeholder ``i``."""
    name = f"{{{ph.name}:{ph.type}}}"
    if any(isinstance(layout.items[j], Placeholder) for j in layout.next_items(i)):
        raise TemplateError(f"{name} must be separated by literal text from the placeholder that can follow it "
                            "(an optional part taken or skipped)", ph.column)
    if EDGE in layout.before[i] and not whole_line:
        raise TemplateError(
            f"{name} starts the template, so a search would run it from every character of a line; "
            "start with the literal text that comes before it", ph.column)
    if ph.type == TEXT:
        return
    kind = TYPES[ph.type]
    stop = narrowing_stop(layout, i)
    if not whole_line and not kind.delimited and kind.longest > SHORT:
        for j in layout.previous_items(i):
            before = layout.texts[j]
            if all(_holds(kind, c, stop, first=k == 0) for k, c in enumerate(before)):
                raise TemplateError(
                    f"{name} can hold every character of the literal {before!r} before it, so its runs from "
                    "repeats of that literal overlap and the search can take quadratic time; put a character "
                    "it cannot hold (a space, a bracket, a colon) in that literal", ph.column)
    for text in layout.following(i):
        if kind.tail and _in(kind.tail, text[0]) and text[0] != stop:
            raise TemplateError(
                f"{name} can swallow the {text[0]!r} after it: its value would run on into that "
                "literal, which then never matches; put a space or other separator between them", ph.column)


def _column(segments: tuple[Segment, ...], layout: Layout, j: int) -> int:
    """The column of the optional part that holds item ``j``, or of the one just before it."""
    group = layout.groups[j]
    if group is None:
        group = max((g for g in layout.groups[:j] if g is not None), default=None)
    seg = segments[group] if group is not None else None
    return seg.column if isinstance(seg, OptionalPart) else 1
