"""Diagnoses: what the values of a message mean, declared by the record that knows.

A record's front matter may hold ``diagnoses``: each a condition over the values its templates
capture, a short message, and the fix it points to (``fix``) or rules out (``rules_out``)::

    diagnoses:
      - when: other > capacity / 4
        say: "Process {pid} holds {other} of the GPU's {capacity}: stop it or use another GPU"
        fix: Stop the other processes on the GPU

``readings`` are sentences that say what the values are whatever they are (shares of the
capacity, who holds the memory): a message, and an optional condition.  ``labels`` give the
values' names in words (:func:`label_of` makes one from the name where a record gives none).

The condition is an expression of a small language, parsed here to a tree that the lookup
index ships as data, and that :func:`evaluate` and ``static/errorkb-lookup-core.js`` evaluate alike:

- values by their placeholder's name; numbers (``0.25``, ``4``) and sizes (``512 MiB``,
  ``2 GiB``, with the units of ``values.parse_size``);
- ``+ - * /`` and parentheses; a size divided by a size is a number, a size times or divided
  by a number a size;
- comparisons ``< <= > >= == !=`` between two sizes or two numbers, and ``and``, ``or``,
  ``not``; ``has(name)`` is true when the line holds the value (an optional part of the
  template that was printed).

A condition is tried only on a match that holds every value it names outside ``has()``, and
holds when it evaluates to true; dividing by zero makes it false.  In the message,
``{name}`` is the value as the line printed it and ``{expression}`` the result, a size as a
size (``12.02 GiB``), a number with at most two decimals; ``{expression:%}`` a percentage.
``{expression:size}`` a number of bytes as a size.  ``{{`` and ``}}`` are braces.  The sizes of one
message are in one unit system: decimal (``GB``) when a size it names was printed so, binary
(``GiB``) otherwise, and a size printed with a one-letter binary unit (XLA's ``49.34G``) is shown
with the unit spelt out.  ``fix`` is the title of one of the record's ``###`` fixes, or its
number.

:func:`check` refuses, with the field and the column, a condition or message that cannot be
parsed, that names a value no template of the record captures, that mixes types (a size
with a number, a value that is not a number), or a fix that does not exist.  Nothing here
imports Sphinx.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from .positioned import PositionedError
from .values import UNIT_FACTORS, Value

if TYPE_CHECKING:
    from .templates import Template

#: Longest condition, and longest message, in characters.
MAX_TEXT = 400
#: Deepest nesting of a condition's tree.
MAX_DEPTH = 24
#: The largest number, or size in bytes, a condition (or any field of a record) may name: the
#: largest whole number that Python's and JavaScript's floats both hold exactly (8 PiB as a size).
MAX_NUMBER = 2**53
#: Units that a size in a condition may have, and those sizes are shown in (largest first).
SIZE_UNITS = ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "KB", "MB", "GB", "TB", "PB", "B")
SHOWN_UNITS = (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024))
SHOWN_DECIMAL_UNITS = (("TB", 1000**4), ("GB", 1000**3), ("MB", 1000**2), ("KB", 1000))
#: Units of printed sizes that make a message's sizes decimal, and one-letter binary units.
DECIMAL_UNITS = ("kb", "mb", "gb", "tb", "pb", "eb")
LETTER_UNITS = ("k", "m", "g", "t", "p", "e")
#: Longest label of a value, in characters.
MAX_LABEL = 60
#: What a placeholder type is to the language: sizes, numbers, or text (only named, never computed on).
KINDS = {"size": "size", "int": "number", "float": "number", "status": "number"}

_TOKEN = re.compile(
    r"\s*(?:(?P<number>[0-9]+(?:\.[0-9]+)?)(?:[ \t]?(?P<unit>" + "|".join(SIZE_UNITS) + r")(?![A-Za-z0-9_]))?"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<op><=|>=|==|!=|[-+*/<>()]))"
)
#: How a ``{...}`` of a message may be shown: as its type says, a percentage, a number of bytes as a size.
FORMATS = ("", "%", "size")
_COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")
_KEYWORDS = ("and", "or", "not", "has")


class DiagnosisError(PositionedError):
    """A condition or message that cannot be used; ``column`` is 1-based in its text."""


class Spec(NamedTuple):
    """A diagnosis as written in the front matter; a reading has no fix and may have no condition."""

    when: str
    say: str
    fix: str | int = 0
    rules_out: bool = False  # the values rule the fix out, rather than point to it


def _texts(raw: dict[str, Any], keys: tuple[str, ...], required: tuple[str, ...]) -> list[tuple[str, str]]:
    problems = []
    for key in keys:
        value = raw.get(key)
        if key not in raw and key not in required:
            continue
        if not isinstance(value, str) or not value.strip():
            problems.append((key, f"'{key}' must be a non-empty string" if key in raw else f"missing '{key}'"))
        elif len(value) > MAX_TEXT:
            problems.append((key, f"longer than {MAX_TEXT} characters"))
    return problems


def read_spec(raw: Any) -> tuple[Spec | None, list[tuple[str, str]]]:
    """A front matter entry as a :class:`Spec`, or its problems as (field, message)."""
    if not isinstance(raw, dict):
        return None, [("", "a diagnosis is a mapping with 'when', 'say' and 'fix' (or 'rules_out')")]
    problems = [(str(key), f"unknown field {key!r} (a diagnosis has 'when', 'say' and 'fix' or 'rules_out')")
                for key in raw if key not in ("when", "say", "fix", "rules_out")]
    problems += _texts(raw, ("when", "say"), ("when", "say"))
    given = [key for key in ("fix", "rules_out") if key in raw]
    if len(given) != 1:
        problems.append(("fix", "give the fix it points to ('fix') or the fix it rules out ('rules_out'), one of them"
                         if given else "missing 'fix' (or 'rules_out')"))
    else:
        fix = raw[given[0]]
        if isinstance(fix, bool) or not isinstance(fix, (str, int)):
            problems.append((given[0], f"'{given[0]}' must be a fix's title or number"))
    if problems:
        return None, problems
    fix = raw[given[0]]
    return Spec(raw["when"].strip(), raw["say"].strip(), fix.strip() if isinstance(fix, str) else fix,
                given[0] == "rules_out"), []


def read_reading(raw: Any) -> tuple[Spec | None, list[tuple[str, str]]]:
    """A ``readings`` entry (``say`` and an optional ``when``) as a :class:`Spec`, or its problems."""
    if not isinstance(raw, dict):
        return None, [("", "a reading is a mapping with 'say' and, optionally, 'when'")]
    problems = [(str(key), f"unknown field {key!r} (a reading has 'say' and, optionally, 'when')")
                for key in raw if key not in ("when", "say")]
    problems += _texts(raw, ("when", "say"), ("say",))
    if problems:
        return None, problems
    return Spec(raw.get("when", "").strip(), raw["say"].strip()), []


class Diagnosis(NamedTuple):
    """A checked diagnosis: its condition's tree, its message's parts and the fix (1-based) it
    points to or rules out.  A reading is one without a fix (0), its condition ``None`` where it
    has none."""

    when: str  # as written, for the record's page
    condition: list[Any] | None
    message: list[Any]  # literal strings and [tree, format] parts
    fix: int = 0
    fix_title: str = ""
    rules_out: bool = False

    def as_json(self) -> list[Any]:
        """The compact form the lookup index ships: ``[condition, message, fix, fix title, rules out]``."""
        return [self.condition, self.message, self.fix, self.fix_title, self.rules_out]

    @classmethod
    def from_json(cls, data: list[Any]) -> Diagnosis:
        condition, message, fix, fix_title, rules_out = data
        return cls("", condition, message, fix, fix_title, rules_out)


# ---------------------------------------------------------------------------------------------
# Parsing: text -> tree.  A tree is a list: ["num", x], ["size", bytes], ["val", name],
# ["has", name], [operator, left, right] for + - * / and comparisons, ["neg", a], ["not", a],
# ["and", a, b], ["or", a, b].


class _Parser:
    def __init__(self, text: str):
        if len(text) > MAX_TEXT:
            raise DiagnosisError(f"longer than {MAX_TEXT} characters")
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []  # kind, text, column
        at = 0
        while at < len(text):
            m = _TOKEN.match(text, at)
            if m is None:
                rest = text[at:].lstrip()
                if rest:
                    raise DiagnosisError(f"unexpected {rest[0]!r}", len(text) - len(rest) + 1)
                break
            kind = m.lastgroup if m.lastgroup != "unit" else "number"
            assert kind is not None  # each of _TOKEN's alternatives is a named group
            column = m.start(kind) + 1
            if kind == "number":
                self.tokens.append(("size" if m.group("unit") else "number", m.group(0).strip(), column))
            else:
                word = m.group(kind)
                self.tokens.append(("word" if kind == "name" and word in _KEYWORDS else kind, word, column))
            at = m.end()
        self.pos = 0
        self.depth = 0

    def peek(self) -> tuple[str, str, int]:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else ("end", "", len(self.text) + 1)

    def take(self, text: str | None = None) -> tuple[str, str, int]:
        token = self.peek()
        if text is not None and token[1] != text:
            found = f"{token[1]!r}" if token[0] != "end" else "the end"
            raise DiagnosisError(f"expected {text!r}, found {found}", token[2])
        self.pos += 1
        return token

    def parse(self) -> list[Any]:
        if not self.tokens:
            raise DiagnosisError("empty")
        tree = self.either()
        kind, text, column = self.peek()
        if kind != "end":
            raise DiagnosisError(f"unexpected {text!r}", column)
        return tree

    def nested(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise DiagnosisError(f"nested more than {MAX_DEPTH} levels deep", self.peek()[2])

    def either(self) -> list[Any]:
        return self.chained(("or",), self.both)

    def both(self) -> list[Any]:
        return self.chained(("and",), self.negation)

    def chained(self, operators: tuple[str, ...], operand: Callable[[], list[Any]]) -> list[Any]:
        """``a or b or c``, ``a - b + c``: left-associative operators between operands."""
        tree = operand()
        while self.peek()[1] in operators:
            tree = [self.take()[1], tree, operand()]
        return tree

    def negation(self) -> list[Any]:
        return self.prefixed("not", self.negation) if self.peek()[1] == "not" else self.comparison()

    def comparison(self) -> list[Any]:
        tree = self.sum()
        if self.peek()[1] in _COMPARISONS:
            op = self.take()[1]
            tree = [op, tree, self.sum()]
            if self.peek()[1] in _COMPARISONS:
                raise DiagnosisError("comparisons do not chain: write 'a < b and b < c'", self.peek()[2])
        return tree

    def sum(self) -> list[Any]:
        return self.chained(("+", "-"), self.product)

    def product(self) -> list[Any]:
        return self.chained(("*", "/"), self.unary)

    def unary(self) -> list[Any]:
        return self.prefixed("neg", self.unary) if self.peek()[1] == "-" else self.atom()

    def prefixed(self, name: str, operand: Callable[[], list[Any]]) -> list[Any]:
        """``not x``, ``-x``: the operator taken, its operand one level deeper."""
        self.take()
        self.nested()
        tree = [name, operand()]
        self.depth -= 1
        return tree

    def atom(self) -> list[Any]:
        kind, text, column = self.take()
        if kind in ("number", "size"):
            value = float(text) if kind == "number" else parse_quantity(text)
            if value > MAX_NUMBER:
                shown = text if len(text) <= 40 else text[:40] + "..."
                unit = " bytes" if kind == "size" else ""
                raise DiagnosisError(f"{shown} is more than {MAX_NUMBER:,}{unit}, the most a condition may name", column)
            return ["num" if kind == "number" else "size", value]
        if kind == "name":
            return ["val", text]
        if text == "has":
            self.take("(")
            kind, name, column = self.take()
            if kind != "name":
                raise DiagnosisError("has() takes the name of a value", column)
            self.take(")")
            return ["has", name]
        if text == "(":
            self.nested()
            tree = self.either()
            self.depth -= 1
            self.take(")")
            return tree
        raise DiagnosisError("expected a value, a number or '('" if kind != "end" else "unfinished condition", column)


def parse_quantity(text: str) -> float:
    """Bytes in a size of a condition, such as ``512 MiB``; infinite beyond what a float holds."""
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)[ \t]?([A-Za-z]+)", text)
    assert m is not None
    size = float(m.group(1)) * UNIT_FACTORS[m.group(2).lower()]
    return float(round(size)) if math.isfinite(size) else size


def parse_condition(text: str) -> list[Any]:
    """The tree of a condition; raises :class:`DiagnosisError`."""
    return _Parser(text).parse()


def parse_message(text: str) -> list[Any]:
    """A message's parts: literal strings and ``[tree, format]`` for each ``{...}``."""
    if len(text) > MAX_TEXT:
        raise DiagnosisError(f"longer than {MAX_TEXT} characters")
    parts: list[Any] = []
    literal = ""
    at = 0
    while at < len(text):
        c = text[at]
        if text.startswith(("{{", "}}"), at):
            literal += c
            at += 2
        elif c == "}":
            raise DiagnosisError("a lone '}' (write '}}' for a brace)", at + 1)
        elif c == "{":
            end = text.find("}", at)
            if end < 0:
                raise DiagnosisError("a '{' is not closed", at + 1)
            inner = text[at + 1:end]
            expression, _, form = inner.partition(":")
            if form not in FORMATS:
                raise DiagnosisError(f"unknown format {form!r} (known: '%', a percentage; 'size', a number of "
                                     "bytes as a size)", at + 2 + len(expression))
            try:
                tree = parse_condition(expression)
            except DiagnosisError as exc:
                raise DiagnosisError(str(exc), at + 1 + exc.column) from None
            if literal:
                parts.append(literal)
                literal = ""
            parts.append([tree, form])
            at = end + 1
        else:
            literal += c
            at += 1
    if literal:
        parts.append(literal)
    return parts


