"""The "What your numbers mean" section of a record page: each diagnosis as a table row, its
condition in words, its message and a link to the fix it points to."""

from __future__ import annotations

from typing import Any

from docutils import nodes

from ..core.diagnoses import Diagnosis, format_number, format_size, of_record

_WORDS = {"<": "is less than", "<=": "is at most", ">": "is more than", ">=": "is at least", "==": "equals",
          "!=": "differs from", "+": "+", "-": "-", "*": "×", "/": "/"}
_BINDING = {"or": 1, "and": 2, "not": 3, "<": 4, "<=": 4, ">": 4, ">=": 4, "==": 4, "!=": 4, "+": 5, "-": 5,
            "*": 6, "/": 6, "neg": 7}


def in_words(tree: list[Any], outer: int = 0) -> str:
    """A condition as a sentence: ``other is more than capacity / 4``."""
    op = tree[0]
    if op == "num":
        return format_number(tree[1])
    if op == "size":
        return format_size(tree[1])
    if op == "val":
        return tree[1]
    if op == "has":
        return f"the message gives {tree[1]}"
    binding = _BINDING[op]
    if op == "not":
        text = f"not {in_words(tree[1], binding)}"
    elif op == "neg":
        text = f"-{in_words(tree[1], binding)}"
    else:
        word = _WORDS.get(op, op)
        text = f"{in_words(tree[1], binding)} {word} {in_words(tree[2], binding + 1)}"
    return f"({text})" if binding < outer else text


def diagnoses_section(document: nodes.document, record: Any) -> list[nodes.Node]:
    """The section, or nothing for a record without diagnoses."""
    found = of_record(record)
    if not found:
        return []
    section = nodes.section(ids=["what-your-numbers-mean"], names=["what your numbers mean"])
    section += nodes.title(text="What your numbers mean")
    document.note_implicit_target(section)
    section += nodes.paragraph(text="When the lookup reads these values in your message, it says what they mean.")
    table = nodes.table(classes=["errorkb-diagnoses"])
    group = nodes.tgroup(cols=3)
    table += group
    group += [nodes.colspec(colwidth=w) for w in (3, 4, 3)]
    group += nodes.thead("", _row([nodes.Text("When"), nodes.Text("It means"), nodes.Text("Fix")]))
    group += nodes.tbody("", *(_diagnosis_row(d) for d in found))
    section += table
    return [section]


def _diagnosis_row(diagnosis: Diagnosis) -> nodes.row:
    fix = nodes.reference("", f"{diagnosis.fix}. {diagnosis.fix_title}", internal=True,
                          refid=nodes.make_id(diagnosis.fix_title))
    return _row([nodes.Text(in_words(diagnosis.condition)), nodes.Text(_template(diagnosis.message)), fix])


def _template(message: list[Any]) -> str:
    """The message with its values as ``{...}``."""
    return "".join(part if isinstance(part, str) else "{" + in_words(part[0]) + ("%" if part[1] == "%" else "") + "}"
                   for part in message)


def _row(cells: list[nodes.Node]) -> nodes.row:
    row = nodes.row()
    for cell in cells:
        entry = nodes.entry()
        entry += nodes.paragraph("", "", cell)
        row += entry
    return row
