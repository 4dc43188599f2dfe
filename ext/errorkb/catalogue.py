"""``err:catalogue``: the table of every error, for the landing page."""

from __future__ import annotations

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from .pages import catalogue_of
from .records import PHASES, PLATFORMS

COLUMNS = ("Code", "Error", "Platforms", "Phase")


def _row(cells: list[nodes.Node]) -> nodes.row:
    row = nodes.row()
    for cell in cells:
        entry = nodes.entry()
        entry += cell if isinstance(cell, nodes.paragraph) else nodes.paragraph("", "", cell)
        row += entry
    return row


class CatalogueDirective(SphinxDirective):
    """A table of all records, by source then id, each linking to its page."""

    def run(self) -> list[nodes.Node]:
        records = sorted(catalogue_of(self.env).records.values(), key=lambda r: (r.source, r.id))
        table = nodes.table(classes=["errorkb-catalogue"])
        group = nodes.tgroup(cols=len(COLUMNS))
        table += group
        group += [nodes.colspec(colwidth=w) for w in (2, 6, 2, 2)]
        head = nodes.thead()
        head += _row([nodes.Text(c) for c in COLUMNS])
        group += head
        body = nodes.tbody()
        for record in records:
            ref = addnodes.pending_xref("", refdomain="err", reftype="err", reftarget=record.id,
                                        refexplicit=True, refdoc=self.env.docname)
            ref += nodes.inline(text=record.title)
            body += _row([
                nodes.literal(text=record.code or record.id),
                ref,
                nodes.Text(", ".join(PLATFORMS[p] for p in record.platforms)),
                nodes.Text(PHASES[record.phase]),
            ])
        group += body
        return [table]


def setup_catalogue(app: Sphinx) -> None:
    app.add_directive_to_domain("err", "catalogue", CatalogueDirective)
