"""The site's paste lookup: the index emitted at build time, the lookup page and the paste box.

Where things live in the built site (``_build/html``):

- ``_static/errorkb-lookup-index.json``: the lookup index (per record its id, code, title, URL,
  first fixes, the words of its aliases and examples, and its templates' text with their rarest word; the
  browser compiles the templates and counts the ranking's terms itself), written when the
  build finishes.  ``errorkb lookup --index`` reads the same file.
- ``_static/lookup-core.js`` (the algorithm, shared with the node parity test),
  ``_static/lookup-worker.js`` (runs it off the main thread) and ``_static/lookup-page.js``
  (the page): none is loaded before someone searches.
- ``lookup.html``: the search page; ``lookup.html#q=TEXT`` runs a search and can be shared.  The
  paste stays in the browser: a fragment is never sent to the server, and an old
  ``lookup.html?q=TEXT`` link is rewritten to the fragment as soon as the page loads.
- ``errorkb-opensearch.xml``: lets a browser's address bar search the site.

The ``errorkb-paste`` directive puts a paste box on a page (the landing page) that hands the
paste to the lookup page through the tab's session storage (``_static/paste-box.js``), or the
fragment where storage is refused; its text area has no name, so even without JavaScript the
form sends nothing.  With ``errorkb_repository_url`` set, a paste that matches nothing is
offered the repository's missing-error issue form, prefilled.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any, Iterator

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.builders.html import StandaloneHTMLBuilder
from sphinx.util.docutils import SphinxDirective

from .gc_pause import gc_paused
from .lookup import build_index
from .domain import err_domain

INDEX_FILE = "_static/errorkb-lookup-index.json"
PAGE = "lookup"
OPENSEARCH_FILE = "errorkb-opensearch.xml"
#: The issue form, under .github/ISSUE_TEMPLATE/, for an error that is not in the catalogue.
ISSUE_FORM = "missing-error.yml"


def _relative_root(docname: str) -> str:
    return "../" * docname.count("/")


def report_url(repository: str) -> str | None:
    """The missing-error issue form of ``repository`` (its fields follow as query parameters)."""
    repository = repository.strip().rstrip("/")
    return f"{repository}/issues/new?template={ISSUE_FORM}" if repository else None


class PasteDirective(SphinxDirective):
    """A paste box that opens the lookup page with the paste, which stays in the browser."""

    def run(self) -> list[nodes.Node]:
        root = _relative_root(self.env.docname)
        action = html.escape(root + PAGE + ".html")
        form = (
            f'<form class="errorkb-paste" action="{action}" method="get" role="search">'
            '<label for="errorkb-paste-q">Paste your error message or log:</label>'
            '<textarea id="errorkb-paste-q" rows="5" spellcheck="false" autocomplete="off" required '
            'placeholder="RESOURCE_EXHAUSTED: ... Used 49.34G of 32.00G hbm ..."></textarea>'
            '<button type="submit">Find my error</button></form>'
            f'<script src="{html.escape(root)}_static/paste-box.js" defer></script>'
        )
        return [nodes.raw("", form, format="html")]


_PAGE_BODY = """\
<h1>Find your error</h1>
<p>Paste an error message, a traceback or a whole log. Each line, and each pair of lines (for
messages that wrapped), is compared with the message templates of every error in the catalogue;
the values in your paste are pulled out and explained. When no template matches exactly, the
closest errors are listed and marked as such. The search runs in your browser, on the index
<a href="{index}"><code>{index}</code></a> built with the site; nothing is sent anywhere. To
share a search, share the address: the paste is kept after its <code>#</code>, which browsers
never send to a server.</p>
<form id="errorkb-lookup-form" class="errorkb-paste" role="search" data-index="{index}"
      data-worker="_static/lookup-worker.js"{report}>
<label for="errorkb-lookup-q">Error message or log</label>
<textarea id="errorkb-lookup-q" rows="8" spellcheck="false" autocomplete="off"
          placeholder="Paste the error here"></textarea>
<button type="submit">Find my error</button>
</form>
<p id="errorkb-lookup-status" class="errorkb-lookup-status" role="status" aria-live="polite"></p>
<ol id="errorkb-lookup-results" class="errorkb-lookup-results"></ol>
<div id="errorkb-lookup-missing" class="errorkb-lookup-missing" hidden></div>
<noscript><p>This page needs JavaScript; the command <code>errorkb lookup</code> does the same in a terminal.</p></noscript>
<script src="_static/lookup-page.js" defer></script>
"""

_OPENSEARCH = """\
<?xml version="1.0" encoding="UTF-8"?>
<OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">
  <ShortName>{name}</ShortName>
  <Description>Find an accelerator memory error by its message</Description>
  <InputEncoding>UTF-8</InputEncoding>
  <Url type="text/html" method="get" template="{base}{page}.html#q={{searchTerms}}"/>
</OpenSearchDescription>
"""


def collect_pages(app: Sphinx) -> Iterator[tuple[str, dict[str, Any], str]]:
    """``html-collect-pages``: the lookup page, in the theme's page layout."""
    if not isinstance(app.builder, StandaloneHTMLBuilder) or app.builder.name != "html":
        return
    report = report_url(app.config.errorkb_repository_url)
    body = _PAGE_BODY.format(index=html.escape(INDEX_FILE),
                             report=f' data-report="{html.escape(report)}"' if report else "")
    yield PAGE, {"title": "Find your error", "body": body}, "page.html"


def add_opensearch_link(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """``html-page-context``: every page tells the browser where the OpenSearch description is."""
    if app.builder.name != "html":
        return
    href = html.escape(_relative_root(pagename) + OPENSEARCH_FILE)
    title = html.escape(app.config.project)
    context["metatags"] = context.get("metatags", "") + (
        f'\n<link rel="search" type="application/opensearchdescription+xml" title="{title}" href="{href}">'
    )


def write_index(app: Sphinx, exception: Exception | None) -> None:
    """``build-finished``: the lookup index and the OpenSearch description."""
    if exception is not None or app.builder.name != "html":
        return
    catalogue = err_domain(app.env).catalogue
    urls = {}
    for record in catalogue.records.values():
        docname = record.path.removesuffix(".md")
        urls[record.id] = app.builder.get_target_uri(docname)
    with gc_paused():
        index = build_index(catalogue, urls, report=report_url(app.config.errorkb_repository_url))
        text = json.dumps(index.to_json(), separators=(",", ":"), ensure_ascii=False)
    out = Path(app.outdir)
    target = out / INDEX_FILE
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    base = app.config.errorkb_base_url.rstrip("/") + "/" if app.config.errorkb_base_url else ""
    (out / OPENSEARCH_FILE).write_text(
        _OPENSEARCH.format(name=html.escape(app.config.project), base=html.escape(base), page=PAGE),
        encoding="utf-8",
    )


def setup_search(app: Sphinx) -> None:
    app.add_directive("errorkb-paste", PasteDirective)
    app.add_css_file("lookup.css")
    app.connect("html-collect-pages", collect_pages)
    app.connect("html-page-context", add_opensearch_link)
    app.connect("build-finished", write_index)
