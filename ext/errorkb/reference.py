"""Directives that document the record format from the code itself, so the docs cannot drift.

``err:placeholder-types`` lists the placeholder types of message templates;
``err:vocabulary`` lists the allowed values of ``platforms``, ``phase`` and ``category``, and the
labels of ``frameworks``.
"""

from __future__ import annotations

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from .records import CATEGORIES, FRAMEWORKS, PHASES, PLATFORMS
from .templates import TYPES

VOCABULARIES = {"platforms": PLATFORMS, "frameworks": FRAMEWORKS, "phase": PHASES, "category": CATEGORIES}


def _definition_list(items: list[tuple[str, str]]) -> nodes.definition_list:
    out = nodes.definition_list()
    for term, text in items:
        item = nodes.definition_list_item()
        item += nodes.term("", "", nodes.literal(term, term))
        item += nodes.definition("", nodes.paragraph(text=text))
        out += item
    return out


class PlaceholderTypes(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        return [_definition_list([(name, doc) for name, (_, doc) in TYPES.items()])]


class Vocabulary(SphinxDirective):
    required_arguments = 1
    option_spec = {"class": directives.class_option}

    def run(self) -> list[nodes.Node]:
        field = self.arguments[0]
        if field not in VOCABULARIES:
            raise self.error(f"unknown field {field!r} (known: {', '.join(VOCABULARIES)})")
        return [_definition_list(list(VOCABULARIES[field].items()))]


def setup_reference(app: Sphinx) -> None:
    app.add_directive_to_domain("err", "placeholder-types", PlaceholderTypes)
    app.add_directive_to_domain("err", "vocabulary", Vocabulary)
