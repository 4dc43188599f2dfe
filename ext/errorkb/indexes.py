"""Index pages generated from the records: one page per source, platform, framework, phase and category.

Each value gets its own page at a stable URL, ``by/<dimension>/<value>.html`` (``by/platform/tpu.html``),
and ``by/index.html`` lists every value of every dimension with its count.  The pages are made at
``html-collect-pages`` from the loaded catalogue, so they cannot drift from the records and are
rebuilt in every build that reads a record.

Why generated pages and not ``sphinx.domains.Index`` subclasses: a domain index is one page per
dimension whose groups get anchors from their display labels (``#cap-AWS Neuron``, with a space),
shows names as code and has no room for a summary, so a badge could not link to "all TPU errors"
at a clean URL.  Generated pages give each value a real, themed page that badges, sitemaps and
search engines can point at.
"""

from __future__ import annotations

import dataclasses
import html
from collections.abc import Callable, Iterator
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

from .domain import err_domain
from .records import CATEGORIES, FRAMEWORKS, PHASES, PLATFORMS, SOURCES, Catalogue, Record

OVERVIEW = "by/index"
BUILDERS = ("html", "dirhtml")  # builders that write one file per page, where generated pages fit
PAGE_ATTRIBUTE = "errorkb_page"  # on a reference whose target is a generated page


@dataclasses.dataclass(frozen=True)
class Dimension:
    name: str
    title: str
    values: Callable[[Record], list[str]]
    labels: dict[str, str]

    def label(self, value: str) -> str:
        return self.labels.get(value, value)

    def page(self, value: str) -> str:
        return f"by/{self.name}/{value}"


DIMENSIONS: tuple[Dimension, ...] = (
    Dimension("source", "Source", lambda r: [r.source], SOURCES),
    Dimension("platform", "Platform", lambda r: list(r.platforms), PLATFORMS),
    Dimension("framework", "Framework", lambda r: list(r.frameworks), FRAMEWORKS),
    Dimension("phase", "Phase", lambda r: [r.phase], PHASES),
    Dimension("category", "Category", lambda r: [r.category], CATEGORIES),
)


def grouped(catalogue: Catalogue, dimension: Dimension) -> dict[str, list[Record]]:
    """Value -> its records (by source, then id); values in the vocabulary's order, the others sorted after."""
    groups: dict[str, list[Record]] = {}
    for record in sorted(catalogue.records.values(), key=lambda r: (r.source, r.id)):
        for value in dimension.values(record):
            groups.setdefault(value, []).append(record)
    order = [v for v in dimension.labels if v in groups] + sorted(groups.keys() - dimension.labels.keys())
    return {value: groups[value] for value in order}


def index_link(dimension: Dimension, value: str, title: str) -> nodes.reference:
    """A link to a generated page; its URL is set when the page is written (see :func:`resolve_links`)."""
    return page_link(dimension.page(value), title)


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


def _table(app: Sphinx, pagename: str, records: list[Record]) -> str:
    rows = []
    for record in records:
        href = app.builder.get_relative_uri(pagename, record_docname(app, record))
        rows.append(
            f'<tr><td><code>{html.escape(record.code or record.id)}</code></td>'
            f'<td><a class="reference internal" href="{html.escape(href)}">{html.escape(record.title)}</a></td>'
            f"<td>{html.escape(record.summary)}</td></tr>"
        )
    return ('<table class="docutils align-default errorkb-index"><thead><tr><th>Code</th><th>Error</th>'
            f'<th>Summary</th></tr></thead><tbody>{"".join(rows)}</tbody></table>')


def record_docname(app: Sphinx, record: Record) -> str:
    return f"{app.config.errorkb_records_dir.strip('/')}/{record.source}/{record.id}"


def value_page(app: Sphinx, dimension: Dimension, value: str, records: list[Record]) -> tuple[str, dict[str, Any], str]:
    pagename = dimension.page(value)
    label = dimension.label(value)
    overview = app.builder.get_relative_uri(pagename, OVERVIEW)
    count = f"{len(records)} error{'s' if len(records) != 1 else ''}"
    body = (
        f'<section id="{html.escape(value)}"><h1>{html.escape(dimension.title)}: {html.escape(label)}</h1>'
        f"<p>{count} whose {html.escape(dimension.title.lower())} is {html.escape(label)}. "
        f'<a href="{html.escape(overview)}#{dimension.name}">Other {html.escape(dimension.title.lower())}s</a>.</p>'
        f"{_table(app, pagename, records)}</section>"
    )
    description = f"Accelerator memory errors whose {dimension.title.lower()} is {label}: {count}."
    return pagename, {"title": f"{dimension.title}: {label}", "body": body, "errorkb_description": description}, "page.html"


def overview_page(app: Sphinx, catalogue: Catalogue) -> tuple[str, dict[str, Any], str]:
    parts = ['<section id="browse-errors"><h1>Browse errors</h1>'
             "<p>Every error of the knowledge base, grouped by where it comes from and when it happens.</p>"]
    for dimension in DIMENSIONS:
        items = []
        for value, records in grouped(catalogue, dimension).items():
            href = app.builder.get_relative_uri(OVERVIEW, dimension.page(value))
            items.append(f'<li><a class="reference internal" href="{html.escape(href)}">'
                         f"{html.escape(dimension.label(value))}</a> ({len(records)})</li>")
        parts.append(f'<section id="{dimension.name}"><h2>By {html.escape(dimension.title.lower())}</h2>'
                     f'<ul>{"".join(items)}</ul></section>')
    parts.append("</section>")
    description = "Accelerator memory errors by source, platform, framework, phase and category."
    return OVERVIEW, {"title": "Browse errors", "body": "".join(parts), "errorkb_description": description}, "page.html"


def generated_pages(app: Sphinx) -> Iterator[tuple[str, dict[str, Any], str]]:
    """``html-collect-pages``: the overview and one page per value of every dimension."""
    if app.builder.name not in BUILDERS:
        return
    catalogue = err_domain(app.env).catalogue
    yield overview_page(app, catalogue)
    for dimension in DIMENSIONS:
        for value, records in grouped(catalogue, dimension).items():
            yield value_page(app, dimension, value, records)


def page_names(catalogue: Catalogue) -> list[str]:
    """Every generated page, for the sitemap."""
    return [OVERVIEW] + [d.page(v) for d in DIMENSIONS for v in grouped(catalogue, d)]


def sources_in_context(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """``html-page-context``: each source, with its count and the URL of its index page from this page,
    for the ``errorkb-sources.html`` sidebar block: navigation that does not grow with the catalogue."""
    if app.builder.name not in BUILDERS:
        return
    source = DIMENSIONS[0]
    context["errorkb_sources"] = [
        (source.label(value), app.builder.get_relative_uri(pagename, source.page(value)), count)
        for value, count in _source_counts(err_domain(app.env).catalogue)
    ]


_counted: tuple[Catalogue, list[tuple[str, int]]] | None = None  # the last catalogue counted, every page asks


def _source_counts(catalogue: Catalogue) -> list[tuple[str, int]]:
    global _counted
    if _counted is None or _counted[0] is not catalogue:
        _counted = (catalogue, [(value, len(records)) for value, records in grouped(catalogue, DIMENSIONS[0]).items()])
    return _counted[1]


def setup_indexes(app: Sphinx) -> None:
    app.connect("html-collect-pages", generated_pages)
    app.connect("doctree-resolved", resolve_links)
    app.connect("html-page-context", sources_in_context)

