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
from collections.abc import Callable
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.util.docutils import SphinxDirective

from ..core.diagnoses import fix_anchor, label_of
from ..core.records import Example, Record
from ..core.templates import TYPES, OptionalPart, Placeholder, Segment
from .badges import badge, titled
from .config import settings
from .contribute import edit_link
from .design import dropdown, tab_set
from .diagnoses_table import diagnoses_section
from .domain import err_domain, generated_xref, link_text
from .indexes import index_link
from .what_to_do import what_to_do

SEE_ALSO = "See also"  # the last section of a record page: related errors, references, referenced by

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#{}|~$])")


def assemble(app: Sphinx, docname: str, content: list[str]) -> None:
    """``source-read``: put the rendered header in place of the front matter."""
    record = err_domain(app.env).record_for(docname)
    if record is None:
        return
    title = _MD_SPECIAL.sub(r"\\\1", link_text(app.config, record.code, record.title))
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
    """The template as the message reads: each placeholder shown by its label, each optional part
    marked as such (a run of optional parts alike, one per process say, shown once), no syntax."""
    text = record.messages[index].template
    block = nodes.literal_block(text, classes=["errorkb-template"], language="text")
    block.children = []

    def add(parent: nodes.Element, segments: tuple[Segment, ...]) -> None:
        previous = None
        for segment in segments:
            if isinstance(segment, OptionalPart):
                shape = _shape(segment)
                if shape == previous:
                    continue
                previous = shape
                part = titled(classes=["errorkb-optional"], title="printed only in some releases or cases")
                add(part, segment.segments)
                parent.append(part)
                continue
            previous = None
            if isinstance(segment, Placeholder):
                label = label_of(segment.name, record.labels)
                parent.append(titled(label, label, classes=["errorkb-placeholder", f"errorkb-type-{segment.type}"],
                                     title=f"{segment.name}, {segment.type}: {TYPES[segment.type].doc}"))
            else:
                parent.append(nodes.Text(segment))

    add(block, record.templates[index].segments)
    return block


def _shape(part: OptionalPart) -> tuple[str, ...]:
    """An optional part's literal text and placeholder types: alike parts differ only in names."""
    return tuple(s if isinstance(s, str) else getattr(s, "type", "") for s in part.segments)


Note = Callable[[str, int], list[nodes.Node]]  # a message's note and its line -> its nodes


def message_card(record: Record, i: int, examples: int, note: Note) -> nodes.container:
    """One message: its wording, its note, and its first ``examples`` examples (the rest folded)."""
    message = record.messages[i]
    card = nodes.container(classes=["errorkb-message"])
    card += template_node(record, i)
    if message.note:
        card += note(message.note, record.line_of(f"messages[{i}].note"))
    card += examples_node(message.examples, examples)
    return card


def messages_section(document: nodes.document, record: Record, note: Note) -> nodes.section:
    """The first wording with its first example; the other wordings and examples folded."""
    section = _section(document, "Messages", "messages")
    section += message_card(record, 0, 1, note)
    others = len(record.messages) - 1
    if others:
        title = f"{others} other wording{'s' if others > 1 else ''} of the message"
        section += dropdown(title, [message_card(record, i, SHOWN_EXAMPLES, note) for i in range(1, len(record.messages))],
                            ["errorkb-more-messages"])
    return section


