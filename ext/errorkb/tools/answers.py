"""The answers ``errorkb run``, the Python hook and the MCP server give, from a checkout's records.

One engine: a paste is matched by :func:`~errorkb.core.lookup.lookup` against the site's
compiled catalogue (:mod:`.compiled`, kept between runs by :mod:`.catalogue_cache`), as
``errorkb lookup`` does; no built site and no network are needed.  Lookups answer
``{"matches": [...]}`` with the entries of ``errorkb lookup --json``; :meth:`Answers.block` is
the short text printed under a failure.

The site is the folder given, else ``$ERRORKB_ROOT``, else the one whose ``conf.py`` is in the
current folder or a parent, else the checkout this package is installed from (an editable
install): the first whose records folder holds records, read with the site's settings
(:mod:`.project`).  Page URLs are absolute when a base URL is known: ``$ERRORKB_BASE_URL``,
else ``errorkb_base_url`` (or ``html_baseurl``) in the site's ``conf.py``.
"""

from __future__ import annotations

import functools
import os
from typing import TYPE_CHECKING, Any

from ..core.lookup import Match, lookup
from .catalogue_cache import compiled_site
from .compiled import Compiled
from .meaning import meaning_lines
from .project import ProjectError, find_conf, open_project

if TYPE_CHECKING:
    from ..core.records import Catalogue
    from .project import Project

#: The checkout an editable install runs from: this file is its ext/errorkb/tools/answers.py.
CHECKOUT = os.path.realpath(os.path.join(__file__, os.pardir, os.pardir, os.pardir, os.pardir))
#: At most this many fixes, and characters of the matched text, are shown in a block.
BLOCK_FIXES = 3
BLOCK_TEXT = 200


def find_site(root: str | os.PathLike[str] | None = None, records: str | None = None) -> Compiled:
    """The compiled catalogue of the first site whose records folder holds record files;
    LookupError names what was tried.

    ``root`` wins when given (``None`` or ``"."``, the command line's default, count as not
    given); a folder of the user's own that happens to be called ``errors`` is passed over.
    """
    if root is not None and str(root) != ".":
        candidates = [os.fspath(root)]
    else:
        env = os.environ.get("ERRORKB_ROOT")
        conf = find_conf(os.getcwd())
        here = [os.path.dirname(conf)] if conf is not None else [os.getcwd()]
        candidates = [env] if env else [*here, CHECKOUT]
    tried = []
    for candidate in dict.fromkeys(candidates):
        try:
            site = compiled_site(candidate, records=records)
        except ProjectError as exc:
            tried.append(str(exc))
            continue
        if site.record_files:
            return site
        tried.append(str(site.records_dir))
    raise LookupError(f"no records in {', '.join(tried)}; give --root or set ERRORKB_ROOT to an errorkb site")


def base_url(configured: str) -> str:
    """The site's public URL ending in '/' (``$ERRORKB_BASE_URL``, else the one its ``conf.py``
    gives), or '' when none is known."""
    url = os.environ.get("ERRORKB_BASE_URL") or configured
    return url.rstrip("/") + "/" if url else ""


class Answers:
    """A site's compiled catalogue and its lookup index, with the questions the three front ends ask."""

    def __init__(self, site: Compiled, base: str = ""):
        index = site.index(base)
        if index is None:
            raise LookupError(f"no valid record under {site.records_dir} (see 'errorkb check')")
        self.site = site
        self.root = site.root
        self.base_url = base
        self.index = index

    @classmethod
    def load(cls, root: str | os.PathLike[str] | None = None, records: str | None = None) -> Answers:
        """The answers of :func:`find_site`'s site; LookupError when it has no valid record."""
        site = find_site(root, records)
        return cls(site, base_url(site.base_url))

    def matches(self, paste: str, top: int = 5) -> tuple[list[Match], list[str]]:
        result = lookup(self.index, paste, top=top)
        return result.matches, result.notices

    def lookup(self, paste: str, top: int = 5) -> dict[str, Any]:
        """``errorkb lookup --json``'s answer: the matches, the notices it prints on standard
        error and, when nothing matched exactly, the kind of error the paste looks like."""
        result = lookup(self.index, paste, top=top)
        return {"matches": [m.as_json() for m in result.matches], "notices": result.notices,
                "kind": result.kind.as_json() if result.kind else None}

    def url(self, record: dict[str, Any]) -> str:
        """A record's page, from its details."""
        return self.base_url + record["url"]

    def explain(self, key: str) -> dict[str, Any] | None:
        """A record by id, code or alias as ``errorkb explain --json`` gives it (:func:`.explain.explained`),
        read from the records themselves: the compiled catalogue keeps no prose or snippets."""
        from .explain import explained

        project, catalogue = self._records
        return explained(project, catalogue, key, self.base_url)

    @functools.cached_property
    def _records(self) -> tuple[Project, Catalogue]:
        project = open_project(self.root, records=os.path.relpath(self.site.records_dir, self.root))
        return project, project.load()[0]

    @property
    def list_fields(self) -> list[str]:
        """The fields :meth:`records` filters on: the source and the site's fields."""
        return self.site.details["fields"]

    def records(self, field: str | None = None, value: str | None = None) -> list[dict[str, Any]]:
        """The records whose ``field`` is (or lists) ``value``, case-insensitive; all without a field."""
        if field is not None and field not in self.list_fields:
            raise ValueError(f"cannot list by {field!r}; the fields are {', '.join(self.list_fields)}")
        wanted = (value or "").casefold()
        chosen = []
        for id_, record in self.site.details["records"].items():
            written = record["fields"]
            if field is not None and wanted not in (v.casefold() for v in _as_list(written[field])):
                continue
            data = record["json"]
            chosen.append({"id": id_, "code": data["code"], "title": data["title"], "summary": data["summary"],
                           **written, "url": self.url(record)})
        return chosen

    def block(self, paste: str, headline: str = "") -> str | None:
        """The short text shown under a failure whose output is ``paste``; None when no record
        matches it exactly.  The best match in full, the others by id."""
        matches = self.matches(paste, top=5)[0]
        exact = [m for m in matches if m.exact]
        if not exact:
            return None
        best = exact[0]
        record = best.record
        shown = best.text[best.span[0]:best.span[1]].strip()
        lines = [headline] if headline else []
        lines.append(f"errorkb: {record['id']}{' (' + record['code'] + ')' if record['code'] else ''}: {record['title']}")
        lines.append(f"  matched: {shown[:BLOCK_TEXT]}{'...' if len(shown) > BLOCK_TEXT else ''}")
        lines += ["  " + line for line in meaning_lines(best, BLOCK_FIXES)]
        here = os.path.realpath(self.root) == os.path.realpath(os.getcwd())
        explain = "errorkb explain" if here else f"errorkb --root {self.root} explain"
        lines.append(f"  more: {record['url'] if self.base_url else explain + ' ' + record['id']}")
        others = [m.record["id"] for m in matches if (m.exact or m.also) and m is not best]
        if others:
            lines.append("  also matched: " + ", ".join(others))
        return "\n".join(lines) + "\n"


def _as_list(value: Any) -> list[str]:
    """A field's value as written, as a list (empty where a record leaves it out)."""
    return [] if value is None else list(value) if isinstance(value, list) else [value]
