"""Index pages generated from the records: one page per value of every field the site indexes.

The source, and each field declared with ``index`` (:mod:`errorkb.schema`), give every value its
own page at a stable URL, ``by/<slug>/<value>.html`` (``by/platform/tpu.html``), and
``by/index.html`` lists every value of every indexed field with its count.  The pages are made at
``html-collect-pages`` from the loaded catalogue, so they cannot drift from the records and are
rebuilt in every build that reads a record; their bodies are the templates
``errorkb-by-value.html`` and ``errorkb-by-field.html``, which a site may override.

Why generated pages and not ``sphinx.domains.Index`` subclasses: a domain index is one page per
dimension whose groups get anchors from their display labels (``#cap-AWS Neuron``, with a space),
shows names as code and has no room for a summary, so a badge could not link to "all TPU errors"
at a clean URL.  Generated pages give each value a real, themed page that badges, sitemaps and
search engines can point at.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

from ..core.records import Catalogue, Record
from ..core.schema import FieldSpec, Schema
from .config import settings
from .domain import err_domain

OVERVIEW = "by/index"
BUILDERS = ("html", "dirhtml")  # builders that write one file per page, where generated pages fit
PAGE_ATTRIBUTE = "errorkb_page"  # on a reference whose target is a generated page


def value_page(field: FieldSpec, value: str) -> str:
    return f"by/{field.slug}/{value}"


def grouped(catalogue: Catalogue, field: FieldSpec) -> dict[str, list[Record]]:
    """Value -> its records (by source, then id); values in the declaration's order, the others sorted after."""
    groups: dict[str, list[Record]] = {}
    for record in sorted(catalogue.records.values(), key=lambda r: (r.source, r.id)):
        for value in record.values(field.name):
            groups.setdefault(value, []).append(record)
    order = [v for v in field.values if v in groups] + sorted(groups.keys() - field.values.keys())
    return {value: groups[value] for value in order}


def indexed(schema: Schema) -> list[FieldSpec]:
    """The fields with index pages, the source first."""
    return [f for f in schema.dimensions if f.index]


def index_link(field: FieldSpec, value: str, title: str) -> nodes.reference:
    """A link to a generated page; its URL is set when the page is written (see :func:`resolve_links`)."""
    return page_link(value_page(field, value), title)


def page_link(page: str, title: str, anchor: str = "") -> nodes.reference:
    return point_at_page(nodes.reference("", "", internal=True, refuri="", reftitle=title), page, anchor)


def point_at_page(ref: nodes.reference, page: str, anchor: str = "") -> nodes.reference:
    """Make ``ref`` a link to a generated page (see :func:`resolve_links`)."""
    ref[PAGE_ATTRIBUTE] = page
    ref["errorkb_anchor"] = anchor
    return ref


def resolve_links(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """``doctree-resolved``: point links to generated pages at their URL (HTML), or unwrap them."""
    for ref in list(doctree.findall(nodes.reference)):
        page = ref.get(PAGE_ATTRIBUTE)
        if page is None:
            continue
        if app.builder.name in BUILDERS:
            anchor = ref.get("errorkb_anchor")
            ref["refuri"] = app.builder.get_relative_uri(docname, page) + (f"#{anchor}" if anchor else "")
        else:
            ref.replace_self(ref.children)


# ---------------------------------------------------------------------------------------------
# The pages


def _count(n: int) -> str:
    return f"{n} error{'s' if n != 1 else ''}"


def _rows(app: Sphinx, pagename: str, records: list[Record]) -> list[dict[str, str]]:
    docname = settings(app.config).records_dir
    return [{"code": ", ".join(r.codes), "title": r.title, "summary": r.summary,
             "url": app.builder.get_relative_uri(pagename, f"{docname}/{r.docname}")} for r in records]


def by_value(app: Sphinx, field: FieldSpec, value: str, records: list[Record]) -> tuple[str, dict[str, Any], str]:
    pagename = value_page(field, value)
    label = field.label_of(value)
    context = {"field": field.label, "value": value, "label": label, "count": _count(len(records)),
               "codes": any(r.codes for r in records),
               "others": app.builder.get_relative_uri(pagename, OVERVIEW) + f"#{field.slug}",
               "records": _rows(app, pagename, records)}
    body = app.builder.templates.render("errorkb-by-value.html", context)
    description = f"{app.config.project}: {_count(len(records))} whose {field.label.lower()} is {label}."
    return pagename, {"title": f"{field.label}: {label}", "body": body, "errorkb_description": description}, "page.html"


def overview(app: Sphinx, catalogue: Catalogue) -> tuple[str, dict[str, Any], str]:
    fields = indexed(settings(app.config).schema)
    context = {"fields": [
        {"slug": field.slug, "label": field.label, "values": [
            {"label": field.label_of(value), "count": len(records),
             "url": app.builder.get_relative_uri(OVERVIEW, value_page(field, value))}
            for value, records in grouped(catalogue, field).items()]}
        for field in fields]}
    body = app.builder.templates.render("errorkb-by-field.html", context)
    names = ", ".join(field.label.lower() for field in fields)
    description = f"{app.config.project}: every error by {names}."
    return OVERVIEW, {"title": "Browse errors", "body": body, "errorkb_description": description}, "page.html"


def generated_pages(app: Sphinx) -> Iterator[tuple[str, dict[str, Any], str]]:
    """``html-collect-pages``: the overview and one page per value of every indexed field."""
    if app.builder.name not in BUILDERS:
        return
    catalogue = err_domain(app.env).catalogue
    yield overview(app, catalogue)
    for field in indexed(settings(app.config).schema):
        for value, records in grouped(catalogue, field).items():
            yield by_value(app, field, value, records)


def page_names(app: Sphinx, catalogue: Catalogue) -> list[str]:
    """Every generated page, for the sitemap."""
    return [OVERVIEW] + [value_page(f, v) for f in indexed(settings(app.config).schema) for v in grouped(catalogue, f)]


def sources_in_context(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """``html-page-context``: each source, with its count and the URL of its index page from this page,
    for the ``errorkb-sources.html`` sidebar block: navigation that does not grow with the catalogue."""
    if app.builder.name not in BUILDERS:
        return
    source = settings(app.config).schema.source
    context["errorkb_sources"] = [
        (source.label_of(value), app.builder.get_relative_uri(pagename, value_page(source, value)), count)
        for value, count in _source_counts(err_domain(app.env).catalogue, source)
    ]


_counted: tuple[Catalogue, list[tuple[str, int]]] | None = None  # the last catalogue counted, every page asks


def _source_counts(catalogue: Catalogue, source: FieldSpec) -> list[tuple[str, int]]:
    global _counted
    if _counted is None or _counted[0] is not catalogue:
        _counted = (catalogue, [(value, len(records)) for value, records in grouped(catalogue, source).items()])
    return _counted[1]


def setup_indexes(app: Sphinx) -> None:
    app.connect("html-collect-pages", generated_pages)
    app.connect("doctree-resolved", resolve_links)
    app.connect("html-page-context", sources_in_context)

