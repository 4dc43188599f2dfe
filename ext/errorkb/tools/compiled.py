"""The compiled catalogue: a site's records in the form the terminal tools answer from.

``errorkb lookup`` and ``explain``, ``errorkb run``, the Python hook and the MCP server read this
form instead of parsing every record: the lookup index (ids, codes, aliases, each template
with the word that short-lists it, the first fixes, the diagnoses; :meth:`LookupIndex.to_json`,
as the site ships it to the browser), the problems the records have, and each record's details
for ``explain`` and the MCP server.  Reading it needs neither the records' model (pydantic,
YAML, markdown-it) nor the site's ``conf.py``: :mod:`.catalogue_cache` keeps it between runs.

A compiled regular expression cannot be kept (Python stores a pattern as its source), so a
search compiles only the templates whose every literal a line of the paste holds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..core.lookup import LookupIndex, build_index, record_url

if TYPE_CHECKING:
    from .project import Project


class Compiled:
    """A site's compiled catalogue: ``head`` is what a lookup reads, ``details`` (read on first
    use) what ``explain`` and the MCP server add."""

    def __init__(self, head: dict[str, Any], details: Callable[[], dict[str, Any]]):
        self.head = head
        self._read_details = details

    @property
    def root(self) -> str:
        """The site's folder."""
        return self.head["root"]

    @property
    def records_dir(self) -> str:
        return self.head["records"]

    @property
    def record_files(self) -> int:
        """How many record files the records folder holds, valid or not."""
        return self.head["record_files"]

    @property
    def problems(self) -> list[str]:
        """Every problem of the records, as ``errorkb check`` prints it."""
        return self.head["problems"]

    @property
    def base_url(self) -> str:
        """The site's public URL as its ``conf.py`` gives it (``errorkb_base_url``, else ``html_baseurl``)."""
        return self.head["base_url"]

    def index(self, base: str = "") -> LookupIndex | None:
        """The lookup index, its pages' URLs under ``base``; None when no record is valid."""
        if self.head["index"] is None:
            return None
        index = LookupIndex.from_json(self.head["index"])
        if base:
            for record in index.records:
                record["url"] = base + record["url"]
            index.kinds = [kind._replace(url=base + kind.url) for kind in index.kinds]
        return index

    @property
    def details(self) -> dict[str, Any]:
        """``records``: id -> ``json`` (:meth:`Record.as_json`), ``url`` (its page, relative to
        the site), ``fields`` (the value of each field of ``fields`` as written); ``fields``: the source and the site's fields;
        ``sources``: the labels of the records' sources."""
        if not hasattr(self, "_details"):
            self._details = self._read_details()
        return self._details


def compile_project(project: Project) -> tuple[dict[str, Any], dict[str, Any]]:
    """Load ``project``'s records and compile them: the head and the details of :class:`Compiled`."""
    from ..core.records import record_files

    catalogue, problems = project.load()
    settings = project.settings
    fields = [f.name for f in settings.schema.dimensions]
    ordered = sorted(catalogue.records.values(), key=lambda r: r.id)
    index = build_index(catalogue, kinds=settings.kinds) if catalogue.records else None
    head = {"root": str(project.root), "records": str(project.records), "record_files": len(record_files(project.records)),
            "base_url": settings.base_url or project.html_baseurl, "problems": [str(p) for p in problems],
            "index": index.to_json() if index is not None else None}
    details = {"fields": fields,
               "sources": sorted({settings.schema.source.label_of(r.source) for r in ordered}),
               "records": {r.id: {"json": r.as_json(settings.schema), "url": record_url(r),
                                  "fields": {f: r.value(f) for f in fields}} for r in ordered}}
    return head, details
