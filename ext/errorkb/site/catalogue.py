"""The landing page's views of the catalogue: ``err:catalogue``, the table of every error, and
``err:sources``, a card per source.

The table is plain HTML that works without scripts: code, title, first message, then a column per
field the site declares with ``column``.  ``errorkb-catalogue.js`` adds filters (text, the source
and each field declared with ``filter``) and sorting by any column, and keeps their state in the
page's query string (``?platform=tpu&sort=-phase``) so that a filtered view can be shared.  Each
row carries its values as classes (``errorkb-f-platform-tpu``) for the script to read.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from ..core.gc_pause import gc_paused
from ..core.records import Catalogue, Record
from ..core.schema import FieldSpec, Schema
from .config import settings
from .domain import err_domain, generated_xref
from .indexes import OVERVIEW, grouped, indexed, page_link, point_at_page, value_page

#: The columns every table has (the code only where some error has one): (key, heading, width);
#: each cell's class is errorkb-col-<key>, and narrow screens lay a row out as a card by column.
COLUMNS = (("code", "Code", 2), ("error", "Error", 4), ("message", "First message", 6))
SCRIPT = "errorkb-catalogue.js"


def fingerprint(catalogue: Catalogue, schema: Schema) -> str:
    """Changes whenever anything the table shows changes."""
    rows = [[r.id, r.codes, r.title, r.messages[0].template, *(r.value(f.name) for f in schema.dimensions)]
            for r in _ordered(catalogue)]
    return hashlib.sha256(json.dumps([schema.fingerprint, rows]).encode()).hexdigest()


def _ordered(catalogue: Catalogue) -> list[Record]:
    return sorted(catalogue.records.values(), key=lambda r: (r.source, r.id))


def _row(keys: list[str], cells: Sequence[nodes.Node], classes: list[str] | None = None) -> nodes.row:
    row = nodes.row(classes=classes or [])
    for key, cell in zip(keys, cells, strict=True):
        entry = nodes.entry(classes=[f"errorkb-col-{key}"] + ([] if key in {c[0] for c in COLUMNS} else ["errorkb-col-field"]))
        entry += cell if isinstance(cell, nodes.paragraph) else nodes.paragraph("", "", cell)
        row += entry
    return row


class filters(nodes.General, nodes.Element):
    """The catalogue's filter form: ``fields`` holds (slug, label, [(value, label)]) per filter.

    Written by the template ``errorkb-filters.html`` (which a site may override), hidden until
    the script shows it; other builders leave it out.
    """


def _filters(catalogue: Catalogue, schema: Schema) -> filters:
    return filters(fields=[(field.slug, field.label, [(v, field.label_of(v)) for v in grouped(catalogue, field)])
                           for field in schema.dimensions if field.filter])


def visit_filters(self: Any, node: filters) -> None:
    self.body.append(self.builder.templates.render("errorkb-filters.html", {"fields": node["fields"]}))
    raise nodes.SkipNode


def skip(self: Any, node: nodes.Element) -> None:
    raise nodes.SkipNode


class CatalogueDirective(SphinxDirective):
    """A table of every record, by source then id, each linking to its page, with the site's
    field columns, filters and sorting."""

    def run(self) -> list[nodes.Node]:
        with gc_paused():  # a dozen nodes a row, thousands of rows, and no garbage
            return self._table()

    def _table(self) -> list[nodes.Node]:
        domain = err_domain(self.env)
        catalogue = domain.catalogue
        schema = settings(self.config).schema
        domain.note_catalogue_shown(self.env.docname, fingerprint(catalogue, schema))
        self.env.metadata[self.env.docname]["errorkb-catalogue"] = True

        browse = nodes.paragraph(classes=["errorkb-browse"])
        browse += nodes.Text("Browse by ")
        for i, field in enumerate(indexed(schema)):
            link = page_link(OVERVIEW, f"Errors by {field.label.lower()}", anchor=field.slug)
            link += nodes.Text(field.label.lower())
            browse += [nodes.Text(", " if i else ""), link]
        browse += nodes.Text(".")

        records = _ordered(catalogue)
        # The code column only where some error has a code.
        common = [(key, title, width) for key, title, width in COLUMNS if key != "code" or any(r.codes for r in records)]
        columns: list[FieldSpec] = [f for f in schema.dimensions if f.column]
        keys = [key for key, _, _ in common] + [f.name for f in columns]
        filters = [f for f in schema.dimensions if f.filter]
        table = nodes.table(classes=["errorkb-catalogue"])
        group = nodes.tgroup(cols=len(keys))
        table += group
        group += [nodes.colspec(colwidth=w) for w in (*(width for _, _, width in common), *(2 for _ in columns))]
        head = nodes.thead()
        head += _row(keys, [nodes.Text(title) for _, title, _ in common] + [nodes.Text(f.label) for f in columns])
        group += head
        body = nodes.tbody()
        for record in records:
            classes = ["errorkb-row"] + [f"errorkb-f-{f.slug}-{v}" for f in filters for v in record.values(f.name)]
            cells = {
                "code": nodes.literal(text=", ".join(record.codes)) if record.codes else nodes.Text(""),
                "error": generated_xref(record.id, self.env.docname, record.title),
                "message": nodes.literal(text=record.messages[0].template, classes=["errorkb-first-message"]),
            }
            body += _row(keys, [cells[key] for key, _, _ in common] + [
                nodes.Text(", ".join(f.label_of(v) for v in record.values(f.name))) for f in columns], classes)
        group += body
        return [browse, _filters(catalogue, schema), table]


class SourceCards(SphinxDirective):
    """A grid of cards, one per source with its count of errors, each leading to the source's index page."""

    def run(self) -> list[nodes.Node]:
        source = settings(self.config).schema.source
        groups = grouped(err_domain(self.env).catalogue, source)
        lines = ["````{grid} 2 3 4 4", ":gutter: 2", ":class-container: errorkb-sources", ""]
        for value, records in groups.items():
            lines += [f"```{{grid-item-card}} {source.label_of(value)}", ":link-type: url", f":link: {value_page(source, value)}",
                      ":class-card: errorkb-source-card", "", f"{len(records)} error{'s' if len(records) != 1 else ''}",
                      "```", ""]
        lines.append("````")
        grid = nodes.container()
        self.state.nested_parse(StringList(lines, self.env.docname), self.content_offset, grid)
        pages = {value_page(source, value) for value in groups}
        for ref in grid.findall(nodes.reference):  # each card's link, resolved per builder when written
            if ref.get("refuri") in pages:
                point_at_page(ref, ref["refuri"])
        return grid.children


def add_script(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: object) -> None:
    """The table's script, on the pages that have a table only."""
    if app.env.metadata.get(pagename, {}).get("errorkb-catalogue"):
        app.add_js_file(SCRIPT, loading_method="defer")


def setup_catalogue(app: Sphinx) -> None:
    app.add_node(filters, html=(visit_filters, None), latex=(skip, None), text=(skip, None), man=(skip, None),
                 texinfo=(skip, None))
    app.add_directive_to_domain("err", "catalogue", CatalogueDirective)
    app.add_directive_to_domain("err", "sources", SourceCards)
    app.connect("html-page-context", add_script)
    app.add_css_file("errorkb-catalogue.css")
