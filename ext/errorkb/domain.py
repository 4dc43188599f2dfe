"""The ``err`` domain: every record is an object that roles, the index and intersphinx can find.

``{err}`xla-e1000``` (or a code such as ``{err}`NCC_EOOM001```) links to a record's page with its
code and title as the link text.

The domain also keeps, per document, what the link graph needs: the errors a page links to
with the role (for "Referenced by"), the related ids a record page showed, and the catalogue
rows a page rendered.  All of it is keyed by document, so ``clear_doc`` and ``merge_domaindata``
keep it correct in incremental and parallel builds.

Other Sphinx projects can load this module alone (``extensions = ["errorkb.domain",
"sphinx.ext.intersphinx"]``) to link to a published errorkb with ``{err}`...``` through its
``objects.inv``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator

from docutils import nodes
from docutils.nodes import Element
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.builders import Builder
from sphinx.domains import Domain, ObjType
from sphinx.environment import BuildEnvironment
from sphinx.roles import XRefRole
from sphinx.util.nodes import make_refnode

if TYPE_CHECKING:
    from .records import Catalogue

#: Set on cross-references the extension writes itself (related lists, the catalogue), so that
#: only links written by authors count as "Referenced by".
GENERATED = "errorkb_generated"

#: Per-document maps in the domain data, cleared and merged by document name.
PER_DOC = ("ids", "references", "shown_related", "catalogues")


def link_text(code: str | None, title: str) -> str:
    return f"{code}: {title}" if code else title


_XREF = XRefRole(warn_dangling=True)


def err_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
             options: dict[str, Any] | None = None, content: Any = ()) -> Any:
    """A link to a record by its id, code or alias, shown as its code and title; other projects
    link to a published site the same way through intersphinx.

    It is ``{err:err}`` of the ``err`` domain, also written without the domain's prefix."""
    return _XREF("err:err", rawtext, text, lineno, inliner, options or {}, content)


def generated_xref(target: str, docname: str, text: str | None = None) -> addnodes.pending_xref:
    """A link to a record that the extension itself puts on a page; shows code and title unless ``text``."""
    ref = addnodes.pending_xref("", refdomain="err", reftype="err", reftarget=target,
                                refexplicit=text is not None, refwarn=True, refdoc=docname)
    ref[GENERATED] = True
    ref += nodes.inline(text=text if text is not None else target)
    return ref


class ErrorDomain(Domain):
    name = "err"
    label = "Errors"
    # The records of this build and who is related to whom, set when they are loaded at
    # ``builder-inited`` (``pages.load``); read through :func:`catalogue_of` and :func:`related_of`.
    catalogue: Catalogue
    related: dict[str, list[str]]
    object_types = {"error": ObjType("error", "err")}
    roles = {"err": _XREF}
    dangling_warnings = {"err": "unknown error %(target)r"}
    initial_data: dict[str, Any] = {
        "errors": {},  # id -> (docname, code, title, aliases)
        "ids": {},  # docname -> ids of the errors on it, so clearing a page need not scan every error
        "references": {},  # docname -> targets linked with the role, as written
        "shown_related": {},  # docname of a record -> related ids its page shows
        "catalogues": {},  # docname -> fingerprint of the catalogue rows it shows
        "views": {},  # docname -> what its generated links showed when last written
    }
    data_version = 3
    #: :meth:`referrers`, worked out once per build before pages are written.
    backlinks: dict[str, set[str]]

    @property
    def errors(self) -> dict[str, tuple[str, str | None, str, list[str]]]:
        return self.data["errors"]

    def note_error(self, id_: str, docname: str, code: str | None, title: str, aliases: list[str]) -> None:
        self.errors[id_] = (docname, code, title, list(aliases))
        self.data["ids"].setdefault(docname, []).append(id_)

    def clear_doc(self, docname: str) -> None:
        for id_ in self.data["ids"].get(docname, ()):
            if self.errors.get(id_, ("",))[0] == docname:
                del self.errors[id_]
        for key in PER_DOC:
            self.data[key].pop(docname, None)

    def merge_domaindata(self, docnames: set[str], otherdata: dict[str, Any]) -> None:
        for id_, entry in otherdata["errors"].items():
            if entry[0] in docnames:
                self.errors[id_] = entry
        for key in PER_DOC:
            for docname, value in otherdata[key].items():
                if docname in docnames:
                    self.data[key][docname] = value

    def process_doc(self, env: BuildEnvironment, docname: str, document: nodes.document) -> None:
        """Remember the errors this page links to with the role (not the generated links)."""
        targets = sorted({
            node["reftarget"] for node in document.findall(addnodes.pending_xref)
            if node.get("refdomain") == "err" and not node.get(GENERATED)
        })
        if targets:
            self.data["references"][docname] = targets

    def find(self, target: str) -> str | None:
        """The id of the record named by id, code or alias (case-insensitive for the last two)."""
        if target in self.errors:
            return target
        folded = target.casefold()
        for id_, (_, code, _, aliases) in self.errors.items():
            if (code and code.casefold() == folded) or folded in (a.casefold() for a in aliases):
                return id_
        return None

    def referrers(self) -> dict[str, set[str]]:
        """Record id -> the documents that link to it with the role (itself excluded)."""
        out: dict[str, set[str]] = {}
        for docname, targets in self.data["references"].items():
            for target in targets:
                id_ = self.find(target)
                if id_ is not None and self.errors[id_][0] != docname:
                    out.setdefault(id_, set()).add(docname)
        return out

    def resolve_xref(self, env: BuildEnvironment, fromdocname: str, builder: Builder, typ: str,
                     target: str, node: addnodes.pending_xref, contnode: Element) -> Element | None:
        id_ = self.find(target)
        if id_ is None:
            return None
        docname, code, title, _ = self.errors[id_]
        if not node.get("refexplicit"):
            contnode = nodes.inline(classes=["xref", "err"], text=link_text(code, title))
        return make_refnode(builder, fromdocname, docname, "", contnode, link_text(code, title))

    def resolve_any_xref(self, env: BuildEnvironment, fromdocname: str, builder: Builder, target: str,
                         node: addnodes.pending_xref, contnode: Element) -> list[tuple[str, Element]]:
        ref = self.resolve_xref(env, fromdocname, builder, "err", target, node, contnode)
        return [("err:err", ref)] if ref is not None else []

    def get_objects(self) -> Iterator[tuple[str, str, str, str, str, int]]:
        """Ids and codes (searchable), then aliases (found by links and intersphinx, not search)."""
        for id_, (docname, code, title, aliases) in sorted(self.errors.items()):
            text = link_text(code, title)
            yield id_, text, "error", docname, "", 1
            if code and code != id_:
                yield code, text, "error", docname, "", 0
            for alias in dict.fromkeys(aliases):
                if alias not in (id_, code):
                    yield alias, text, "error", docname, "", -1


def catalogue_of(env: BuildEnvironment) -> Catalogue:
    """The records of this build, loaded at ``builder-inited``."""
    return env.get_domain("err").catalogue  # type: ignore[attr-defined]


def related_of(env: BuildEnvironment) -> dict[str, list[str]]:
    """Id -> the ids it is related to, declared on either side."""
    return env.get_domain("err").related  # type: ignore[attr-defined]


def setup_domain(app: Sphinx) -> None:
    app.add_domain(ErrorDomain)
    # ``{err}`...``` without the domain prefix, as people will write it.
    app.add_role("err", err_role)


def setup(app: Sphinx) -> dict[str, Any]:
    """Use the domain on its own, e.g. to link to a published errorkb through intersphinx."""
    setup_domain(app)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 2}
