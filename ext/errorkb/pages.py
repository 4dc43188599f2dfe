"""A record's page: the front matter becomes a rendered header, in memory, during the build.

At ``source-read`` the YAML front matter of ``errors/<source>/<id>.md`` is swapped for a title
and an ``err:record`` directive of the same number of lines (so warnings in the prose keep
their line numbers), and an ``err:record-footer`` directive is appended.  The directives
render the structured fields from the catalogue loaded at ``builder-inited``.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.errors import SphinxError
from sphinx.util.docutils import SphinxDirective

from .domain import ErrorDomain, link_text
from .record_cache import load_catalogue_cached
from .records import CATEGORIES, PHASES, PLATFORMS, Catalogue, Record
from .templates import TYPES, Placeholder


class InvalidRecords(SphinxError):
    category = "Invalid error records"


def catalogue_of(env: Any) -> Catalogue:
    return env.get_domain("err").catalogue


def load(app: Sphinx) -> None:
    """Load and check every record before any page is read; stop the build on any problem."""
    srcdir = Path(app.srcdir)
    records_dir = srcdir / app.config.errorkb_records_dir
    catalogue, problems = load_catalogue_cached(records_dir, srcdir, Path(app.doctreedir))
    if problems:
        raise InvalidRecords("\n".join(map(str, problems)))
    domain: ErrorDomain = app.env.get_domain("err")  # type: ignore[assignment]
    domain.catalogue = catalogue


def record_for(app: Sphinx, docname: str) -> Record | None:
    prefix = app.config.errorkb_records_dir.strip("/") + "/"
    if not docname.startswith(prefix):
        return None
    return catalogue_of(app.env).records.get(docname.rsplit("/", 1)[-1])


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#{}|~$])")


def assemble(app: Sphinx, docname: str, content: list[str]) -> None:
    """``source-read``: put the rendered header in place of the front matter."""
    record = record_for(app, docname)
    if record is None:
        return
    title = _MD_SPECIAL.sub(r"\\\1", link_text(record.code, record.title))
    header = [f"# {title}", f"```{{err:record}} {record.id}", "```"]
    header += [""] * max(0, record.frontmatter_lines - len(header))
    footer = ["", f"```{{err:record-footer}} {record.id}", "```", ""]
    content[0] = "\n".join(header) + "\n" + record.body.rstrip("\n") + "\n" + "\n".join(footer)


def _badge(text: str, colour: str) -> nodes.inline:
    return nodes.inline(text=text, classes=["sd-badge", f"sd-bg-{colour}", f"sd-bg-text-{colour}"])


def _section(document: nodes.document, title: str, slug: str) -> nodes.section:
    section = nodes.section(ids=[slug], names=[nodes.fully_normalize_name(title)])
    section += nodes.title(text=title)
    document.note_implicit_target(section)
    return section


def template_node(record: Record, index: int) -> nodes.literal_block:
    """The template as a code block with each placeholder marked up."""
    text = record.messages[index].template
    block = nodes.literal_block(text, classes=["errorkb-template"])
    block.children = []
    compiled = record.templates[index][0]
    for segment in compiled.segments:
        if isinstance(segment, Placeholder):
            label = f"{{{segment.name}}}"
            block += nodes.inline(label, label, classes=["errorkb-placeholder", f"errorkb-type-{segment.type}"])
            block[-1]["title"] = f"{segment.type}: {TYPES[segment.type][1]}"
        else:
            block += nodes.Text(segment)
    return block


class RecordDirective(SphinxDirective):
    """The header of a record's page: summary, badges and its messages."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        record = catalogue_of(self.env).records[self.arguments[0]]
        domain: ErrorDomain = self.env.get_domain("err")  # type: ignore[assignment]
        domain.note_error(record.id, self.env.docname, record.code, record.title, record.aliases)
        self.env.metadata[self.env.docname]["errorkb-id"] = record.id

        index = addnodes.index(entries=[("single", f"{link_text(record.code, record.title)}; {record.id}", "", "", None)])
        summary = nodes.paragraph(text=record.summary, classes=["errorkb-summary"])
        badges = nodes.paragraph(classes=["errorkb-badges"])
        for text, colour in [
            (record.source, "primary"),
            *((PLATFORMS[p], "info") for p in record.platforms),
            *((f, "secondary") for f in record.frameworks),
            (PHASES[record.phase], "warning"),
            (CATEGORIES[record.category], "light"),
        ]:
            badges += _badge(text, colour)
            badges += nodes.Text(" ")

        messages = _section(self.state.document, "Messages", "messages")
        for i, message in enumerate(record.messages):
            messages += template_node(record, i)
            if message.note:
                messages += nodes.paragraph(text=message.note, classes=["errorkb-note"])
            examples = nodes.container(classes=["errorkb-examples"])
            examples += nodes.paragraph(text="Seen in real logs:" if len(message.examples) > 1 else "Seen in a real log:", classes=["errorkb-examples-label"])
            for example in message.examples:
                examples += nodes.literal_block(example, example, language="text", classes=["errorkb-example"])
            messages += examples
        return [index, summary, badges, messages]


class RecordFooterDirective(SphinxDirective):
    """Related errors and references, after the prose."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        record = catalogue_of(self.env).records[self.arguments[0]]
        out: list[nodes.Node] = []
        if record.related:
            related = _section(self.state.document, "Related errors", "related-errors")
            items = nodes.bullet_list()
            for rel in record.related:
                ref = addnodes.pending_xref("", refdomain="err", reftype="err", reftarget=rel,
                                            refexplicit=False, refwarn=True, refdoc=self.env.docname)
                ref += nodes.literal(rel, rel)
                items += nodes.list_item("", nodes.paragraph("", "", ref))
            related += items
            out.append(related)
        if record.references:
            refs = _section(self.state.document, "References", "references")
            items = nodes.bullet_list()
            for url in record.references:
                items += nodes.list_item("", nodes.paragraph("", "", nodes.reference(url, url, refuri=url)))
            refs += items
            out.append(refs)
        return out


def add_meta(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """A record's summary is its page's meta description."""
    record = record_for(app, pagename)
    if record is not None:
        context["metatags"] = context.get("metatags", "") + (
            f'\n<meta name="description" content="{html.escape(record.summary)}">'
        )


def setup_pages(app: Sphinx) -> None:
    app.add_directive_to_domain("err", "record", RecordDirective)
    app.add_directive_to_domain("err", "record-footer", RecordFooterDirective)
    app.connect("builder-inited", load)
    app.connect("source-read", assemble)
    app.connect("html-page-context", add_meta)
