"""A record's page: the front matter becomes a rendered header, in memory, during the build.

At ``source-read`` the YAML front matter of ``errors/<source>/<id>.md`` is swapped for a title
and an ``err:record`` directive of the same number of lines (so warnings in the prose keep
their line numbers), behind ``orphan: true`` so that a site need not list every record in a
toctree (its navigation can list sources instead, see ``errorkb-sources.html``), and a "See
also" section holding an ``err:record-footer`` directive is appended, so related errors and
references sit beside the last section, not inside it.  The directives render the structured
fields of the record, kept in the ``err`` domain (:mod:`.domain`); :class:`VariantTabs` shows a
fix's variants (per framework, say) as tabs and :class:`NumberFixes`
numbers the fixes in the order to try them.
"""

from __future__ import annotations

import html
import re
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.util.docutils import SphinxDirective

from .badges import badge
from .config import settings
from .design import dropdown, tab_set
from .diagnoses_table import diagnoses_section
from .domain import err_domain, generated_xref, link_text
from .indexes import index_link
from ..core.records import Example, Record
from ..core.templates import TYPES, OptionalPart, Placeholder, Segment

SEE_ALSO = "See also"  # the last section of a record page: related errors, references, referenced by

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#{}|~$])")


def assemble(app: Sphinx, docname: str, content: list[str]) -> None:
    """``source-read``: put the rendered header in place of the front matter."""
    record = err_domain(app.env).record_for(docname)
    if record is None:
        return
    title = _MD_SPECIAL.sub(r"\\\1", link_text(record.code, record.title))
    header = ["---", "orphan: true", "---", f"# {title}", f"```{{err:record}} {record.id}", "```"]
    header += [""] * max(0, record.frontmatter_lines - len(header))
    footer = ["", f"## {SEE_ALSO}", "", f"```{{err:record-footer}} {record.id}", "```", ""]
    content[0] = "\n".join(header) + "\n" + record.body.rstrip("\n") + "\n" + "\n".join(footer)


class referenced_by(nodes.General, nodes.Element):
    """Where "Referenced by" goes; filled in when the page is written, once every page is read."""


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
    compiled = record.templates[index]

    def add(segments: tuple[Segment, ...]) -> None:
        for segment in segments:
            if isinstance(segment, OptionalPart):
                block.append(nodes.Text("{?"))
                add(segment.segments)
                block.append(nodes.Text("}"))
            elif isinstance(segment, Placeholder):
                label = f"{{{segment.name}}}"
                block.append(nodes.inline(label, label, classes=["errorkb-placeholder", f"errorkb-type-{segment.type}"],
                                          title=f"{segment.type}: {TYPES[segment.type].doc}"))
            else:
                block.append(nodes.Text(segment))

    add(compiled.segments)
    return block


class RecordDirective(SphinxDirective):
    """The header of a record's page: summary, badges and its messages."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        domain = err_domain(self.env)
        record = domain.catalogue.records[self.arguments[0]]
        domain.note_error(record.id, self.env.docname, record.code, record.title, [*record.codes[1:], *record.aliases])

        index = addnodes.index(entries=[("single", f"{link_text(record.code, record.title)}; {record.id}", "", "", None)])
        summary = nodes.paragraph(text=record.summary, classes=["errorkb-summary"])
        badges = nodes.paragraph(classes=["errorkb-badges"])
        for field in settings(self.config).schema.dimensions:
            for value in record.values(field.name) if field.badge else ():
                label = field.label_of(value)
                shown: nodes.Element = badge(label, field.badge)
                if field.index:
                    link = index_link(field, value, f"All errors with {field.label.lower()} {label}")
                    link += shown
                    shown = link
                badges += [shown, nodes.Text(" ")]

        messages = _section(self.state.document, "Messages", "messages")
        for i, message in enumerate(record.messages):
            card = nodes.container(classes=["errorkb-message"])
            card += template_node(record, i)
            if message.note:
                card += nodes.paragraph(text=message.note, classes=["errorkb-note"])
            card += examples_node(message.examples)
            messages += card
        about = [node for node in (_other_codes(record), _checked(record)) if node is not None]
        return [index, summary, *about, badges, messages, *diagnoses_section(self.state.document, record)]


def _other_codes(record: Record) -> nodes.paragraph | None:
    """The codes beyond the one in the title, where the vendor prints the error under several."""
    if len(record.codes) < 2:
        return None
    para = nodes.paragraph(text="Also printed with the code" + ("s " if len(record.codes) > 2 else " "),
                           classes=["errorkb-codes"])
    for i, code in enumerate(record.codes[1:]):
        para += [nodes.Text(", " if i else ""), nodes.literal(text=code)]
    para += nodes.Text(".")
    return para


def _checked(record: Record) -> nodes.paragraph | None:
    """What the page's facts were checked against, and when."""
    if record.checked is None:
        return None
    releases = [f"{product} {release}" for product, release in record.checked.against.items()]
    listed = releases[0] if len(releases) == 1 else ", ".join(releases[:-1]) + " and " + releases[-1]
    return nodes.paragraph(text=f"Checked against {listed} on {record.checked.date}.", classes=["errorkb-checked"])


SHOWN_EXAMPLES = 3  # examples shown open; the others fold into a dropdown
LONG_EXAMPLE = 12  # lines: a longer example (a whole log) is folded on its own