# ---------------------------------------------------------------------------------------------
# Checking


def names_in(tree: list[Any], *, required: bool = True) -> list[str]:
    """The values a tree names: with ``required``, those outside ``has()``."""
    if tree[0] == "val" or (tree[0] == "has" and not required):
        return [tree[1]]
    return [name for child in tree[1:] if isinstance(child, list) for name in names_in(child, required=required)]


def kind_of(tree: list[Any], kinds: dict[str, str]) -> str:
    """``"size"``, ``"number"``, ``"bool"`` or ``"text"``; raises :class:`DiagnosisError` when
    the tree mixes types (``kinds``: each value's kind in one template)."""
    op = tree[0]
    if op in ("num", "size"):
        return "number" if op == "num" else "size"
    if op == "val":
        return kinds[tree[1]]
    if op == "has":
        return "bool"
    args = [kind_of(child, kinds) for child in tree[1:]]
    if op in ("and", "or", "not"):
        if any(a != "bool" for a in args):
            raise DiagnosisError(f"'{op}' combines conditions, not {_a(next(a for a in args if a != 'bool'))}")
        return "bool"
    for a in args:
        if a in ("bool", "text"):
            raise DiagnosisError(f"'{_op(op)}' needs sizes or numbers, not {_a(a)}")
    if op == "neg":
        return args[0]
    left, right = args
    if op in _COMPARISONS:
        if left != right:
            raise DiagnosisError(f"'{op}' compares {_a(left)} with {_a(right)}: compare values of one type "
                                 "(a ratio of two sizes is a number)")
        return "bool"
    if op in ("+", "-"):
        if left != right:
            raise DiagnosisError(f"'{op}' mixes {_a(left)} and {_a(right)}")
        return left
    if op == "*":
        if left == right == "size":
            raise DiagnosisError("'*' multiplies two sizes")
        return "size" if "size" in (left, right) else "number"
    # "/"
    if left == "number" and right == "size":
        raise DiagnosisError("'/' divides a number by a size")
    return "number" if left == right else "size"


