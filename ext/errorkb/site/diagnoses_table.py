"""The "What your numbers mean" section of a record page: each diagnosis as a sentence, its
condition in words (the values by their labels), what it says for an example of the record that
meets it, and a link to the fix it points to or rules out; then the readings, as sentences."""

from __future__ import annotations

from typing import Any

from docutils import nodes

from ..core.diagnoses import Diagnosis, applies, format_number, format_size, label_of, of_record, readings_of, say
from .what_to_do import fix_link

_WORDS = {"<": "is less than", "<=": "is at most", ">": "is more than", ">=": "is at least", "==": "equals",
          "!=": "differs from", "+": "plus", "-": "minus", "*": "times", "/": "divided by"}
_BINDING = {"or": 1, "and": 2, "not": 3, "<": 4, "<=": 4, ">": 4, ">=": 4, "==": 4, "!=": 4, "+": 5, "-": 5,
            "*": 6, "/": 6, "neg": 7}
#: A value divided by these reads as a share of it.
_SHARES = {2: "half of", 3: "a third of", 4: "a quarter of", 5: "a fifth of", 10: "a tenth of", 100: "1% of"}


def in_words(tree: list[Any], labels: dict[str, str] | None = None, outer: int = 0) -> str:
    """A condition as words, its values by their labels: ``the memory held by that process is
    more than a quarter of the GPU's total memory``."""
    labels = labels or {}
    op = tree[0]
    if op == "num":
        return format_number(tree[1])
    if op == "size":
        return format_size(tree[1])
    if op == "val":
        label = label_of(tree[1], labels)
        return label if label[1:2].isupper() else label[:1].lower() + label[1:]  # "GPU number" stays
    if op == "has":
        return f"the message gives {in_words(['val', tree[1]], labels)}"
    binding = _BINDING[op]
    if op == "not":
        text = f"not {in_words(tree[1], labels, binding)}"
    elif op == "neg":
        text = f"minus {in_words(tree[1], labels, binding)}"
    elif op == "/" and tree[2][0] == "num" and tree[2][1] in _SHARES:
        text = f"{_SHARES[int(tree[2][1])]} {in_words(tree[1], labels, binding + 1)}"
    elif op in ("<", "<=", ">", ">=") and tree[1][0] == "/" and tree[2][0] == "num":
        ratio, times = tree[1], tree[2][1]
        share = f"{format_number(times * 100)}% of" if times < 1 else f"{format_number(times)} times"
        text = f"{in_words(ratio[1], labels, 5)} {_WORDS[op]} {share} {in_words(ratio[2], labels, 5)}"
    else:
        text = f"{in_words(tree[1], labels, binding)} {_WORDS.get(op, op)} {in_words(tree[2], labels, binding + 1)}"
    return f"({text})" if binding < outer else text


def diagnoses_section(document: nodes.document, record: Any) -> list[nodes.Node]:
    """The section, or nothing for a record without diagnoses or readings."""
    found, readings = of_record(record), readings_of(record)
    if not found and not readings:
        return []
    section = nodes.section(ids=["what-your-numbers-mean"], names=["what your numbers mean"])
    section += nodes.title(text="What your numbers mean")
    document.note_implicit_target(section)
    section += nodes.paragraph(text="Paste your message into the lookup: it reads these values and says which "
                                    "of these hold, and which fix they call for.")
    examples = [values for template, message in zip(record.templates, record.messages) for e in message.examples
                if (values := template.search(e.text)) is not None]
    items = nodes.bullet_list(classes=["errorkb-diagnoses"])
    for diagnosis in found:
        items += _diagnosis_item(diagnosis, record.labels, examples)
    section += items
    if readings:
        section += nodes.paragraph(text="Whatever they are, the values are read as:")
        said = nodes.bullet_list(classes=["errorkb-readings"])
        for reading in readings:
            shown = next((say(reading, values) for values in examples if applies(reading, values)), None)
            if shown is not None:
                said += nodes.list_item("", nodes.paragraph("", "", nodes.Text("“" + shown + "”"),
                                                            nodes.inline(text=" (for an example of this page)",
                                                                         classes=["errorkb-example-note"])))
        section += said
    return [section]


def _diagnosis_item(diagnosis: Diagnosis, labels: dict[str, str], examples: list[dict[str, Any]]) -> nodes.list_item:
    assert diagnosis.condition is not None  # only a reading may have none
    head = nodes.paragraph()
    head += nodes.Text(f"When {in_words(diagnosis.condition, labels)}: ")
    head += nodes.Text("this rules out " if diagnosis.rules_out else "try ")
    head += fix_link(diagnosis.fix, f"fix {diagnosis.fix}, {diagnosis.fix_title}")
    head += nodes.Text(".")
    item = nodes.list_item("", head)
    shown = next((say(diagnosis, values) for values in examples if applies(diagnosis, values)), None)
    if shown is not None:
        item += nodes.paragraph(text=f"For one of the examples above, the lookup says: “{shown}”.",
                                classes=["errorkb-diagnosis-example"])
    return item
