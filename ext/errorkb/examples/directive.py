"""The ``snippet`` directive and the ``err:snippet-status`` listing.

Each snippet is validated at read time and kept per page in the ``err`` domain, and so is a
snippet refused: :mod:`.build` warns about it at the fence's line on every build, the page read
again or not.  The page gets a placeholder node that :mod:`.render` fills with the snippet's
status once it is known.
"""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from ..site.domain import err_domain
from .extract import duplicate
from .spec import OPTIONS, SnippetError, make_snippet


class snippet_node(nodes.General, nodes.Element):
    """A snippet on its page; replaced by its code and status badge when the page is written."""


class snippet_status_node(nodes.General, nodes.Element):
    """Where the table of every snippet and its status goes."""


class AnyOption(dict):
    """An option spec that takes every option, so that :func:`make_snippet` judges them all,
    unknown ones included, as ``errorkb check`` does."""

    def __missing__(self, name: str) -> object:
        return directives.unchanged


class SnippetDirective(SphinxDirective):
    """Code the build runs, claiming to reproduce the error, fix it or show a session
    (``reproduces``, ``fixes`` or ``shows``), with ``:id:``, ``:language:``, ``:requires:``,
    ``:timeout:``, ``:memory:`` and ``:tolerance:``; the page shows whether it did."""

    required_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = AnyOption(dict.fromkeys(OPTIONS, directives.unchanged))

    def run(self) -> list[nodes.Node]:
        docname = self.env.docname
        domain = err_domain(self.env)
        record = domain.record_for(docname)
        path = Path(self.env.doc2path(docname)).relative_to(self.env.srcdir).as_posix()
        try:
            snippet = make_snippet(
                self.arguments[0], {k: str(v or "") for k, v in self.options.items()}, "\n".join(self.content),
                path=path, line=self.lineno, record_id=record.id if record else docname.rsplit("/", 1)[-1],
                templates=tuple(m.template for m in record.messages) if record else (),
                rules=domain.snippet_rules,
            )
        except SnippetError as exc:
            return self.refuse(str(exc))
        if not domain.add_snippet(docname, snippet):
            return self.refuse(duplicate(snippet.id))
        node = snippet_node(key=snippet.key, ids=[f"snippet-{snippet.id}"])
        self.set_source_info(node)
        node += nodes.literal_block(snippet.code, snippet.code, language=snippet.highlight)
        return [node]

    def refuse(self, message: str) -> list[nodes.Node]:
        """Keep the refusal with the page, for :mod:`.build` to warn about on every build."""
        err_domain(self.env).note_snippet_problem(self.env.docname, self.lineno, message)
        return []


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
