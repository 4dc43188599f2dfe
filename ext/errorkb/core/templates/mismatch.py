"""Where a line stops matching a template: the literal or placeholder at fault, and the character.

The template's parts are matched one after the other, as its matcher does (each placeholder and
each optional part is atomic, so no part is ever given back), from each place where its first
literal is found; the attempt that gets furthest says where matching stopped.
"""

from __future__ import annotations

import re

from .grammar import Placeholder
from .layout import Layout
from .template import MAX_LINE, Template
from .writer import LINE_END, LINE_START, item_patterns

_SHOWN = 24  # characters of the line shown where matching stopped
_LINE_START = re.compile(LINE_START)
_LINE_END = re.compile(LINE_END)


def where_it_stops(template: Template, text: str) -> str:
    """Why ``text`` does not match ``template``, in words; ``text`` is cut as matching cuts it."""
    text = text[:MAX_LINE]
    layout = Layout(template.segments)
    patterns = [re.compile(p) for p in item_patterns(layout, template.whole_line)]
    if template.whole_line:  # after the blanks, with or without the quote mark that may open the line
        blanks = len(text) - len(text.lstrip(" \t"))
        opened = _LINE_START.match(text)  # always matches: all of it is optional
        starts = sorted({blanks, opened.end() if opened else blanks})
    else:
        starts = [at for at in range(len(text)) if patterns[0].match(text, at)]
        if not starts:
            return f"it does not hold the template's first literal {layout.texts[0]!r}"
    _, at, failed = max((_walk(layout, patterns, text, start) for start in starts), key=lambda r: r[:2])
    if failed is None:  # every part matched: a whole line must end there
        if _LINE_END.match(text.rstrip("\n"), at):
            return "it matches"
        at += len(text[at:]) - len(text[at:].lstrip(" \t"))
    where = _place(text, at)
    shown = repr(text[at:at + _SHOWN]) if at < len(text) else "the end of the line"
    if failed is None:
        return f"matching stops at {where}: the template ends there, but the line goes on with {shown}"
    item = layout.items[failed]
    if isinstance(item, Placeholder):
        return f"matching stops at {where}, where {{{item.name}:{item.type}}} finds no value in {shown}"
    return f"matching stops at {where}, where {layout.texts[failed]!r} should follow but the line has {shown}"


def _walk(layout: Layout, patterns: list[re.Pattern[str]], text: str, at: int) -> tuple[int, int, int | None]:
    """Match the parts from ``at``: the required parts matched, where matching stopped, and the
    part that failed there (None when every part matched)."""
    done, i = 0, 0
    while i < len(layout.items):
        if layout.groups[i] is not None:  # an optional part: taken whole, or skipped
            end = i
            while end < len(layout.items) and layout.groups[end] == layout.groups[i]:
                end += 1
            reached = at
            for j in range(i, end):
                m = patterns[j].match(text, reached)
                if m is None:
                    break
                reached = m.end()
            else:
                at = reached
            i = end
            continue
        m = patterns[i].match(text, at)
        if m is None:
            return done, at, i
        done, at, i = done + 1, m.end(), i + 1
    return done, at, None


def _place(text: str, at: int) -> str:
    """Character ``at`` (0-based) of ``text``, as people count: its line too where there are several."""
    line = text.count("\n", 0, at)
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    return f"line {line + 1}, character {column}" if "\n" in text else f"character {column}"
