"""Links both ways, kept correct in incremental builds.

A record page shows its related errors (declared on either side) and, once every page is read,
"Referenced by": the records and guides that link to it with the role.  What a page shows depends
on other pages, so two hooks tell Sphinx what else to redo:

* ``env-get-outdated`` re-reads record pages whose related list changed (B's page shows A when A
  starts listing B) and pages whose catalogue table no longer matches the records;
* ``env-get-updated`` rewrites every page whose generated links would now read differently: a
  record gaining or losing a referrer, a title of a linked record changing, a target disappearing.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util.nodes import make_refnode

from ..core.records import Record
from .catalogue import fingerprint
from .config import settings
from .domain import err_domain
from .pages import footer_group, referenced_by


def outdated(app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str],
             removed: set[str]) -> list[str]:
    """``env-get-outdated``: pages whose read-time content depends on records that changed."""
    domain = err_domain(env)
    related = domain.related
    current = fingerprint(domain.catalogue, settings(env.config).schema)
    stale = []
    for docname, page in domain.pages():
        id_ = docname.rsplit("/", 1)[-1]
        if (page.related is not None and id_ in related and related[id_] != page.related) or \
                (page.catalogue is not None and page.catalogue != current):
            stale.append(docname)
    return [d for d in stale if d not in removed]


def shown_links(env: BuildEnvironment) -> dict[str, list[Any]]:
    """Per page, everything its generated links show that comes from other pages."""
    domain = err_domain(env)

    def shown(record: Record | None) -> tuple[str, tuple[str, ...], str] | None:
        return (domain.docname_of(record), record.codes, record.title) if record is not None else None

    out: dict[str, list[Any]] = {}
    for docname, page in domain.pages():
        if page.references:
            out[docname] = [("link", t, shown(domain.find(t))) for t in page.references]
    for record in domain.published():
        view = out.setdefault(domain.docname_of(record), [])
        view += [("referrer", d, _title(env, d)) for d in sorted(domain.backlinks.get(record.id, ()))]
        view += [("related", r, shown(domain.find(r))) for r in domain.related.get(record.id, ())]
    return out


def updated(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """``env-get-updated``: pages to write again because what they link to changed.

    Also keeps who links to whom for this build's writing phase (``domain.backlinks``).
    """
    domain = err_domain(env)
    domain.note_backlinks()
    new = shown_links(env)
    old = domain.note_shown_links(new)
    return sorted(d for d in new.keys() | old.keys() if new.get(d) != old.get(d) and d in env.all_docs)


def _title(env: BuildEnvironment, docname: str) -> str:
    title = env.titles.get(docname)
    return title.astext() if title is not None else docname


def fill_referenced_by(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """``doctree-resolved``: list the pages that link to this record (but its related errors,
    listed beside), or drop the placeholder.

    A "See also" section left with nothing in it says so rather than showing an empty heading.
    """
    domain = err_domain(app.env)
    # Related errors are listed already: "Referenced by" names the other pages only.
    related = {domain.docname_of(record) for record in map(domain.find, domain.related_shown(docname)) if record}
    for node in list(doctree.findall(referenced_by)):
        pages = sorted(set(domain.backlinks.get(node["record_id"], ())) - related,
                       key=lambda d: (not settings(app.config).is_record_page(d), _title(app.env, d)))
        if not pages:
            section: nodes.Element = node.parent
            section.remove(node)
            if not any(isinstance(child, nodes.container) for child in section.children):
                section += nodes.paragraph(text="No related errors, references or pages that link here yet.")
            continue
        node.replace_self(footer_group("Referenced by", "referenced-by", [
            nodes.paragraph("", "", make_refnode(app.builder, docname, page, "", nodes.inline(text=_title(app.env, page))))
            for page in pages]))


def setup_links(app: Sphinx) -> None:
    app.connect("env-get-outdated", outdated)
    app.connect("env-get-updated", updated)
    app.connect("doctree-resolved", fill_referenced_by)