def _a(kind: str) -> str:
    return {"size": "a size", "number": "a number", "bool": "a condition", "text": "a text value"}[kind]


def _op(op: str) -> str:
    return "-" if op == "neg" else op


def kinds_of(template: Template) -> dict[str, str]:
    """Each value's kind, as the language sees it, in one template."""
    return {p.name: KINDS.get(p.type, "text") for p in template.placeholders}


def check(spec: Spec, templates: list[Template], fixes: list[str] | None) -> tuple[Diagnosis | None, list[tuple[str, str]]]:
    """Parse and check one diagnosis (``fixes``: the record's fix titles) or reading (``fixes``
    None) against the record's templates.

    Returns the diagnosis (None when it cannot be used) and its problems as (field, message)."""
    problems: list[tuple[str, str]] = []
    condition = message = None
    if spec.when or fixes is not None:
        try:
            condition = parse_condition(spec.when)
        except DiagnosisError as exc:
            problems.append(("when", f"{exc} (at character {exc.column})"))
    try:
        message = parse_message(spec.say)
    except DiagnosisError as exc:
        problems.append(("say", f"{exc} (at character {exc.column})"))
    fix = fix_number(spec.fix, fixes) if fixes is not None else 0
    if fix is None:
        problems.append(("rules_out" if spec.rules_out else "fix", missing_fix(spec.fix, fixes or [])))
    if condition is not None:
        problems += [("when", p) for p in _type_problems(condition, None, templates)]
    if message is not None:
        for tree, _ in (part for part in message if isinstance(part, list)):
            problems += [("say", p) for p in _type_problems(tree, condition, templates, in_message=True)]
    if problems or message is None or fix is None or (condition is None and spec.when):
        return None, problems
    title = fixes[fix - 1] if fixes else ""
    return Diagnosis(spec.when, condition, message, fix, title, spec.rules_out), []


