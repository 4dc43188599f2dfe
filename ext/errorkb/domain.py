"""The ``err`` domain: every record is an object that roles, the index and intersphinx can find.

``{err}`xla-e1000``` (or a code such as ``{err}`NCC_EOOM001```) links to a record's page with its
code and title as the link text.
"""

from __future__ import annotations

from typing import Any, Iterator

from docutils import nodes
from docutils.nodes import Element
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.builders import Builder
from sphinx.domains import Domain, ObjType
from sphinx.environment import BuildEnvironment
from sphinx.roles import XRefRole
from sphinx.util.nodes import make_refnode


def link_text(code: str | None, title: str) -> str:
    return f"{code}: {title}" if code else title


_XREF = XRefRole(warn_dangling=True)


def err_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
             options: dict[str, Any] | None = None, content: Any = ()) -> Any:
    """``{err}`target``` anywhere, as if written ``{err:err}`target```."""
    return _XREF("err:err", rawtext, text, lineno, inliner, options or {}, content)


class ErrorDomain(Domain):
    name = "err"
    label = "Errors"
    object_types = {"error": ObjType("error", "err")}
    roles = {"err": _XREF}
    dangling_warnings = {"err": "unknown error %(target)r"}
    initial_data: dict[str, Any] = {"errors": {}}  # id -> (docname, code, title, aliases)
    data_version = 1

    @property
    def errors(self) -> dict[str, tuple[str, str | None, str, list[str]]]:
        return self.data["errors"]

    def note_error(self, id_: str, docname: str, code: str | None, title: str, aliases: list[str]) -> None:
        self.errors[id_] = (docname, code, title, list(aliases))

    def clear_doc(self, docname: str) -> None:
        for id_, entry in list(self.errors.items()):
            if entry[0] == docname:
                del self.errors[id_]

    def merge_domaindata(self, docnames: set[str], otherdata: dict[str, Any]) -> None:
        for id_, entry in otherdata["errors"].items():
            if entry[0] in docnames:
                self.errors[id_] = entry

    def find(self, target: str) -> str | None:
        """The id of the record named by id, code or alias (case-insensitive for the last two)."""
        if target in self.errors:
            return target
        folded = target.casefold()
        for id_, (_, code, _, aliases) in self.errors.items():
            if (code and code.casefold() == folded) or folded in (a.casefold() for a in aliases):
                return id_
        return None

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
        for id_, (docname, code, title, _) in self.errors.items():
            yield id_, link_text(code, title), "error", docname, "", 1
            if code and code != id_:
                yield code, link_text(code, title), "error", docname, "", 0


def setup_domain(app: Sphinx) -> None:
    app.add_domain(ErrorDomain)
    # ``{err}`...``` without the domain prefix, as people will write it.
    app.add_role("err", err_role)
