"""The site's paste lookup: the index emitted at build time, the lookup page and the paste box.

Where things live in the built site (``_build/html``), with either HTML builder:

- ``_static/errorkb-lookup-index.json``: the lookup index (per record its id, code, title, URL,
  first fixes, its ranking's terms, and its templates' regular expressions, which the browser runs
  as they are, with their rarest word and run; see ``LookupIndex.to_json``), written when the
  build finishes.  ``errorkb lookup --index`` reads the same file.
- ``_static/errorkb-lookup-core.js`` (the algorithm, shared with the node parity test),
  ``_static/errorkb-lookup-worker.js`` (runs it off the main thread) and
  ``_static/errorkb-lookup-page.js`` (the page): none is loaded before someone searches.
- the lookup page, ``lookup.html`` (``lookup/`` with ``dirhtml``): its address followed by
  ``#q=TEXT`` runs a search and can be shared.  The paste stays in the browser: a fragment is
  never sent to the server, and an old ``?q=TEXT`` link is rewritten to the fragment as soon as
  the page loads.
- ``errorkb-opensearch.xml``: lets a browser's address bar search the site.
- ``_static/errorkb-search-page.js``, on the site's own search page only: a search for the text of
  an error is answered by the lookup above the search results.

The ``errorkb-paste`` directive puts a paste box on a page (the landing page) that hands the
paste to the lookup page through the tab's session storage (``_static/errorkb-paste-box.js``), or the
fragment where storage is refused.  With ``errorkb_repository_url`` set, a paste that matches nothing
is offered the repository's missing-error issue form, prefilled.

The HTML comes from the templates ``errorkb-paste-box.html`` and ``errorkb-lookup.html``, which a
site or theme overrides by putting its own of the same name in its ``templates_path``.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective, SphinxTranslator

from ..core.gc_pause import gc_paused
from ..core.lookup import build_index
from .config import settings
from .domain import err_domain
from .indexes import BUILDERS
from .outputs import base_url

logger = logging.getLogger(__name__)

INDEX_FILE = "_static/errorkb-lookup-index.json"
PAGE = "lookup"
OPENSEARCH_FILE = "errorkb-opensearch.xml"
PASTE_SCRIPT = "errorkb-paste-box.js"
#: On the site's search page: the lookup's answer, above the results, to a search for an error message.
SEARCH_SCRIPT = "errorkb-search-page.js"
#: The issue form, under .github/ISSUE_TEMPLATE/, for an error that is not in the catalogue.
ISSUE_FORM = "missing-error.yml"
#: Marks, in a page's metadata, a page with a paste box: only those load its script.
PASTE_METADATA = "errorkb-paste"


def report_url(repository: str) -> str | None:
    """The missing-error issue form of ``repository`` (its fields follow as query parameters)."""
    repository = repository.strip().rstrip("/")
    return f"{repository}/issues/new?template={ISSUE_FORM}" if repository else None


class paste_box(nodes.General, nodes.Element):
    """Where the paste box goes; written by the HTML builders, which know the lookup page's URL."""


class PasteDirective(SphinxDirective):
    """A paste box that opens the lookup page with the paste, which stays in the browser."""

    def run(self) -> list[nodes.Node]:
        self.env.metadata[self.env.docname][PASTE_METADATA] = True
        return [paste_box()]


def visit_paste_box(translator: SphinxTranslator, node: paste_box) -> None:
    """The box from its template, posting to the lookup page as this builder names it."""
    builder = translator.builder
    if builder.name in BUILDERS:
        action = builder.get_relative_uri(builder.current_docname, PAGE)  # type: ignore[attr-defined]
        context = {"action": action, "placeholder": settings(builder.config).paste_placeholder}
        translator.body.append(builder.templates.render("errorkb-paste-box.html", context))  # type: ignore[attr-defined]
    raise nodes.SkipNode


def skip(translator: SphinxTranslator, node: nodes.Node) -> None:
    raise nodes.SkipNode


