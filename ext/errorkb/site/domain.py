"""The ``err`` domain: every record is an object that roles, the index and intersphinx can find,
and the domain holds the state of the whole knowledge base, reached through :func:`err_domain`.

``{err}`xla-e1000``` (or a code such as ``{err}`NCC_EOOM001```) links to a record's page with its
code and title as the link text.

The state, and where it lives:

* the catalogue of records and who is related to whom, loaded at ``builder-inited``
  (:func:`load_records`) and held for the build only: the record cache keeps it between builds;
* per document, in the domain data: the errors on a page, the errors a page links to with the
  role (for "Referenced by"), the related ids and catalogue rows a page showed, its snippets and
  whether it lists them all.  ``clear_doc`` and ``merge_domaindata`` keep these correct in
  incremental and parallel builds;
* once every page is read, in the domain data: what each page's generated links showed, and
  the snippets' results and verified entries, which the next build compares with its own;
* for the writing phase: who links to whom (``backlinks``).

Other Sphinx projects can load this module alone (``extensions = ["errorkb.site.domain",
"sphinx.ext.intersphinx"]``) to link to a published errorkb with ``{err}`...``` through its
``objects.inv``.
"""

from __future__ import annotations

from collections.abc import Iterator, Set
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from docutils import nodes
from docutils.nodes import Element
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.builders import Builder
from sphinx.domains import Domain, ObjType
from sphinx.environment import BuildEnvironment
from sphinx.roles import XRefRole
from sphinx.util import logging
from sphinx.util.nodes import make_refnode

from .config import settings
from ..core.record_cache import load_catalogue_cached
from ..core.records import Catalogue, Record
from ..examples.rules import SnippetRules

if TYPE_CHECKING:
    from ..examples.judge import Result
    from ..examples.spec import Snippet
    from ..examples.verified import Verification

logger = logging.getLogger(__name__)

#: Set on cross-references the extension writes itself (related lists, the catalogue), so that
#: only links written by authors count as "Referenced by".
GENERATED = "errorkb_generated"

#: Per-document maps in the domain data, cleared and merged by document name.
PER_DOC = ("ids", "references", "shown_related", "catalogues", "snippets", "snippet_problems", "snippet_tables")


def link_text(code: str | None, title: str) -> str:
    return f"{code}: {title}" if code else title


