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

from .catalogue import fingerprint
from .config import settings
from .domain import err_domain
from .pages import footer_group, referenced_by


def outdated(app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str],
             removed: set[str]) -> list[str]:
    """``env-get-outdated``: pages whose read-time content depends on records that changed."""
    domain = err_domain(env)
    related = domain.related
    stale = []
    for docname, shown in domain.data["shown_related"].items():
        id_ = docname.rsplit("/", 1)[-1]
        if id_ in related and related[id_] != shown:
            stale.append(docname)
    current = fingerprint(domain.catalogue, settings(env.config).schema)
    stale += [docname for docname, seen in domain.data["catalogues"].items() if seen != current]
    return [d for d in stale if d not in removed]


def shown_links(env: BuildEnvironment, referrers: dict[str, set[str]]) -> dict[str, Any]:
    """Per page, everything its generated links show that comes from other pages."""
    domain = err_domain(env)
    related = domain.related
    out: dict[str, Any] = {}
    for docname, targets in domain.data["references"].items():
        out[docname] = [("link", t, domain.errors.get(domain.find(t) or "")) for t in targets]
    for id_, (docname, *_) in domain.errors.items():
        view = out.setdefault(docname, [])
        view += [("referrer", d, _title(env, d)) for d in sorted(referrers.get(id_, ()))]
        view += [("related", r, domain.errors.get(r)) for r in related.get(id_, ())]
    return out


def updated(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """``env-get-updated``: pages to write again because what they link to changed.

    Also keeps who links to whom for this build's writing phase (``domain.backlinks``).
    """
    domain = err_domain(env)
    domain.backlinks = domain.referrers()
    new = shown_links(env, domain.backlinks)
    old = domain.data["shown_links"]
    domain.data["shown_links"] = new
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
    related = {domain.errors[r][0] for r in domain.data["shown_related"].get(docname, ()) if r in domain.errors}
    for node in list(doctree.findall(referenced_by)):
        pages = sorted(set(domain.backlinks.get(node["record_id"], ())) - related,
                       key=lambda d: (not settings(app.config).is_record_page(d), _title(app.env, d)))
        if not pages:
            section = node.parent
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
