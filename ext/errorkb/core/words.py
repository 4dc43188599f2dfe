"""What counts as a word of a line: the unit templates are short-listed by (``matcher.py``) and
the lookup's words (``lookup.PATTERNS["word"]``)."""

import re

WORD = re.compile(r"[A-Za-z0-9_]+")