def examples_node(examples: list[Example]) -> nodes.container:
    """A message's examples: the first few open, long logs and the rest folded."""
    out = nodes.container(classes=["errorkb-examples"])
    out += nodes.paragraph(text="Seen in real logs:" if len(examples) > 1 else "Seen in a real log:",
                           classes=["errorkb-examples-label"])
    for example in examples[:SHOWN_EXAMPLES]:
        out += example_nodes(example)
    rest = examples[SHOWN_EXAMPLES:]
    if rest:
        more = f"{len(rest)} more example{'s' if len(rest) > 1 else ''}"
        out += dropdown(more, [node for example in rest for node in example_nodes(example)], ["errorkb-more-examples"])
    return out


def example_nodes(example: Example) -> list[nodes.Node]:
    block = nodes.literal_block(example.text, example.text, language="text", classes=["errorkb-example"])
    lines = example.text.strip().splitlines()
    shown: list[nodes.Node] = [block]
    if len(lines) > LONG_EXAMPLE:
        shown = [dropdown(f"A log of {len(lines)} lines ending: {short_text(lines[-1].strip())}", [block],
                          ["errorkb-long-example"])]
    return shown + ([seen_at(example.seen)] if example.seen else [])


def short_text(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def seen_at(url: str) -> nodes.paragraph:
    """The line under an example that links to where it was seen."""
    para = nodes.paragraph(classes=["errorkb-seen"])
    para += nodes.Text("Seen at ")
    para += nodes.reference(url, short_url(url), refuri=url)
    return para


def short_url(url: str, limit: int = 60) -> str:
    """``url`` without its scheme, ``www.`` and a trailing slash, cut to ``limit`` characters."""
    return short_text(re.sub(r"^https?://(www\.)?", "", url).rstrip("/"), limit)


class RecordFooterDirective(SphinxDirective):
    """Inside "See also": related errors (declared on either side), the pages that link here, references."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        domain = err_domain(self.env)
        record = domain.catalogue.records[self.arguments[0]]
        related_ids = domain.related[record.id]
        domain.data["shown_related"][self.env.docname] = related_ids
        out: list[nodes.Node] = []
        if related_ids:
            out.append(footer_group("Related errors", "related-errors", [
                nodes.paragraph("", "", generated_xref(rel, self.env.docname)) for rel in related_ids]))
        out.append(referenced_by(record_id=record.id))
        if record.references:
            out.append(footer_group("References", "references", [
                nodes.paragraph("", "", nodes.reference(url, url, refuri=url)) for url in record.references]))
        return out


def footer_group(title: str, slug: str, items: list[nodes.paragraph]) -> nodes.container:
    """One group of links in "See also": a heading that stays out of the table of contents, and a list."""
    group = nodes.container(ids=[slug], classes=["errorkb-footer-group", f"errorkb-{slug}"])
    group += nodes.rubric(text=title)
    links = nodes.bullet_list()
    links += [nodes.list_item("", item) for item in items]
    group += links
    return group


def fixes_section(document: nodes.document, title: str) -> nodes.section | None:
    """The section of a record page that holds the fixes."""
    page = next(document.findall(nodes.section), None)
    return next((s for s in page.children if isinstance(s, nodes.section) and s[0].astext() == title), None) if page else None


class VariantTabs(SphinxTransform):
    """On a record page, show a fix's sub-sections that name values of the site's variants field
    (frameworks, say) as tabs of one sync group, named after the field.

    Runs before the table of contents is collected, so the variants stay out of it.
    """

    default_priority = 790

    def apply(self, **kwargs: Any) -> None:
        schema = settings(self.config).schema
        field = schema.variants
        if field is None or err_domain(self.env).record_for(self.env.docname) is None:
            return
        fixes = fixes_section(self.document, schema.fixes_section)
        for fix in [c for c in fixes.children if isinstance(c, nodes.section)] if fixes else []:
            variants = [(s, slug) for s in fix.children
                        if isinstance(s, nodes.section) and (slug := field.named_by(s[0].astext()))]
            if len(variants) < 2:
                continue
            tabs = tab_set([(field.label_of(slug), slug, list(s.children[1:])) for s, slug in variants],
                           field.slug, ["errorkb-variants"])
            at = fix.index(variants[0][0])
            for section, _ in variants:
                fix.remove(section)
            fix.insert(at, tabs)


class NumberFixes(SphinxTransform):
    """On a record page, put "1.", "2.", ... before the fixes' titles: the order to try them.

    The number is part of the title, so the page's table of contents shows it too; the
    section ids, made from the titles as written, do not change.
    """

    default_priority = 800

    def apply(self, **kwargs: Any) -> None:
        if err_domain(self.env).record_for(self.env.docname) is None:
            return
        fixes = fixes_section(self.document, settings(self.config).schema.fixes_section)
        if fixes is None:
            return
        fix_sections = [child for child in fixes.children if isinstance(child, nodes.section)]
        for number, section in enumerate(fix_sections, start=1):
            title = section[0]
            title.insert(0, nodes.Text(" "))
            title.insert(0, nodes.inline(text=f"{number}.", classes=["errorkb-fix-number"]))


def add_meta(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """A record's summary is its page's meta description."""
    record = err_domain(app.env).record_for(pagename)
    if record is not None:
        context["metatags"] = context.get("metatags", "") + (
            f'\n<meta name="description" content="{html.escape(record.summary)}">'
        )


def setup_pages(app: Sphinx) -> None:
    app.add_directive_to_domain("err", "record", RecordDirective)
    app.add_directive_to_domain("err", "record-footer", RecordFooterDirective)
    app.add_transform(VariantTabs)
    app.add_transform(NumberFixes)
    app.connect("source-read", assemble)
    app.connect("html-page-context", add_meta)
