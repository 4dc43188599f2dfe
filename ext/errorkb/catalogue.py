"""The landing page's views of the catalogue: ``err:catalogue``, the table of every error, and
``err:sources``, a card per source.

The table is plain HTML that works without scripts.  ``errorkb-catalogue.js`` adds filters (text,
source, platform, framework, phase, category) and sorting by any column, and keeps their state in
the page's query string (``?platform=tpu&sort=-phase``) so that a filtered view can be shared.
Each row carries its values as classes (``errorkb-f-platform-tpu``) for the script to read.
"""

from __future__ import annotations

import hashlib
import html
import json

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from .gc_pause import gc_paused
from .domain import generated_xref
from .indexes import DIMENSIONS, OVERVIEW, grouped, page_link, point_at_page
from .domain import err_domain
from .records import PHASES, PLATFORMS, Catalogue, Record

COLUMNS = ("Code", "Error", "First message", "Platforms", "Phase")
# Each cell's class, errorkb-col-<key>: narrow screens lay a row out as a card by column.
COLUMN_KEYS = ("code", "error", "message", "platforms", "phase")
SCRIPT = "errorkb-catalogue.js"


def fingerprint(catalogue: Catalogue) -> str:
    """Changes whenever anything the table shows changes."""
    rows = [[r.id, r.code, r.title, r.source, r.messages[0].template, r.platforms, r.frameworks, r.phase, r.category]
            for r in _ordered(catalogue)]
    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()


def _ordered(catalogue: Catalogue) -> list[Record]:
    return sorted(catalogue.records.values(), key=lambda r: (r.source, r.id))


def _row(cells: list[nodes.Node], classes: list[str] | None = None) -> nodes.row:
    row = nodes.row(classes=classes or [])
    for key, cell in zip(COLUMN_KEYS, cells, strict=True):
        entry = nodes.entry(classes=[f"errorkb-col-{key}"])
        entry += cell if isinstance(cell, nodes.paragraph) else nodes.paragraph("", "", cell)
        row += entry
    return row


def _filters(catalogue: Catalogue) -> str:
    """The filter form, hidden until the script shows it."""
    fields = ['<label>Text <input type="search" name="q" placeholder="code, title or message"></label>']
    for dimension in DIMENSIONS:
        options = "".join(
            f'<option value="{html.escape(v)}">{html.escape(dimension.label(v))}</option>'
            for v in grouped(catalogue, dimension)
        )
        fields.append(f'<label>{dimension.title} <select name="{dimension.name}">'
                      f'<option value="">all</option>{options}</select></label>')
    return ('<form class="errorkb-filters" hidden>' + "".join(fields)
            + '<button type="reset">Clear</button> <output class="errorkb-count"></output></form>')


class CatalogueDirective(SphinxDirective):
    """A table of all records, by source then id, each linking to its page."""

    def run(self) -> list[nodes.Node]:
        with gc_paused():  # a dozen nodes a row, thousands of rows, and no garbage
            return self._table()

    def _table(self) -> list[nodes.Node]:
        domain = err_domain(self.env)
        catalogue = domain.catalogue
        domain.data["catalogues"][self.env.docname] = fingerprint(catalogue)
        self.env.metadata[self.env.docname]["errorkb-catalogue"] = True

        browse = nodes.paragraph(classes=["errorkb-browse"])
        browse += nodes.Text("Browse by ")
        for i, dimension in enumerate(DIMENSIONS):
            link = page_link(OVERVIEW, f"Errors by {dimension.title.lower()}", anchor=dimension.name)
            link += nodes.Text(dimension.title.lower())
            browse += [nodes.Text(", " if i else ""), link]
        browse += nodes.Text(".")

        table = nodes.table(classes=["errorkb-catalogue"])
        group = nodes.tgroup(cols=len(COLUMNS))
        table += group
        group += [nodes.colspec(colwidth=w) for w in (2, 4, 6, 2, 2)]
        head = nodes.thead()
        head += _row([nodes.Text(c) for c in COLUMNS])
        group += head
        body = nodes.tbody()
        for record in _ordered(catalogue):
            classes = ["errorkb-row"] + [
                f"errorkb-f-{d.name}-{v}" for d in DIMENSIONS for v in d.values(record)
            ]
            body += _row([
                nodes.literal(text=record.code or record.id),
                generated_xref(record.id, self.env.docname, record.title),
                nodes.literal(text=record.messages[0].template, classes=["errorkb-first-message"]),
                nodes.Text(", ".join(PLATFORMS[p] for p in record.platforms)),
                nodes.Text(PHASES[record.phase]),
            ], classes)
        group += body
        return [browse, nodes.raw("", _filters(catalogue), format="html"), table]


class SourceCards(SphinxDirective):
    """``err:sources``: a grid of cards, one per source with its count of errors, leading to its index page."""

    def run(self) -> list[nodes.Node]:
        source = next(d for d in DIMENSIONS if d.name == "source")
        groups = grouped(err_domain(self.env).catalogue, source)
        lines = ["````{grid} 2 3 4 4", ":gutter: 2", ":class-container: errorkb-sources", ""]
        for value, records in groups.items():
            lines += [f"```{{grid-item-card}} {source.label(value)}", ":link-type: url", f":link: {source.page(value)}",
                      ":class-card: errorkb-source-card", "", f"{len(records)} error{'s' if len(records) != 1 else ''}",
                      "```", ""]
        lines.append("````")
        grid = nodes.container()
        self.state.nested_parse(StringList(lines, self.env.docname), self.content_offset, grid)
        pages = {source.page(value) for value in groups}
        for ref in grid.findall(nodes.reference):  # each card's link, resolved per builder when written
            if ref.get("refuri") in pages:
                point_at_page(ref, ref["refuri"])
        return grid.children


def add_script(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: object) -> None:
    """The table's script, on the pages that have a table only."""
    if app.env.metadata.get(pagename, {}).get("errorkb-catalogue"):
        app.add_js_file(SCRIPT, loading_method="defer")


def setup_catalogue(app: Sphinx) -> None:
    app.add_directive_to_domain("err", "catalogue", CatalogueDirective)
    app.add_directive_to_domain("err", "sources", SourceCards)
    app.connect("html-page-context", add_script)
    app.add_css_file("errorkb-catalogue.css")
