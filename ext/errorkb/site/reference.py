"""Directives that document errorkb from the code and the site's configuration, so the docs cannot drift.

``err:placeholder-types`` lists the placeholder types of message templates; ``err:fields`` the
site's own front-matter fields; ``err:vocabulary`` the values of one of them; ``err:options``
every ``errorkb_*`` option with its default.
"""

from __future__ import annotations

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from ..core.settings import OPTIONS
from ..core.templates import TYPES
from .config import settings
from .domain import err_domain, err_role


def _definition_list(items: list[tuple[str, str]]) -> nodes.definition_list:
    out = nodes.definition_list()
    for term, text in items:
        item = nodes.definition_list_item()
        item += nodes.term("", "", nodes.literal(term, term))
        item += nodes.definition("", nodes.paragraph(text=text))
        out += item
    return out


class PlaceholderTypes(SphinxDirective):
    """The placeholder types of message templates."""

    def run(self) -> list[nodes.Node]:
        return [_definition_list([(name, kind.doc) for name, kind in TYPES.items()])]


class Fields(SphinxDirective):
    """The site's fields: what each holds and where it shows."""

    def run(self) -> list[nodes.Node]:
        items = []
        for field in settings(self.config).schema.fields:
            kind = ("a list of " if field.many else "one ") + (
                "free text" if field.free else "value" + ("s" if field.many else "") + (
                    ", any lower-case slug; those listed below have labels" if field.open else ", from the list below"))
            shown = [where for where, on in (("a badge", field.badge), ("a column", field.column), ("a filter", field.filter),
                                             ("index pages", field.index), ("errors.json", field.json)) if on]
            text = f"{field.label}: {kind}; {'required' if field.required else 'optional'}."
            if shown:
                text += f" Shown as {', '.join(shown)}."
            items.append((field.name, text))
        return [_definition_list(items)] if items else [nodes.paragraph(text="This site declares no fields of its own.")]


class Vocabulary(SphinxDirective):
    """The values of one field (its name the argument), with their labels."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        schema = settings(self.config).schema
        names = [f.name for f in schema.dimensions if f.values or f.name == "source"]
        if self.arguments[0] not in names:
            raise self.error(f"no field {self.arguments[0]!r} with values (fields with values: {', '.join(names)})")
        return [_definition_list(list(schema.field(self.arguments[0]).values.items()))]


class Options(SphinxDirective):
    """Every ``errorkb_*`` option, its default and what it does."""

    def run(self) -> list[nodes.Node]:
        out = nodes.definition_list()
        for option in OPTIONS:
            item = nodes.definition_list_item()
            item += nodes.term("", "", nodes.literal(option.name, option.name))
            definition = nodes.definition()
            text = StringList([option.doc, "", f"Default: ``{option.default!r}``."], "errorkb.core.settings")
            self.state.nested_parse(text, self.content_offset, definition)
            item += definition
            out += item
        return [out]


#: Directives that the page assembly writes; an author never does.
INTERNAL = ("record", "record-footer")


class Directives(SphinxDirective):
    """Every directive and role errorkb gives an author, with what it does."""

    def run(self) -> list[nodes.Node]:
        found = [(f"{{err:{name}}}", cls) for name, cls in sorted(err_domain(self.env).directives.items())
                 if name not in INTERNAL]
        found += [(f"{{{name}}}", cls) for name, cls in sorted(directives._directives.items())  # type: ignore[attr-defined]
                  if getattr(cls, "__module__", "").startswith("errorkb.") and isinstance(cls, type)]
        items = [(name, _first_paragraph(cls.__doc__)) for name, cls in found]
        items.append(("{err}`id or code`", _first_paragraph(err_role.__doc__)))
        return [_definition_list(items)]


def _first_paragraph(doc: str | None) -> str:
    return " ".join((doc or "").strip().split("\n\n")[0].split()).replace("``", "")


def setup_reference(app: Sphinx) -> None:
    app.add_directive_to_domain("err", "placeholder-types", PlaceholderTypes)
    app.add_directive_to_domain("err", "fields", Fields)
    app.add_directive_to_domain("err", "vocabulary", Vocabulary)
    app.add_directive_to_domain("err", "options", Options)
    app.add_directive_to_domain("err", "directives", Directives)