class RecordDirective(SphinxDirective):
    """The header of a record's page: summary, badges and its messages."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        record = err_domain(self.env).catalogue.records[self.arguments[0]]

        index = addnodes.index(entries=[("single", f"{link_text(self.config, record.code, record.title)}; {record.id}", "", "", None)])
        summary = nodes.paragraph(text=record.summary, ids=[record.id], classes=["errorkb-summary"])
        badges = nodes.paragraph(classes=["errorkb-badges"])
        for field in settings(self.config).schema.dimensions:
            if not field.badge:
                continue
            for value in record.values(field.name):
                # Free text says nothing alone (a release, "9.0"): it is shown after the field's label.
                label = f"{field.label} {value}" if field.free else field.label_of(value)
                shown: nodes.Element = badge(label, field.badge, field.label)
                if field.index:
                    link = index_link(field, value, f"All errors with {field.label.lower()} {label}")
                    link += shown
                    shown = link
                badges += [shown, nodes.Text(" ")]

        document = self.state.document
        in_title = settings(self.config).code_in_title
        about = [node for node in (_codes(record, in_title), _checked(record)) if node is not None]
        return [index, summary, *about, badges, *what_to_do(document, record, settings(self.config).schema.fixes_section),
                messages_section(document, record, self._note), *diagnoses_section(document, record)]


    def _note(self, note: str, line: int) -> list[nodes.Node]:
        """A message's note: inline Markdown (code, emphasis, links) as in the prose; an HTML tag
        in it (``at <file>:<line>``) is text, as a note was before it was Markdown."""
        parsed, problems = self.parse_inline(note, lineno=line)
        para = nodes.paragraph("", "", *parsed, classes=["errorkb-note"])
        for raw in list(para.findall(nodes.raw)):
            raw.replace_self(nodes.Text(raw.astext()))
        return [para, *problems]


def _codes(record: Record, in_title: bool) -> nodes.paragraph | None:
    """The codes the title does not show: those beyond the first, or all where titles show none."""
    shown = record.codes[1:] if in_title else record.codes
    if not shown:
        return None
    lead = "Also printed with the code" if in_title else "Printed with the code"
    para = nodes.paragraph(text=lead + ("s " if len(shown) > 1 else " "), classes=["errorkb-codes"])
    for i, code in enumerate(shown):
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


def examples_node(examples: list[Example], shown: int = SHOWN_EXAMPLES) -> nodes.container:
    """A message's examples: the first ``shown`` open, long logs and the rest folded."""
    out = nodes.container(classes=["errorkb-examples"])
    out += nodes.paragraph(text="Seen in real logs:" if len(examples) > 1 else "Seen in a real log:",
                           classes=["errorkb-examples-label"])
    for example in examples[:shown]:
        out += example_nodes(example)
    rest = examples[shown:]
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
        domain.note_related_shown(self.env.docname, related_ids)
        out: list[nodes.Node] = []
        if related_ids:
            out.append(footer_group("Related errors", "related-errors", [
                nodes.paragraph("", "", generated_xref(rel, self.env.docname)) for rel in related_ids]))
        out.append(referenced_by(record_id=record.id))
        if record.references:
            out.append(footer_group("References", "references", [
                nodes.paragraph("", "", nodes.reference(url, url, refuri=url)) for url in record.references]))
        edit = edit_link(self.config, record.path)
        return out + ([edit] if edit is not None else [])


def footer_group(title: str, slug: str, items: list[nodes.paragraph]) -> nodes.container:
    """One group of links in "See also": a heading that stays out of the table of contents, and a list."""
    group = nodes.container(ids=[slug], classes=["errorkb-footer-group", f"errorkb-{slug}"])
    group += nodes.rubric(text=title)
    links = nodes.bullet_list()
    links += [nodes.list_item("", item) for item in items]
    group += links
    return group


def fixes_section(document: nodes.document, title: str) -> nodes.section | None:
    """The section of a record page that holds the fixes (not the "What to do" list that links to them)."""
    page = next(document.findall(nodes.section), None)
    return next((s for s in page.children if isinstance(s, nodes.section) and s[0].astext() == title
                 and "errorkb-what-to-do" not in s["classes"]), None) if page else None


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
    section ids, made from the titles as written, do not change, and each fix gains the id
    ``fix-N`` that the "What to do" list, the diagnoses and the lookup link to.
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
            section["ids"].append(fix_anchor(number))
            self.document.ids[fix_anchor(number)] = section
            title = section[0]
            assert isinstance(title, nodes.title)  # a section's first child
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