def searchable(text: str) -> str:
    """``text`` with its quotes typographic and ``&``, ``<`` and ``>`` in words: Sphinx's search
    index escapes them, and its results page shows the escapes as text."""
    return (text.replace("&", " and ").replace("<", "‹").replace(">", "›").replace('"', "”")
            .replace("'", "’").replace("  ", " "))


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
    object_types = {"error": ObjType("error", "err")}
    roles = {"err": _XREF}
    dangling_warnings = {"err": "unknown error %(target)r"}
    initial_data = {
        "errors": {},  # id -> (docname, code, title, aliases)
        "ids": {},  # docname -> ids of the errors on it, so clearing a page need not scan every error
        "references": {},  # docname -> targets linked with the role, as written
        "shown_related": {},  # docname of a record -> related ids its page shows
        "catalogues": {},  # docname -> fingerprint of the catalogue rows it shows
        "snippets": {},  # docname -> its snippets, in page order
        "snippet_problems": {},  # docname -> (line, message) of each snippet it refused
        "snippet_tables": {},  # docname -> True: the page lists every snippet and its status
        "shown_links": {},  # docname -> what its generated links showed when last written
        "snippet_results": {},  # snippet key -> its result in the last build
        "verified": {},  # snippet key -> its newest entry in a ``.verified.yaml``
    }
    data_version = 5

    def __init__(self, env: BuildEnvironment) -> None:
        super().__init__(env)
        #: The records of this build, set at ``builder-inited``.
        self.catalogue = Catalogue({})
        #: Id -> the ids it is related to, declared on either side.
        self.related: dict[str, list[str]] = {}
        #: Record id -> the documents that link to it with the role, set before pages are written.
        self.backlinks: dict[str, set[str]] = {}
        #: What the site allows its snippets and offers them, set at ``builder-inited``.
        self.snippet_rules = SnippetRules()

    def record_for(self, docname: str) -> Record | None:
        """The record whose page ``docname`` is, if it is one."""
        site = settings(self.env.config)
        if not site.is_record_page(docname):
            return None
        record = self.catalogue.records.get(docname.rsplit("/", 1)[-1])
        return record if record is not None and f"{site.records_dir}/{record.docname}" == docname else None

    @property
    def errors(self) -> dict[str, tuple[str, str | None, str, list[str]]]:
        return self.data["errors"]

    @property
    def snippets(self) -> dict[str, list[Snippet]]:
        return self.data["snippets"]

    @property
    def snippet_results(self) -> dict[str, Result]:
        return self.data["snippet_results"]

    @property
    def verified(self) -> dict[str, Verification]:
        return self.data["verified"]

    def all_snippets(self) -> list[Snippet]:
        """Every snippet of the site, by page name, then in page order."""
        return [s for docname in sorted(self.snippets) for s in self.snippets[docname]]

    def note_snippet_results(self, results: dict[str, Result], verified: dict[str, Verification]) -> None:
        self.data["snippet_results"] = results
        self.data["verified"] = verified

    def note_error(self, id_: str, docname: str, code: str | None, title: str, aliases: list[str]) -> None:
        self.errors[id_] = (docname, code, title, list(aliases))
        self.data["ids"].setdefault(docname, []).append(id_)

    def clear_doc(self, docname: str) -> None:
        for id_ in self.data["ids"].get(docname, ()):
            if self.errors.get(id_, ("",))[0] == docname:
                del self.errors[id_]
        for key in PER_DOC:
            self.data[key].pop(docname, None)

    def merge_domaindata(self, docnames: Set[str], otherdata: dict[str, Any]) -> None:
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
        """Ids and codes (searchable), then aliases (found by links and intersphinx, not search).

        Each points at the record's summary, whose id is the record's; the shown text has no
        character that the search index would escape and its page then show escaped."""
        for id_, (docname, code, title, aliases) in sorted(self.errors.items()):
            text = searchable(link_text(code, title))
            yield id_, text, "error", docname, id_, 1
            if code and code != id_:
                yield code, text, "error", docname, id_, 0
            for alias in dict.fromkeys(aliases):
                if alias not in (id_, code):
                    yield alias, text, "error", docname, id_, -1


def err_domain(env: BuildEnvironment) -> ErrorDomain:
    """The ``err`` domain of this build: the records, the links between pages, the snippets."""
    return cast(ErrorDomain, env.get_domain("err"))


def related_both_ways(catalogue: Catalogue) -> dict[str, list[str]]:
    """Id -> the ids the record lists in ``related``, then those of the records that list it."""
    reverse: dict[str, list[str]] = {}
    for id_ in sorted(catalogue.records):
        for rel in catalogue.records[id_].related:
            reverse.setdefault(rel, []).append(id_)
    return {id_: list(r.related) + [x for x in reverse.get(id_, []) if x not in r.related]
            for id_, r in catalogue.records.items()}


def load_records(app: Sphinx) -> None:
    """``builder-inited``: load and check every record before any page is read.

    Any problem is logged as ``file:line: ERROR: message`` and the build stops with exit
    status 1 before anything is written: a crash report would bury the one line that matters.
    """
    srcdir = Path(app.srcdir)
    site = settings(app.config)
    catalogue, problems = load_catalogue_cached(srcdir / site.records_dir, site.schema, srcdir, Path(app.doctreedir),
                                                site.max_record_size)
    if problems:
        for problem in problems:
            logger.error(problem.message, location=f"{problem.path}:{problem.line}", type="errorkb", subtype="record")
        logger.error("%d problem(s) in the error records; nothing was built.", len(problems), type="errorkb", subtype="record")
        raise SystemExit(1)
    domain = err_domain(app.env)
    domain.catalogue = catalogue
    domain.related = related_both_ways(catalogue)


def setup(app: Sphinx) -> dict[str, Any]:
    """The domain and its role; also usable alone, e.g. to link to a published errorkb through intersphinx."""
    app.add_domain(ErrorDomain)
    # ``{err}`...``` without the domain prefix, as people will write it.
    app.add_role("err", err_role)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 3}