def missing_fix(fix: str | int, titles: list[str]) -> str:
    """Why ``fix`` names no fix of a record whose fixes are ``titles``."""
    return (f"no fix {fix!r}: give the title of one of the record's '###' fixes "
            f"({', '.join(map(repr, titles))}) or its number, 1 to {len(titles)}")


def fix_number(fix: str | int, titles: list[str]) -> int | None:
    """The 1-based number of the fix a record names by its title or number; None if none."""
    if isinstance(fix, bool):
        return None
    if isinstance(fix, int):
        return fix if 1 <= fix <= len(titles) else None
    return titles.index(fix) + 1 if fix in titles else None


def _type_problems(tree: list[Any], condition: list[Any] | None, templates: list[Template],
                   in_message: bool = False) -> list[str]:
    """Whether some template captures every value ``tree`` names (with those its condition
    names, for a message), and the types agree in each such template."""
    needed = set(names_in(tree, required=False)) | (set(names_in(condition, required=False)) if condition else set())
    fitting = [t for t in templates if needed <= {p.name for p in t.placeholders}]
    if not fitting:
        captured = sorted({p.name for t in templates for p in t.placeholders})
        missing = sorted(needed - set(captured)) or sorted(needed)
        where = "with the values of its condition " if in_message and condition else ""
        return [f"names {', '.join(map(repr, missing))}, which no template of this record captures {where}"
                f"(captured: {', '.join(captured) or 'none'})"]
    problems: list[str] = []
    for template in fitting:
        kinds = kinds_of(template)
        try:
            kind = kind_of(tree, kinds)
        except DiagnosisError as exc:
            problems.append(str(exc))
            continue
        if not in_message and kind != "bool":
            problems.append(f"is {_a(kind)}, not a condition: compare it with something (e.g. '> 0.25')")
        if in_message and kind == "bool":
            problems.append("shows a condition; show a value or a computed size or number")
    return list(dict.fromkeys(problems))


