"""A new record from one pasted message: what ``errorkb new`` writes.

``first_template`` turns a message into a template by replacing the parts that change from
run to run (sizes, numbers, shapes, paths, hex numbers, quoted text) with typed placeholders,
and keeps only replacements that the compiled template captures exactly, so the message is
always a matching first example.  ``scaffold`` writes the whole record around it: what only
the author knows (the summary, the site's required fields, the sections) is left empty, with
a ``TODO:`` marker (``records.SCAFFOLD_MARKER``) saying what goes there, or holds a value read
from the message, marked as a guess; ``errorkb check`` refuses the record until every marker
is gone and nothing required is empty.  Nothing here imports Sphinx.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import re

from ..core.records import SCAFFOLD_MARKER
from ..core.schema import SLUG, FieldSpec, Schema
from ..core.templates import Placeholder, TemplateError, build, parse, prove_linear

# What changes from run to run, most specific first: an earlier kind wins an overlap.
_SIZE_UNIT = r"(?:[KMGTPE]i?B|[KMGTPE]|[kmgt]i?b|bytes|byte|B)"
_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("quoted", re.compile(r"""(?<!\w)(?:'[^'\n]{1,512}'|"[^"\n]{1,512}"|`[^`\n]{1,512}`)(?!\w)""")),
    ("url", re.compile(r"""(?<![\w.+-])[A-Za-z][A-Za-z0-9+.\-]{0,31}://[^\s'"<>]*[^\s'"<>.,;:)\]]""")),
    ("path", re.compile(r"(?<![^\s'\"(=:])(?:~|\.{1,2})?/[^\s'\"<>|]*[^\s'\"<>|.,;:)\]]")),
    ("hex", re.compile(r"(?<![\w.])0[xX][0-9a-fA-F]{1,32}(?!\w)")),
    ("shape", re.compile(r"\[ ?[0-9?]+(?: ?[,x*] ?[0-9?]+)* ?,? ?\]|\( ?[0-9?]+(?: ?, ?[0-9?]+)+ ?,? ?\)")),
    ("size", re.compile(rf"(?<![\w.,])[0-9]{{1,20}}(?:\.[0-9]{{1,6}})? ?{_SIZE_UNIT}(?![\w])")),
    ("float", re.compile(r"(?<![\w.,])-?[0-9]{1,20}(?:\.[0-9]{1,20}(?:[eE][-+]?[0-9]{1,4})?|[eE][-+]?[0-9]{1,4})(?![\w]|\.[0-9])")),
    ("int", re.compile(r"(?<![\w.,])-?[0-9]{1,3}(?:,[0-9]{3})+(?![\w]|[.,][0-9])|(?<![\w.,])-?[0-9]{1,24}(?![\w]|[.,][0-9])")),
)


@dataclasses.dataclass(frozen=True)
class _Part:
    start: int
    end: int
    type: str


def _variable_parts(message: str) -> list[_Part]:
    taken: list[_Part] = []
    for type_, pattern in _KINDS:
        for m in pattern.finditer(message):
            if not any(m.start() < p.end and p.start < m.end() for p in taken):
                taken.append(_Part(m.start(), m.end(), type_))
    return sorted(taken, key=lambda p: p.start)


def _escape(literal: str) -> str:
    return literal.replace("{", "{{").replace("}", "}}")


def _render(message: str, parts: list[_Part]) -> str:
    out: list[str] = []
    counts: dict[str, int] = {}
    at = 0
    for part in parts:
        out.append(_escape(message[at : part.start]))
        counts[part.type] = counts.get(part.type, 0) + 1
        name = part.type if counts[part.type] == 1 else f"{part.type}{counts[part.type]}"
        out.append(f"{{{name}:{part.type}}}")
        at = part.end
    out.append(_escape(message[at:]))
    return "".join(out)


def _first_wrong(message: str, parts: list[_Part]) -> int | None:
    """Index of the first part the compiled template does not capture exactly, else None.

    A placeholder that the linearity proof refuses is wrong too; whether the template is too
    generic is for ``errorkb check`` to say, once the author has edited it.
    """
    if not parts:
        return None
    text = _render(message, parts)
    try:
        segments, whole_line = parse(text)
    except TemplateError:
        return len(parts) - 1
    try:
        prove_linear(segments, whole_line)
    except TemplateError as exc:
        columns = [s.column for s in segments if isinstance(s, Placeholder)]
        return columns.index(exc.column) if exc.column in columns else len(parts) - 1
    template = build(text, segments, whole_line)
    m = template.regex.search(message)
    if m is None:
        return len(parts) - 1
    for i, (part, group) in enumerate(zip(parts, template.groups)):
        if m.span(group) != (part.start, part.end):
            return i
    return None


def first_template(message: str) -> str:
    """A template for ``message`` that ``message`` itself matches, placeholder for placeholder."""
    message = message.strip()
    parts = _variable_parts(message)
    # Two placeholders need literal text between them: keep the first of each touching pair.
    parts = [p for i, p in enumerate(parts) if i == 0 or parts[i - 1].end < p.start]
    while (wrong := _first_wrong(message, parts)) is not None:
        del parts[wrong]
    return _render(message, parts)


