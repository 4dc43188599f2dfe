"""The values a template reads from a line: sizes in bytes, numbers, text.

Also what the settings and the snippets' claims parse sizes with.  Nothing here imports Sphinx.
"""

from __future__ import annotations

import math
import re
from typing import Any, NamedTuple

UNIT_FACTORS = {
    "b": 1, "byte": 1, "bytes": 1,
    "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4, "p": 1024**5, "e": 1024**6,
    "kib": 1024, "mib": 1024**2, "gib": 1024**3, "tib": 1024**4, "pib": 1024**5, "eib": 1024**6,
    "kb": 1000, "mb": 1000**2, "gb": 1000**3, "tb": 1000**4, "pb": 1000**5, "eb": 1000**6,
}
SIZE_PARTS = re.compile(r"([0-9]+(?:[.,][0-9]*)?)[ \t]?([A-Za-z]+)")


def parse_size(text: str) -> float | None:
    """Bytes in a size such as ``49.34G`` (binary, as XLA prints) or ``2.00 GB`` (decimal)."""
    m = SIZE_PARTS.fullmatch(text.strip())
    if not m:
        return None
    factor = UNIT_FACTORS.get(m.group(2).lower())
    size = float(m.group(1).replace(",", ".")) * factor if factor is not None else math.inf
    return round(size) if math.isfinite(size) else None


def json_number(x: float) -> float | int | None:
    """``x`` as JSON and JavaScript's ``JSON.stringify`` write it: integers exact up to 2**53,
    other numbers as floats, infinities as null."""
    if x != x or x in (float("inf"), float("-inf")):
        return None
    if float(x).is_integer() and abs(x) < 2**53:
        return int(x)
    return float(x)


class Value(NamedTuple):
    """A typed placeholder value pulled out of a message."""

    type: str
    text: str
    number: float | None = None  # bytes for sizes, the number for int and float

    @classmethod
    def parse(cls, type_: str, text: str) -> Value:
        if type_ == "size":
            return cls(type_, text, parse_size(text))
        if type_ in ("int", "status"):
            return cls(type_, text, float(text.replace(",", "")))
        if type_ == "float":
            return cls(type_, text, float(text))
        if type_ in ("quoted", "bracketed"):
            return cls(type_, text[1:-1])
        return cls(type_, text)

    def as_json(self) -> dict[str, Any]:
        """``{"type", "text"}`` and the number as ``bytes`` (sizes) or ``value``: an integer
        below 2**53, else a float; ``null`` for a number out of range (``1e999``), whose
        ``text`` keeps what was written."""
        out: dict[str, Any] = {"type": self.type, "text": self.text}
        if self.number is not None:
            out["bytes" if self.type == "size" else "value"] = json_number(self.number)
        return out


class Field(NamedTuple):
    """A placeholder as a match gives its value: its name, type and capturing group."""

    name: str
    type: str
    group: int


def values_of(fields: tuple[Field, ...], m: re.Match[str]) -> dict[str, Value]:
    """The values of a template's match; a placeholder of an optional part that the line does
    not hold has none."""
    values = {}
    for name, type_, group in fields:
        raw = m.group(group)
        if raw is not None:
            values[name] = Value.parse(type_, raw)
    return values