# ---------------------------------------------------------------------------------------------
# Evaluating


class _Undefined(Exception):
    """A division by zero: the diagnosis does not apply."""


def applies(diagnosis: Diagnosis, values: dict[str, Value]) -> bool:
    """Whether the diagnosis (or reading) holds for the values of a match."""
    if diagnosis.condition is not None and any(name not in values for name in names_in(diagnosis.condition)):
        return False
    if any(name not in values for part in diagnosis.message if isinstance(part, list) for name in names_in(part[0])):
        return False
    if diagnosis.condition is None:
        return True
    try:
        return evaluate(diagnosis.condition, values) is True
    except _Undefined:
        return False


def evaluate(tree: list[Any], values: dict[str, Value]) -> Any:
    """A tree's value: a float, or a bool for a condition."""
    op = tree[0]
    if op in ("num", "size"):
        return tree[1]
    if op == "val":
        number = values[tree[1]].number
        if number is None:
            raise _Undefined
        return float(number)
    if op == "has":
        return tree[1] in values
    if op == "not":
        return not evaluate(tree[1], values)
    if op == "and":
        return evaluate(tree[1], values) and evaluate(tree[2], values)
    if op == "or":
        return evaluate(tree[1], values) or evaluate(tree[2], values)
    if op == "neg":
        return -evaluate(tree[1], values)
    a, b = evaluate(tree[1], values), evaluate(tree[2], values)
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        if b == 0:
            raise _Undefined
        return a / b
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[op]


