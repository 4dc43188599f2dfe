"""Fill in, as each page is written, the status of its snippets and the table of all snippets.

A passed ``reproduces`` snippet shows, folded under it, the lines it printed that its record's
templates matched (the message it reproduced); a passed ``shows`` snippet, what its session
printed this time.  The snippets are filled in by a post-transform that runs before
sphinx-design's, so that those folds are its dropdowns; the table, once links can be made.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform

from ..site.badges import badge
from ..site.design import dropdown
from ..site.domain import err_domain
from .directive import snippet_node, snippet_status_node
from .judge import FAILED, NOT_RUN, PASSED, Result
from .spec import KINDS, Snippet
from .verified import Verification

BADGE_COLOURS = {PASSED: "success", FAILED: "danger", NOT_RUN: "secondary"}
CLAIMS = {"reproduces": "Reproduces the error", "fixes": "Fix", "shows": "Shows"}
OUTPUT_SHOWN = 4000  # characters of a snippet's output shown on its page


def status_badge(status: str) -> nodes.inline:
    node = badge(status, BADGE_COLOURS[status])
    node["classes"].append("errorkb-snippet-badge")
    return node


def status_line(result: Result) -> nodes.paragraph:
    """``[passed] on Python 3.11.7, jax 0.10.2 on CPU`` / ``[failed] exit status 1: ...``."""
    para = nodes.paragraph(classes=["errorkb-snippet-status"])
    para += status_badge(result.status)
    text = {PASSED: f" ran on {result.reason}", FAILED: f" {result.reason}", NOT_RUN: f" {result.reason}"}[result.status]
    para += nodes.Text(text)
    return para


def verified_block(entry: Verification) -> list[nodes.Node]:
    para = nodes.paragraph(classes=["errorkb-snippet-verified"])
    para += nodes.strong(text="Last verified on ")
    para += nodes.Text(entry.summary())
    out: list[nodes.Node] = [para]
    if entry.output:
        out.append(nodes.literal_block(entry.output, entry.output, language="text", classes=["errorkb-snippet-output"]))
    return out


def render_snippet(node: snippet_node, snippet: Snippet, result: Result | None, verified: Verification | None) -> None:
    """Replace the placeholder by: what the snippet claims, its code, its status."""
    result = result or Result(NOT_RUN, "not run in this build")
    box = nodes.container(ids=node["ids"], classes=["errorkb-snippet", f"errorkb-snippet-{result.status.replace(' ', '-')}"])
    head = nodes.paragraph(classes=["errorkb-snippet-claim"])
    head += nodes.strong(text=CLAIMS[snippet.kind])
    head += nodes.Text(f" ({snippet.id}): {KINDS[snippet.kind]}")
    if snippet.requires:
        head += nodes.Text("; needs ")
        head += nodes.literal(text=", ".join(snippet.requires))
    box += head
    box += node.children
    box += status_line(result)
    if result.status == FAILED and result.output:
        shown = result.output[-OUTPUT_SHOWN:]
        box += nodes.literal_block(shown, shown, language="text", classes=["errorkb-snippet-output"])
    box += what_it_printed(snippet, result)
    if verified is not None:
        box += verified_block(verified)
    node.replace_self(box)


def what_it_printed(snippet: Snippet, result: Result) -> list[nodes.Node]:
    """Of a passed snippet, folded: the message it reproduced, or what its session printed."""
    if result.status != PASSED:
        return []
    if snippet.kind == "reproduces" and result.matched:
        text = "\n".join(result.matched)
        title = "The message it reproduced" if len(result.matched) == 1 else "The messages it reproduced"
    elif snippet.kind == "shows" and result.output.strip():
        text = result.output.rstrip()[-OUTPUT_SHOWN:]
        title = "What it printed in this build"
    else:
        return []
    block = nodes.literal_block(text, text, language="text", classes=["errorkb-snippet-output"])
    return [dropdown(title, [block], ["errorkb-snippet-printed"])]


def _row(*cells: nodes.Node) -> nodes.row:
    row = nodes.row()
    for cell in cells:
        entry = nodes.entry()
        entry += cell if isinstance(cell, nodes.paragraph) else nodes.paragraph("", "", cell)
        row += entry
    return row


def status_table(app: Sphinx, fromdocname: str) -> list[nodes.Node]:
    domain = err_domain(app.env)
    results, verified = domain.snippet_results, domain.verified
    snippets = domain.all_snippets()
    counts = {s: sum(1 for sn in snippets if (results.get(sn.key) or Result(NOT_RUN, "")).status == s) for s in BADGE_COLOURS}
    summary = nodes.paragraph(text=f"{len(snippets)} snippets: {counts[PASSED]} passed, {counts[FAILED]} failed, "
                                   f"{counts[NOT_RUN]} not run.", classes=["errorkb-snippet-summary"])
    table = nodes.table(classes=["errorkb-snippet-table"])
    group = nodes.tgroup(cols=4)
    table += group
    group += [nodes.colspec(colwidth=w) for w in (3, 2, 2, 6)]
    head = nodes.thead()
    head += _row(*(nodes.Text(t) for t in ("Snippet", "Claim", "Status", "Details")))
    group += head
    body = nodes.tbody()
    docnames = {s.key: d for d, page in domain.snippets.items() for s in page}
    for snippet in snippets:
        result = results.get(snippet.key) or Result(NOT_RUN, "not run in this build")
        uri = app.builder.get_relative_uri(fromdocname, docnames[snippet.key]) + f"#snippet-{snippet.id}"
        link = nodes.reference("", "", nodes.literal(text=snippet.key), internal=True, refuri=uri)
        details = nodes.paragraph(text=result.reason)
        if snippet.key in verified:
            details += nodes.Text(f"; last verified on {verified[snippet.key].summary()}")
        body += _row(link, nodes.Text(snippet.kind), status_badge(result.status), details)
    group += body
    return [summary, table]


class SnippetStatuses(SphinxPostTransform):
    """Each snippet of the page with its status."""

    default_priority = 100  # before sphinx-design's dropdowns (199) are built

    def run(self, **kwargs: Any) -> None:
        domain = err_domain(self.env)
        by_key = {s.key: s for s in domain.snippets.get(self.env.docname, ())}  # this page's: linear in pages
        for node in list(self.document.findall(snippet_node)):
            snippet = by_key.get(node["key"])
            if snippet is None:
                node.replace_self(node.children)
                continue
            render_snippet(node, snippet, domain.snippet_results.get(snippet.key), domain.verified.get(snippet.key))


def status_tables(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """``doctree-resolved``: the table of every snippet, where a page asks for it."""
    for node in list(doctree.findall(snippet_status_node)):
        node.replace_self(status_table(app, docname))


def setup_render(app: Sphinx) -> None:
    app.add_post_transform(SnippetStatuses)
    app.connect("doctree-resolved", status_tables)
