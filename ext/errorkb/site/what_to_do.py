"""The "What to do" list under a record page's summary: every fix in the order to try it, each a
link to the fix's own anchor (``#fix-N``, :func:`~errorkb.core.diagnoses.fix_anchor`), with what it
costs where the record says (``costs``)."""

from __future__ import annotations

import re

from docutils import nodes

from ..core.diagnoses import fix_anchor
from ..core.records import Record

WHAT_TO_DO = "What to do"
#: Its title on a site whose fixes section is itself called "What to do".
IN_ORDER = "The fixes, in order"
_CODE = re.compile(r"`([^`]+)`")


def inline_code(text: str) -> list[nodes.Node]:
    """``text`` with its Markdown code spans (```x```) as literals: notes and fix titles."""
    out: list[nodes.Node] = []
    at = 0
    for m in _CODE.finditer(text):
        if m.start() > at:
            out.append(nodes.Text(text[at:m.start()]))
        out.append(nodes.literal(m.group(1), m.group(1)))
        at = m.end()
    if at < len(text):
        out.append(nodes.Text(text[at:]))
    return out


def plain(text: str) -> str:
    """``text`` without the backticks of its code spans, for places that show plain text."""
    return _CODE.sub(r"\1", text)


def fix_link(number: int, title: str) -> nodes.reference:
    """A link to fix ``number`` of the page it is on."""
    link = nodes.reference("", "", internal=True, refid=fix_anchor(number))
    link += inline_code(title)
    return link


def what_to_do(document: nodes.document, record: Record, fixes_title: str) -> list[nodes.Node]:
    """The section (anchored ``#what-to-do``), or nothing for a record without fixes; titled apart
    from the fixes section (``fixes_title``) where that has the same title."""
    if not record.fixes:
        return []
    title = IN_ORDER if fixes_title.casefold() == WHAT_TO_DO.casefold() else WHAT_TO_DO
    section = nodes.section(ids=["what-to-do"], names=[nodes.fully_normalize_name(title)],
                            classes=["errorkb-what-to-do"])
    section += nodes.title(text=title)
    document.note_implicit_target(section)
    steps = nodes.enumerated_list(enumtype="arabic", classes=["errorkb-fix-list"])
    for number, (fix, cost) in enumerate(zip(record.fixes, record.costs), start=1):
        item = nodes.paragraph()
        item += fix_link(number, fix.title)
        if cost:
            item += [nodes.Text(" "), nodes.inline(text=cost, classes=["errorkb-fix-cost"])]
        steps += nodes.list_item("", item)
    section += steps
    return [section]