def say(diagnosis: Diagnosis, values: dict[str, Value]) -> str:
    """The message, its values filled in, its sizes in one unit system (see the module's docstring)."""
    decimal = any(values[name].type == "size" and _unit(values[name].text) in DECIMAL_UNITS
                  for part in diagnosis.message if isinstance(part, list) for name in names_in(part[0]))
    out = []
    for part in diagnosis.message:
        if isinstance(part, str):
            out.append(part)
            continue
        tree, form = part
        if tree[0] == "val" and not form and not (values[tree[1]].type == "size"
                                                   and _unit(values[tree[1]].text) in LETTER_UNITS):
            out.append(values[tree[1]].text)
            continue
        try:
            x = evaluate(tree, values)
        except _Undefined:
            out.append("?")
            continue
        kinds = {name: KINDS.get(v.type, "text") for name, v in values.items()}
        if form == "%":
            out.append(round_half_up(x * 100, 0) + "%")
        elif form == "size" or kind_of(tree, kinds) == "size":
            out.append(format_size(x, decimal))
        else:
            out.append(format_number(x))
    return "".join(out)


def _unit(text: str) -> str:
    """The unit of a size as printed, lower case (``49.34G`` -> ``g``)."""
    return text.strip().lstrip("0123456789.,").strip().lower()


def diagnose(diagnoses: list[Diagnosis], values: dict[str, Value]) -> list[dict[str, Any]]:
    """The diagnoses that hold, as results give them: ``{"message", "fix", "fix_title", "rules_out"}``."""
    return [{"message": say(d, values), "fix": d.fix, "fix_title": d.fix_title, "rules_out": d.rules_out}
            for d in diagnoses if applies(d, values)]


def read(readings: list[Diagnosis], values: dict[str, Value]) -> list[str]:
    """The sentences of the readings that hold for the values."""
    return [say(r, values) for r in readings if applies(r, values)]


