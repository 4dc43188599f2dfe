"""Message templates: ``{name:type}`` placeholders and ``{?...}`` optional parts, compiled to
matchers proven linear in the length of a line.

A template is literal text with typed placeholders, e.g.
``Used {used:size} of {capacity:size} hbm``; ``is free.{? Process {pid:int} has {other:size}
memory in use.}`` matches with or without the sentence, and gives ``pid`` and ``other`` only
when the line holds it.  One module per step:

- :mod:`.grammar`: the text parsed into literals, placeholders and optional parts;
- :mod:`.placeholders`: the placeholder types, and what the proof knows of their values;
- :mod:`.layout`: what can come before and after each part, optional parts taken or skipped;
- :mod:`.linearity`: the proof that the matcher is linear (and can match), or the refusal;
- :mod:`.catch_all`: templates that would match almost anything, refused;
- :mod:`.writer`: the regular expression, the same in Python and JavaScript;
- :mod:`.template`: the compiled :class:`Template`, and :func:`compile_template`;
- :mod:`.mismatch`: where a line stops matching a template, in words.

The values a template reads are :mod:`errorkb.core.values`.  Nothing here imports Sphinx.
"""

from .catch_all import COMMON_WORDS, MIN_LITERAL, refuse_catch_all
from .grammar import OptionalPart, Placeholder, PositionedError, Segment, TemplateError, parse
from .layout import EDGE, Layout
from .linearity import prove_linear
from .mismatch import where_it_stops
from .placeholders import TYPES
from .template import MAX_LINE, WORD, Template, build, compile_template
from .writer import escape

__all__ = ["COMMON_WORDS", "EDGE", "MAX_LINE", "MIN_LITERAL", "TYPES", "WORD", "Layout", "OptionalPart", "Placeholder",
           "PositionedError", "Segment", "Template", "TemplateError", "build", "compile_template", "escape", "parse",
           "prove_linear", "refuse_catch_all", "where_it_stops"]
