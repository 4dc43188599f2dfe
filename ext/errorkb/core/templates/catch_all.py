"""Templates that would match almost anything, refused: too little literal text, or only words
that are common in any log."""

from __future__ import annotations

import re

from .grammar import Segment, TemplateError

#: Fewest literal, non-blank characters of a template that may match inside a line.
MIN_LITERAL = 8

#: Words that say nothing about which error a line holds: a template made only of these (and of
#: single characters) would claim countless unrelated lines.  Besides the small words and those
#: of any failure, the words of the lines that frame every failure: Python's traceback headers
#: (``Traceback (most recent call last):``), stack dumps, log levels and statuses.
COMMON_WORDS = frozenset("""
    an and are as at be been but by can cannot could did do does for from had has have if in
    into is it its no not of ok on or than that the then there this to was we were when which
    while will with would alloc allocate allocated allocating allocation enough error errors
    exception exceeded exceeds fail failed failure fatal insufficient memory out unable warning
    something went wrong unexpected unknown internal
    traceback most recent call last during handling above another occurred direct cause following
    stack trace backtrace thread main
    debug info notice warn critical verbose done finished completed success succeeded started running
""".split())


def refuse_catch_all(segments: tuple[Segment, ...], whole_line: bool) -> None:
    """Refuse a template that would match almost anything.  A whole line without placeholders
    (``^Killed$``) may be short, but is judged by its words like any other: ``^Error$`` and
    ``^Traceback (most recent call last):$`` would answer every failure."""
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
