"""Numbers written in a snippet's options and requirements: ASCII digits only, and bounded.

``str.isdigit`` and ``float`` accept digits of every script (``²``, ``٣``, ``１``) and ``int``
refuses more than 4,300 of them, so options are read here, with a pattern, before any
conversion: what is not a plain number in range is ``None``, for the caller's message.
"""

from __future__ import annotations

import re

from ..core.values import parse_size

_WHOLE = re.compile(r"[0-9]{1,18}")
_FRACTION = re.compile(r"[0-9]{0,6}\.[0-9]{1,12}|[0-9]{1,6}")
_SIZE = re.compile(r"[0-9]{1,15}(?:\.[0-9]{1,6})?[ \t]?[A-Za-z]{1,5}")


def whole_number(text: str, low: int, high: int) -> int | None:
    """``text`` as a whole number from ``low`` to ``high``, or None."""
    text = text.strip()
    if not _WHOLE.fullmatch(text):
        return None
    value = int(text)
    return value if low <= value <= high else None


def fraction(text: str) -> float | None:
    """``text`` as a number strictly between 0 and 1 (``0.01``), or None."""
    text = text.strip()
    if not _FRACTION.fullmatch(text):
        return None
    value = float(text)
    return value if 0 < value < 1 else None


def size(text: str) -> int | None:
    """``text`` as bytes (``2G``, ``512 MiB``), or None; at most 15 digits before the point."""
    text = text.strip()
    if not _SIZE.fullmatch(text):
        return None
    value = parse_size(text)
    return int(value) if value else None
