"""The ``err`` domain: every record is an object that roles, the index and intersphinx can find,
and the domain holds the state of the whole knowledge base, reached through :func:`err_domain`.

``{err}`xla-e1000``` (or a code such as ``{err}`NCC_EOOM001```) links to a record's page with its
code and title as the link text.

The state, and where it lives:

* the records of this build and who is related to whom, given to :meth:`ErrorDomain.load` at
  ``builder-inited`` and held for the build only (the record cache keeps them between builds),
  with who links to whom once every page is read (:meth:`ErrorDomain.note_backlinks`);
* :class:`SiteState`, saved with the environment: per document (:class:`PageState`) the
  errors a page links to with the role, the related ids and catalogue rows it showed, its
  snippets and whether it lists them all, which ``clear_doc`` and ``merge_domaindata`` keep
  correct in incremental and parallel builds; and for the whole site what each page's
  generated links showed and the snippets' results and verified entries, which the next build
  compares with its own.

Every change goes through a method of the domain; other modules read it.  A record has a page
when its document is in the build (``errors/<source>/<id>``); :meth:`ErrorDomain.find` names it
by id, code or alias through the catalogue's one map of names.

Other Sphinx projects can load this module alone (``extensions = ["errorkb.site.domain",
"sphinx.ext.intersphinx"]``) to link to a published errorkb with ``{err}`...``` through its
``objects.inv``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Set
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from docutils import nodes
from docutils.nodes import Element
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.builders import Builder
from sphinx.config import Config
from sphinx.domains import Domain, ObjType
from sphinx.environment import BuildEnvironment
from sphinx.roles import XRefRole
from sphinx.util import logging
from sphinx.util.nodes import make_refnode
from sphinx.util.parallel import parallel_available

from ..core.record_cache import load_catalogue_cached
from ..core.records import Catalogue, Record, related_both_ways
from ..examples.rules import SnippetRules
from .config import settings

if TYPE_CHECKING:
    from ..examples.judge import Result
    from ..examples.spec import Snippet
    from ..examples.verified import Verification

logger = logging.getLogger(__name__)

#: The shape of the state saved with the environment: raise it whenever that changes, and
#: Sphinx discards an environment saved by older code instead of reading it.
STATE_VERSION = 7

#: Set on cross-references the extension writes itself (related lists, the catalogue), so that
#: only links written by authors count as "Referenced by".
GENERATED = "errorkb_generated"


@dataclasses.dataclass
class PageState:
    """What one document put in the state; cleared and merged with the document."""

    references: list[str] = dataclasses.field(default_factory=list)  # targets linked with the role, as written
    related: list[str] | None = None  # a record page: the related ids it shows
    catalogue: str | None = None  # fingerprint of the catalogue rows it shows
    snippets: list[Snippet] = dataclasses.field(default_factory=list)  # in page order
    snippet_problems: list[tuple[int, str]] = dataclasses.field(default_factory=list)  # (line, why) of each refused
    snippet_table: bool = False  # it lists every snippet of the site and its status


@dataclasses.dataclass
class SiteState:
    """The state saved with the environment."""

    pages: dict[str, PageState] = dataclasses.field(default_factory=dict)
    shown_links: dict[str, list[Any]] = dataclasses.field(default_factory=dict)  # docname -> what its generated links showed
    snippet_results: dict[str, Result] = dataclasses.field(default_factory=dict)  # snippet key -> its last result
    verified: dict[str, Verification] = dataclasses.field(default_factory=dict)  # snippet key -> newest entry


def link_text(config: Config, code: str | None, title: str) -> str:
    """A record's title as its page, links and the index show it: its code first, unless the
    site says otherwise (``errorkb_code_in_title``)."""
    return f"{code}: {title}" if code and settings(config).code_in_title else title


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
    initial_data = {"state": SiteState()}
    data_version = STATE_VERSION

    def __init__(self, env: BuildEnvironment) -> None:
        super().__init__(env)
        self.state: SiteState = self.data["state"]
        #: The records of this build (:meth:`load`).
        self.catalogue = Catalogue({})
        #: Id -> the ids it is related to, declared on either side.
        self.related: dict[str, list[str]] = {}
        #: Record id -> the documents that link to it with the role (:meth:`note_backlinks`).
        self.backlinks: dict[str, set[str]] = {}
        #: What the site allows its snippets and offers them (:meth:`note_snippet_rules`).
        self.snippet_rules = SnippetRules()

    # -- the records of this build

    def load(self, catalogue: Catalogue) -> None:
        """``builder-inited``: the records of this build, checked."""
        self.catalogue = catalogue
        self.related = related_both_ways(catalogue)

    def note_snippet_rules(self, rules: SnippetRules) -> None:
        """``builder-inited``: what the site allows its snippets and offers them."""
        self.snippet_rules = rules

    def docname_of(self, record: Record) -> str:
        return f"{settings(self.env.config).records_dir}/{record.docname}"

    def record_for(self, docname: str) -> Record | None:
        """The record whose page ``docname`` is, if it is one."""
        if not settings(self.env.config).is_record_page(docname):
            return None
        record = self.catalogue.records.get(docname.rsplit("/", 1)[-1])
        return record if record is not None and self.docname_of(record) == docname else None

    def find(self, target: str) -> Record | None:
        """The record named by id, code or alias (case ignored), if it has a page in this build."""
        record = self.catalogue.find(target)
        return record if record is not None and self.docname_of(record) in self.env.all_docs else None

    def published(self) -> list[Record]:
        """The records that have a page in this build, by id."""
        return [r for _, r in sorted(self.catalogue.records.items()) if self.docname_of(r) in self.env.all_docs]

    # -- per document

    def _page(self, docname: str) -> PageState:
        return self.state.pages.setdefault(docname, PageState())

    def note_related_shown(self, docname: str, ids: list[str]) -> None:
        self._page(docname).related = list(ids)

    def related_shown(self, docname: str) -> list[str]:
        """The related ids a record page lists (none for another page)."""
        page = self.state.pages.get(docname)
        return list(page.related or ()) if page is not None else []

    def note_catalogue_shown(self, docname: str, fingerprint: str) -> None:
        self._page(docname).catalogue = fingerprint

    def add_snippet(self, docname: str, snippet: Snippet) -> bool:
        """Keep ``snippet`` of page ``docname``; False, keeping nothing, when the page has its id already."""
        page = self._page(docname)
        if any(s.id == snippet.id for s in page.snippets):
            return False
        page.snippets.append(snippet)
        return True

    def note_snippet_problem(self, docname: str, line: int, message: str) -> None:
        """A snippet of page ``docname`` refused, warned about on every build."""
        self._page(docname).snippet_problems.append((line, message))

    def note_snippet_table(self, docname: str) -> None:
        self._page(docname).snippet_table = True

    def clear_doc(self, docname: str) -> None:
        self.state.pages.pop(docname, None)

    def merge_domaindata(self, docnames: Set[str], otherdata: dict[str, Any]) -> None:
        other: SiteState = otherdata["state"]
        self.state.pages.update((d, page) for d, page in other.pages.items() if d in docnames)

    def process_doc(self, env: BuildEnvironment, docname: str, document: nodes.document) -> None:
        """Remember the errors this page links to with the role (not the generated links)."""
        targets = sorted({
            node["reftarget"] for node in document.findall(addnodes.pending_xref)
            if node.get("refdomain") == "err" and not node.get(GENERATED)
        })
        if targets:
            self._page(docname).references = targets

    def pages(self) -> Iterable[tuple[str, PageState]]:
        """Every document that put something in the state, with what it put."""
        return self.state.pages.items()

    # -- once every page is read

    def note_backlinks(self) -> None:
        """Who links to whom with the role, for this build's writing phase."""
        out: dict[str, set[str]] = {}
        for docname, page in self.pages():
            for target in page.references:
                record = self.find(target)
                if record is not None and self.docname_of(record) != docname:
                    out.setdefault(record.id, set()).add(docname)
        self.backlinks = out

    def note_shown_links(self, shown: dict[str, list[Any]]) -> dict[str, list[Any]]:
        """Keep what each page's generated links show now; return what they showed before."""
        before, self.state.shown_links = self.state.shown_links, shown
        return before

    def all_snippets(self) -> list[Snippet]:
        """Every snippet of the site, by page name, then in page order."""
        return [s for _, page in sorted(self.pages(), key=lambda item: item[0]) for s in page.snippets]

    def snippet_pages(self) -> dict[str, str]:
        """Snippet key -> the page it is on."""
        return {s.key: docname for docname, page in self.pages() for s in page.snippets}

    def note_snippet_results(self, results: dict[str, Result], verified: dict[str, Verification]) -> None:
        self.state.snippet_results = results
        self.state.verified = verified

    # -- links

    def resolve_xref(self, env: BuildEnvironment, fromdocname: str, builder: Builder, typ: str,
                     target: str, node: addnodes.pending_xref, contnode: Element) -> nodes.reference | None:
        record = self.find(target)
        if record is None:
            return None
        text = link_text(env.config, record.code, record.title)
        if not node.get("refexplicit"):
            contnode = nodes.inline(classes=["xref", "err"], text=text)
        return make_refnode(builder, fromdocname, self.docname_of(record), "", contnode, text)

    def resolve_any_xref(self, env: BuildEnvironment, fromdocname: str, builder: Builder, target: str,
                         node: addnodes.pending_xref, contnode: Element) -> list[tuple[str, nodes.reference]]:
        ref = self.resolve_xref(env, fromdocname, builder, "err", target, node, contnode)
        return [("err:err", ref)] if ref is not None else []

    def get_objects(self) -> Iterator[tuple[str, str, str, str, str, int]]:
        """Ids and main codes (searchable), then other codes and aliases (found by links and
        intersphinx, not search).

        Each points at the record's summary, whose id is the record's; the shown text has no
        character that the search index would escape and its page then show escaped."""
        for record in self.published():
            text = searchable(link_text(self.env.config, record.code, record.title))
            docname = self.docname_of(record)
            yield record.id, text, "error", docname, record.id, 1
            if record.code and record.code != record.id:
                yield record.code, text, "error", docname, record.id, 0
            for alias in dict.fromkeys([*record.codes[1:], *record.aliases]):
                if alias not in (record.id, record.code):
                    yield alias, text, "error", docname, record.id, -1