def collect_pages(app: Sphinx) -> Iterator[tuple[str, dict[str, Any], str]]:
    """``html-collect-pages``: the lookup page, in the theme's page layout."""
    if app.builder.name in BUILDERS:
        yield PAGE, {"title": "Find your error", "errorkb_index": INDEX_FILE,
                     "errorkb_report": report_url(settings(app.config).repository_url),
                     "errorkb_description": f"Paste an error message or a log: {app.config.project} finds the page "
                                            "that explains it and the fix its numbers call for, in your browser."}, "page.html"


def page_context(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """``html-page-context``: the lookup page's body; the paste box's script where there is one;
    on every page, the lookup page's name for templates and the link to the OpenSearch description."""
    if app.builder.name not in BUILDERS:
        return
    context["errorkb_lookup"] = PAGE
    if pagename == PAGE and doctree is None:
        context["body"] = app.builder.templates.render("errorkb-lookup.html", context)
    if app.env.metadata.get(pagename, {}).get(PASTE_METADATA):
        app.add_js_file(PASTE_SCRIPT, loading_method="defer")
    if pagename == "search":
        pathto = context["pathto"]
        app.add_js_file(SEARCH_SCRIPT, loading_method="defer", **{
            "data-index": pathto(INDEX_FILE, 1), "data-worker": pathto("_static/errorkb-lookup-worker.js", 1),
            "data-root": context.get("content_root", ""), "data-lookup": pathto(PAGE)})
    href = context["pathto"](OPENSEARCH_FILE, 1)
    context["metatags"] = context.get("metatags", "") + (
        '\n<link rel="search" type="application/opensearchdescription+xml" '
        f'title="{html.escape(app.config.project)}" href="{html.escape(href)}">'
    )


def write_index(app: Sphinx, exception: Exception | None) -> None:
    """``build-finished``: the lookup index and the OpenSearch description."""
    if exception is not None or app.builder.name not in BUILDERS:
        return
    catalogue = err_domain(app.env).catalogue
    urls = {}
    for record in catalogue.records.values():
        docname = record.path.removesuffix(".md")
        urls[record.id] = app.builder.get_target_uri(docname)
    kinds = settings(app.config).kinds
    kind_urls = {k.name: app.builder.get_target_uri(k.page) for k in kinds if k.page in app.env.all_docs}
    with gc_paused():
        index = build_index(catalogue, urls, report=report_url(settings(app.config).repository_url), kinds=kinds,
                            kind_urls=kind_urls)
        text = json.dumps(index.to_json(), separators=(",", ":"), ensure_ascii=False)
    out = Path(app.outdir)
    target = out / INDEX_FILE
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    opensearch = app.builder.templates.render(OPENSEARCH_FILE, {
        "name": app.config.project, "description": settings(app.config).opensearch_description,
        "url": base_url(app) + app.builder.get_target_uri(PAGE)})
    (out / OPENSEARCH_FILE).write_text(opensearch, encoding="utf-8")


def check_kind_pages(app: Sphinx, env: BuildEnvironment) -> None:
    """``env-check-consistency``: every kind of ``errorkb_kinds`` names a page of the site."""
    for kind in settings(app.config).kinds:
        if kind.page not in env.all_docs:
            logger.warning("errorkb_kinds: the kind %r names the page %r, which the site does not have",
                           kind.name, kind.page, type="errorkb", subtype="kinds")


def setup_search(app: Sphinx) -> None:
    app.connect("env-check-consistency", check_kind_pages)
    app.add_node(paste_box, html=(visit_paste_box, None), latex=(skip, None), text=(skip, None),
                 man=(skip, None), texinfo=(skip, None))
    app.add_directive("errorkb-paste", PasteDirective)
    app.add_css_file("errorkb-lookup.css")
    app.connect("html-collect-pages", collect_pages)
    app.connect("html-page-context", page_context)
    app.connect("build-finished", write_index)
