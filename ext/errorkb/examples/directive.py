"""The ``snippet`` directive and the ``err:snippet-status`` listing, and the env data they fill.

Each snippet is validated at read time (a problem is a warning at the fence's line) and kept
in ``env.errorkb_snippets`` (docname -> snippets), merged across parallel readers.  The page
gets a placeholder node that :mod:`.render` fills with the snippet's status once it is known.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from ..config import settings
from ..domain import catalogue_of
from ..records import Record
from .spec import OPTIONS, Snippet, SnippetError, make_snippet

logger = logging.getLogger(__name__)


class snippet_node(nodes.General, nodes.Element):
    """A snippet on its page; replaced by its code and status badge when the page is written."""


class snippet_status_node(nodes.General, nodes.Element):
    """Where the table of every snippet and its status goes."""


def snippets_of(env: BuildEnvironment) -> dict[str, list[Snippet]]:
    if not hasattr(env, "errorkb_snippets"):
        env.errorkb_snippets = {}  # type: ignore[attr-defined]
    return env.errorkb_snippets  # type: ignore[attr-defined]


def status_pages_of(env: BuildEnvironment) -> set[str]:
    if not hasattr(env, "errorkb_status_pages"):
        env.errorkb_status_pages = set()  # type: ignore[attr-defined]
    return env.errorkb_status_pages  # type: ignore[attr-defined]


def all_snippets(env: BuildEnvironment) -> list[Snippet]:
    return [s for docname in sorted(snippets_of(env)) for s in snippets_of(env)[docname]]


class SnippetDirective(SphinxDirective):
    """Code the build runs, claiming to reproduce the error, fix it or show a measurement
    (``reproduces``, ``fixes`` or ``shows``), with ``:id:``, ``:requires:``, ``:timeout:``,
    ``:memory:`` and ``:tolerance:``; the page shows whether it did."""

    required_arguments = 1
    has_content = True
    option_spec = {name: directives.unchanged for name in OPTIONS}

    def _record(self, docname: str) -> Record | None:
        if not settings(self.config).is_record_page(docname):
            return None
        return catalogue_of(self.env).records.get(docname.rsplit("/", 1)[-1])

    def run(self) -> list[nodes.Node]:
        docname = self.env.docname
        record = self._record(docname)
        path = Path(self.env.doc2path(docname)).relative_to(self.env.srcdir).as_posix()
        try:
            snippet = make_snippet(
                self.arguments[0], {k: str(v) for k, v in self.options.items()}, "\n".join(self.content),
                path=path, line=self.lineno, record_id=record.id if record else docname.rsplit("/", 1)[-1],
                templates=tuple(m.template for m in record.messages) if record else (),
                ceilings=settings(self.config).ceilings,
            )
        except SnippetError as exc:
            logger.warning(str(exc), location=(docname, self.lineno), type="errorkb", subtype="snippet")
            return []
        page = snippets_of(self.env).setdefault(docname, [])
        if any(s.id == snippet.id for s in page):
            logger.warning(f"snippet id {snippet.id!r} is used twice on this page", location=(docname, self.lineno),
                           type="errorkb", subtype="snippet")
            return []
        page.append(snippet)
        node = snippet_node(key=snippet.key, ids=[f"snippet-{snippet.id}"])
        self.set_source_info(node)
        node += nodes.literal_block(snippet.code, snippet.code, language="pycon" if snippet.kind == "shows" else "python")
        return [node]


class SnippetStatusDirective(SphinxDirective):
    """A table of every snippet of the site and its status."""

    def run(self) -> list[nodes.Node]:
        status_pages_of(self.env).add(self.env.docname)
        return [snippet_status_node()]


def purge(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    snippets_of(env).pop(docname, None)
    status_pages_of(env).discard(docname)


def merge(app: Sphinx, env: BuildEnvironment, docnames: set[str], other: BuildEnvironment) -> None:
    for docname in docnames:
        if docname in snippets_of(other):
            snippets_of(env)[docname] = snippets_of(other)[docname]
    status_pages_of(env).update(status_pages_of(other) & docnames)


def setup_directives(app: Sphinx) -> dict[str, Any]:
    app.add_directive("snippet", SnippetDirective)
    app.add_directive_to_domain("err", "snippet-status", SnippetStatusDirective)
    app.add_node(snippet_node)
    app.add_node(snippet_status_node)
    app.connect("env-purge-doc", purge)
    app.connect("env-merge-info", merge)
    return {}