def err_domain(env: BuildEnvironment) -> ErrorDomain:
    """The ``err`` domain of this build: the records, the links between pages, the snippets."""
    return cast(ErrorDomain, env.get_domain("err"))


def load_records(app: Sphinx) -> None:
    """``builder-inited``: load and check every record before any page is read (in as many
    processes as the build reads pages in).

    Any problem is logged as ``file:line: ERROR: message`` and the build stops with exit
    status 1 before anything is written: a crash report would bury the one line that matters.
    """
    srcdir = Path(app.srcdir)
    site = settings(app.config)
    processes = app.parallel if parallel_available and app.parallel > 1 else 1  # ``-j``
    catalogue, problems = load_catalogue_cached(srcdir / site.records_dir, site.schema, srcdir, Path(app.doctreedir),
                                                site.max_record_size, processes)
    if problems:
        for problem in problems:
            logger.error(problem.message, location=f"{problem.path}:{problem.line}", type="errorkb", subtype="record")
        logger.error("%d problem(s) in the error records; nothing was built.", len(problems), type="errorkb", subtype="record")
        raise SystemExit(1)
    err_domain(app.env).load(catalogue)


def setup(app: Sphinx) -> dict[str, Any]:
    """The domain and its role; also usable alone, e.g. to link to a published errorkb through intersphinx."""
    app.add_domain(ErrorDomain)
    # ``{err}`...``` without the domain prefix, as people will write it.
    app.add_role("err", err_role)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": STATE_VERSION}