def pick_line(paste: str) -> tuple[str, int]:
    """The line of a paste to build the template from (the last non-blank one), and its count.

    Other white space than spaces and tabs (a no-break space copied from a web page) becomes a
    space: templates match runs of spaces and tabs only.
    """
    lines = [line.strip() for line in paste.splitlines() if line.strip()]
    line = lines[-1] if lines else ""
    return "".join(" " if c.isspace() and c != "\t" else c for c in line), len(lines)


def field_problems(id: str, source: str, title: str, message: str) -> list[str]:
    """What is wrong with the answers before anything is written."""
    problems = []
    for name, value in (("id", id), ("source", source)):
        if not re.match(SLUG, value):
            problems.append(f"{name} {value!r} must be a lower-case slug such as 'disk-full' (letters, digits, '-' and '.')")
    if not 3 <= len(title.strip()) <= 120:
        problems.append("title must be 3 to 120 characters")
    if not re.search(r"[A-Za-z]", message):
        problems.append("the message must be the error's text as printed")
    for name, value in (("title", title), ("message", message)):
        if SCAFFOLD_MARKER in value:
            problems.append(f"{name} must not contain {SCAFFOLD_MARKER!r}")
    return problems


# Characters YAML does not allow unescaped in a document (DEL, C1 controls, non-characters).
_NOT_YAML_PRINTABLE = re.compile("[\x7f-\x84\x86-\x9f\ufffe\uffff]")


def _quote(value: str) -> str:
    """A YAML double-quoted scalar (JSON strings are valid YAML), readable and loadable."""
    return _NOT_YAML_PRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(value, ensure_ascii=False))


#: What the author is asked to write in a section of these common names; any other gets a plain request.
_SECTION_HINTS = {
    "Causes": "why the error happens, the most common reason first.",
    "Debugging": "how to tell which of the causes applies.",
}


def guesses(field: FieldSpec, source: str, message: str) -> list[str]:
    """The values of ``field`` that the source or the message names (a value, or its label, as a
    word), in the field's order: what the scaffold proposes, marked as a guess."""
    words = re.findall(r"\w+", message) + re.findall(r"[\w.+#-]+", message)  # llama.cpp and llama, cpp
    named = {source.casefold(), *(w.casefold() for w in words)}
    found = [value for value, label in field.values.items()
             if value in named or re.search(rf"(?<![\w.-]){re.escape(label.casefold())}(?![\w-])", message.casefold())]
    return found if field.many else found[:1]


def _field_line(field: FieldSpec, source: str, message: str) -> str:
    """The front-matter line of a site field: left empty where only the author can fill it in
    (``errorkb check`` refuses it until then), a guess from the message marked as one, or a
    comment for an optional field."""
    listed = ", ".join(field.values)
    hint = ("free text" if field.free else f"lower-case slugs, such as {listed}" if field.open else
            f"one{' or more' if field.many else ''} of {listed}")
    if not field.required:
        return f"# {field.name}:  # optional, {field.label}: {hint}"
    found = guesses(field, source, message) if not field.free else []
    if found:
        value = f"[{', '.join(found)}]" if field.many else found[0]
        return f"{field.name}: {value}  # {SCAFFOLD_MARKER} guessed from the source or the message: check it. {field.label}: {hint}"
    return f"{field.name}:{' []' if field.many else ''}  # {SCAFFOLD_MARKER} {field.label}: {hint}"


def _sections(schema: Schema) -> str:
    """Each section the site requires, holding only a comment (``%``) that says what goes there:
    refused as empty until the author writes it."""
    todo = SCAFFOLD_MARKER
    parts = []
    for name in schema.sections:
        if name == schema.fixes_section:
            parts.append(f"## {name}\n\n% {todo} one `###` heading per fix, in the order to try them; under each, "
                         "what to do, what it costs and when it applies.\n")
        else:
            parts.append(f"## {name}\n\n% {todo} {_SECTION_HINTS.get(name, 'write this section.')}\n")
    return "\n".join(parts)


def _placeholder_hint(template: str) -> str:
    """What the author is asked about the template's placeholders, shown with its first one."""
    first = re.search(r"\{([a-z]+)(?::([a-z]+))?\}", template)
    if first is None:
        return "check the template: the message, with each part that changes from run to run as {name:type}"
    kind = first.group(2) or first.group(1)
    return f"name each placeholder after what it holds, not its type: {first.group()} -> {{what_it_is:{kind}}}"


def scaffold(id: str, code: str, source: str, title: str, message: str, schema: Schema) -> str:
    """The text of a new record for a site of ``schema``: what only the author knows is left
    empty or marked ``TODO:``, and ``errorkb check`` refuses the record until it is filled in."""
    todo = SCAFFOLD_MARKER
    code_line = f"code: {_quote(code)}" if code else "# code:  # optional: the code as printed, if the error has one"
    fields = "".join(_field_line(field, source, message) + "\n" for field in schema.fields)
    template = first_template(message)
    checked = (f"checked:\n  date: {datetime.date.today().isoformat()}\n"
               f"  against: {{}}  # {todo} each product and the release whose source or documentation you compared "
               "the page with, such as {Git: '2.47'}\n") if schema.require_checked else ""
    return f"""\
---
id: {id}
{code_line}
title: {_quote(title.strip())}
summary:  # {todo} one sentence on what happened; it is the page's description in search results.
source: {source}
{fields}messages:
  # {todo} {_placeholder_hint(template)}
  - template: {_quote(template)}
    examples:
      - {_quote(message.strip())}
related: []
references: []  # optional: links to the documentation of this error
{checked}---

{_sections(schema)}"""