def fixes_in_order(titles: list[str], costs: list[str], found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A record's fixes in the order the values call for: those a diagnosis points to (in the
    diagnoses' order), the others in the record's, and last those the values rule out.  Each
    ``{"number", "title", "cost", "anchor", "diagnosed", "ruled_out"}``; ``anchor`` is the fix's
    id on the record's page."""
    pointed = [d["fix"] for d in found if not d["rules_out"]]
    ruled_out = {d["fix"] for d in found if d["rules_out"]} - set(pointed)
    numbers = list(dict.fromkeys([*pointed, *range(1, len(titles) + 1)]))
    numbers.sort(key=lambda n: n in ruled_out)
    return [{"number": n, "title": titles[n - 1], "cost": costs[n - 1], "anchor": fix_anchor(n),
             "diagnosed": n in pointed, "ruled_out": n in ruled_out} for n in numbers]


def fix_anchor(number: int) -> str:
    """The id of a record page's fix ``number``, whatever its title."""
    return f"fix-{number}"


def label_of(name: str, labels: dict[str, str]) -> str:
    """A value's name in words: the record's label, else the name made readable
    (``other2`` -> ``Other 2``, ``free_bytes`` -> ``Free bytes``)."""
    if name in labels:
        return labels[name]
    words = re.sub(r"(?<=[A-Za-z])(?=[0-9])", " ", name).replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def round_half_up(x: float, digits: int) -> str:
    """``x`` with ``digits`` decimals, a tie rounded away from zero, as JavaScript's ``toFixed``."""
    if x != x or x in (float("inf"), float("-inf")):
        return "∞" if x > 0 else "-∞" if x < 0 else "?"
    x = x + 0.0  # no negative zero
    if abs(x) >= 1e21:  # where toFixed writes an exponent
        return f"{x:.2e}"
    from decimal import ROUND_HALF_UP, Decimal  # here: most lookups round nothing, and the module is slow to load

    return str(Decimal(x).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def format_size(n: float, decimal: bool = False) -> str:
    """A number of bytes in the largest binary (or ``decimal``) unit it reaches: ``12.02 GiB``,
    ``512 bytes``."""
    for unit, factor in SHOWN_DECIMAL_UNITS if decimal else SHOWN_UNITS:
        if abs(n) >= factor:
            return f"{round_half_up(n / factor, 2)} {unit}"
    return f"{round_half_up(n, 0)} bytes"


def format_number(x: float) -> str:
    """A whole number as it is, any other with two decimals."""
    return round_half_up(x, 0 if float(x).is_integer() else 2)


# ---------------------------------------------------------------------------------------------
# A record's diagnoses


def of_record(record: Any) -> list[Diagnosis]:
    """A loaded record's diagnoses (checked when it was loaded)."""
    return _checked(record.diagnoses, read_spec, record, [f.title for f in record.fixes])


def readings_of(record: Any) -> list[Diagnosis]:
    """A loaded record's readings (checked when it was loaded)."""
    return _checked(record.readings, read_reading, record, None)


def _checked(raw: list[Any], reader: Callable[[Any], tuple[Spec | None, Any]], record: Any,
             fixes: list[str] | None) -> list[Diagnosis]:
    out = []
    for entry in raw:
        spec, _ = reader(entry)
        diagnosis = check(spec, list(record.templates), fixes)[0] if spec is not None else None
        if diagnosis is not None:
            out.append(diagnosis)
    return out


def problems_of(raw: list[Any], templates: list[Template], fixes: list[str], field: str = "diagnoses"
                ) -> list[tuple[str, str]]:
    """Every problem of a record's ``diagnoses`` (or, with ``field="readings"``, ``readings``)
    field as (field path, message)."""
    reader = read_reading if field == "readings" else read_spec
    problems = []
    for i, entry in enumerate(raw):
        spec, found = reader(entry)
        if spec is not None:
            found = check(spec, templates, None if field == "readings" else fixes)[1]
        problems += [(f"{field}[{i}].{key}" if key else f"{field}[{i}]", message) for key, message in found]
    return problems


def label_problems(labels: dict[str, Any], templates: list[Template]) -> list[tuple[str, str]]:
    """Every problem of a record's ``labels`` as (field path, message): each names a value that
    a template captures, in words."""
    captured = sorted({p.name for t in templates for p in t.placeholders})
    problems = []
    for name, label in labels.items():
        if name not in captured:
            problems.append((f"labels.{name}", f"no template of this record captures {name!r} "
                                               f"(captured: {', '.join(captured) or 'none'})"))
        if not isinstance(label, str) or not label.strip() or len(label) > MAX_LABEL:
            problems.append((f"labels.{name}", f"a label is the value's name in words, 1 to {MAX_LABEL} characters"))
    return problems
