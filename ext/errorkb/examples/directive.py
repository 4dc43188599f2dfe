"""The ``snippet`` directive and the ``err:snippet-status`` listing.

Each snippet is validated at read time (a problem is a warning at the fence's line) and kept
per page in the ``err`` domain.  The page gets a placeholder node that :mod:`.render` fills
with the snippet's status once it is known.
"""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from ..site.config import settings
from ..site.domain import err_domain
from .hardware import load_profile
from .spec import OPTIONS, SnippetError, make_snippet

logger = logging.getLogger(__name__)


class snippet_node(nodes.General, nodes.Element):
    """A snippet on its page; replaced by its code and status badge when the page is written."""


class snippet_status_node(nodes.General, nodes.Element):
    """Where the table of every snippet and its status goes."""


class SnippetDirective(SphinxDirective):
    """Code the build runs, claiming to reproduce the error, fix it or show a measurement
    (``reproduces``, ``fixes`` or ``shows``), with ``:id:``, ``:requires:``, ``:timeout:``,
    ``:memory:`` and ``:tolerance:``; the page shows whether it did."""

    required_arguments = 1
    has_content = True
    option_spec = {name: directives.unchanged for name in OPTIONS}

    def run(self) -> list[nodes.Node]:
        docname = self.env.docname
        domain = err_domain(self.env)
        record = domain.record_for(docname)
        path = Path(self.env.doc2path(docname)).relative_to(self.env.srcdir).as_posix()
        try:
            snippet = make_snippet(
                self.arguments[0], {k: str(v) for k, v in self.options.items()}, "\n".join(self.content),
                path=path, line=self.lineno, record_id=record.id if record else docname.rsplit("/", 1)[-1],
                templates=tuple(m.template for m in record.messages) if record else (),
                ceilings=settings(self.config).ceilings, hardware=load_profile(settings(self.config).hardware),
            )
        except SnippetError as exc:
            logger.warning(str(exc), location=(docname, self.lineno), type="errorkb", subtype="snippet")
            return []
        if not domain.add_snippet(docname, snippet):
            logger.warning(f"snippet id {snippet.id!r} is used twice on this page", location=(docname, self.lineno),
                           type="errorkb", subtype="snippet")
            return []
        node = snippet_node(key=snippet.key, ids=[f"snippet-{snippet.id}"])
        self.set_source_info(node)
        node += nodes.literal_block(snippet.code, snippet.code, language="pycon" if snippet.kind == "shows" else "python")
        return [node]


class SnippetStatusDirective(SphinxDirective):
    """A table of every snippet of the site and its status."""

    def run(self) -> list[nodes.Node]:
        err_domain(self.env).note_snippet_table(self.env.docname)
        return [snippet_status_node()]


def setup_directives(app: Sphinx) -> None:
    app.add_directive("snippet", SnippetDirective)
    app.add_directive_to_domain("err", "snippet-status", SnippetStatusDirective)
    app.add_node(snippet_node)
    app.add_node(snippet_status_node)
