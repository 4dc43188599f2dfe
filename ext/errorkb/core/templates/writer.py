"""The regex writer: one template as one regular expression, the same in Python and in
JavaScript (with the ``u`` flag): the lookup index ships it to the browser as it is.

Every placeholder is atomic, and so is every optional part, taken whenever it matches: written
``(?=(...))(?:\\N)``, a lookahead that is never re-entered and a back-reference that takes what
it read (Python's ``(?>...)`` has no JavaScript twin).  The back-reference is wrapped so that a
digit after it cannot extend its number.  Literals and the placeholders' patterns are written
in the common subset of both languages.
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
#: Around a whole-line template: the blanks and the marks of a line quoted as it is pasted in
#: prose or Markdown (``"Killed"``, `` `Killed` ``, ``> Killed``, ``**Killed**``).
LINE_START = "^[ \\t]*(?:>[ \\t]*)*(?:\\*\\*)?[\"'`\u201c\u2018]?"
LINE_END = "[\"'`\u201d\u2019]?(?:\\*\\*)?[ \\t]*$"


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
            pattern = TYPES[TEXT].pattern.replace("(?!{stops})", f"(?!{'|'.join(stops)})" if stops else "")
            # The blanks in front belong to the literal (or line start) before it: a text starting
            # inside them would be tried again from each.
            blank_before = any(literals[j].endswith(BLANKS) for j in layout.previous_items(i) if j in literals) \
                or (EDGE in layout.before[i] and whole_line)
            out.append("(?![ \\t])" + pattern if blank_before else pattern)
        else:
            out.append(TYPES[item.type].pattern)
    return out


def write(segments: tuple[Segment, ...], whole_line: bool) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The template's regular expression, cut around its required literal text: every second
    piece, from the second on, is the pattern of a literal that every match holds (what the
    lookup's ranking reads); and the capturing group of each placeholder."""
    layout = Layout(segments)
    patterns = item_patterns(layout, whole_line)
    pieces = [LINE_START if whole_line else ""]
    groups: list[int] = []
    count = 0  # capturing groups so far
    opened = 0  # the open optional part's group
    for i, item in enumerate(layout.items):
        if layout.opens(i):
            count += 1
            opened = count
            pieces[-1] += "(?=((?:"
        if isinstance(item, Placeholder):
            count += 1
            groups.append(count)
            pieces[-1] += f"(?=({patterns[i]}))(?:\\{count})"
        elif layout.groups[i] is None:
            pieces += [patterns[i], ""]
        else:
            pieces[-1] += patterns[i]
        if layout.closes(i):
            pieces[-1] += f")?))(?:\\{opened})"
    if whole_line:
        pieces[-1] += LINE_END
    return tuple(pieces), tuple(groups)
