"""The regex writer: one template, as a Python and a JavaScript regular expression.

A placeholder is an atomic group named after it, and so is an optional part, taken whenever it
matches: Python's ``(?>...)``, JavaScript's ``(?=(...))\\N`` (a lookahead is never re-entered,
and the back-reference takes what it read).  Literals and the placeholders' patterns are
written in the common subset of both languages (JavaScript with the ``u`` flag).
"""

from __future__ import annotations

import re

from .grammar import Placeholder, Segment
from .layout import EDGE, Layout
from .linearity import narrowing_stop
from .placeholders import TEXT, TYPES

# Characters with a meaning in a regular expression outside a class, escaped in literals; the
# set is the same in Python and in JavaScript with the u flag (which refuses other escapes).
_SYNTAX = frozenset("\\^$.|?*+()[]{}")
BLANKS = "[ \\t]+"


def escape(text: str) -> str:
    """``text`` as a literal pattern, in Python's and JavaScript's (u flag) common syntax."""
    return "".join("\\" + c if c in _SYNTAX else c for c in text)


def escape_in_class(c: str) -> str:
    return "\\" + c if c in "\\]^-[" else c


def literal_pattern(text: str) -> str:
    """Escape literal text; any run of white space matches one or more spaces or tabs."""
    return BLANKS.join(escape(part) for part in re.split(r"\s+", text))


def _not_inside_blanks(pattern: str) -> str:
    """A stop pattern that begins with blanks only where a blank run begins: the same stops,
    without re-reading a long blank run from each of its characters."""
    return "(?<![ \\t])" + pattern if pattern.startswith(BLANKS) else pattern


def item_patterns(layout: Layout, whole_line: bool) -> list[str]:
    """Each item's pattern, in both languages: a literal's, or the value pattern of a placeholder
    (without its atomic group)."""
    literals = {i: literal_pattern(layout.texts[i]) for i, s in enumerate(layout.items) if isinstance(s, str)}
    out = []
    for i, item in enumerate(layout.items):
        if isinstance(item, str):
            out.append(literals[i])
        elif (stop := narrowing_stop(layout, i)) is not None:
            narrowed = TYPES[item.type].narrowed
            assert narrowed is not None
            out.append(narrowed.replace("{stop}", escape(stop)).replace("{stop_class}", escape_in_class(stop)))
        elif item.type == TEXT:
            following = [literals[j] for j in layout.next_items(i)]
            first = literals.get(0) if i > 0 else None
            stops = [_not_inside_blanks(p) for p in (*following, first) if p]
            pattern = TYPES[TEXT].pattern.replace("{stops}", "|".join(stops))
            # The blanks in front belong to the literal (or line start) before it: a text starting
            # inside them would be tried again from each.
            blank_before = any(literals[j].endswith(BLANKS) for j in layout.previous_items(i) if j in literals) \
                or (EDGE in layout.before[i] and whole_line)
            out.append("(?![ \\t])" + pattern if blank_before else pattern)
        else:
            out.append(TYPES[item.type].pattern)
    return out


def write(segments: tuple[Segment, ...], whole_line: bool) -> tuple[str, str]:
    """The template's Python and JavaScript regular expressions."""
    layout = Layout(segments)
    patterns = item_patterns(layout, whole_line)
    py_parts: list[str] = []
    js_parts: list[str] = []
    index = 0  # placeholders so far: Python's group p{index}
    groups = 0  # JavaScript's capturing groups so far
    opened = 0  # the open optional part's group
    for i, item in enumerate(layout.items):
        if layout.opens(i):
            groups += 1
            opened = groups
            py_parts.append("(?>(?:")
            js_parts.append("(?=((?:")
        if isinstance(item, Placeholder):
            groups += 1
            py_parts.append(f"(?P<p{index}>(?>{patterns[i]}))")
            js_parts.append(f"(?=({patterns[i]}))\\{groups}")
            index += 1
        else:
            py_parts.append(patterns[i])
            js_parts.append(patterns[i])
        if layout.closes(i):
            py_parts.append(")?)")
            js_parts.append(f")?))\\{opened}")
    py_source, js_source = "".join(py_parts), "".join(js_parts)
    if whole_line:
        py_source, js_source = f"^[ \\t]*{py_source}[ \\t]*$", f"^[ \\t]*{js_source}[ \\t]*$"
    return py_source, js_source
