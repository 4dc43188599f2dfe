"""The answers ``errorkb run``, the Python hook and the MCP server give, from a checkout's records.

One engine: the records are loaded by :func:`~errorkb.records.load_catalogue` and a paste is
matched by :func:`~errorkb.lookup.lookup`, as ``errorkb lookup`` does; no built site and no
network are needed.  Lookups answer ``{"matches": [...]}`` with the entries of
``errorkb lookup --json``; :meth:`Answers.block` is the short text printed under a failure.

The site is the folder given, else ``$ERRORKB_ROOT``, else the one whose ``conf.py`` is in the
current folder or a parent, else the checkout this package is installed from (an editable
install): the first whose records folder holds records, read with the site's settings
(:mod:`errorkb.project`).  Page URLs are absolute when a base URL is known:
``$ERRORKB_BASE_URL``, else ``errorkb_base_url`` (or ``html_baseurl``) in the site's ``conf.py``.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

from ..core.lookup import LookupIndex, Match, build_index, lookup, record_url
from ..core.records import Catalogue, Record, record_files, related_both_ways
from ..examples.extract import snippets_of_record
from ..examples.rules import snippet_rules
from ..examples.spec import CLAIMS, KINDS
from ..examples.verified import load_verified, verified_path
from .meaning import meaning_lines
from .project import Project, ProjectError, find_conf, open_project

#: At most this many fixes, and characters of the matched text, are shown in a block.
BLOCK_FIXES = 3
BLOCK_TEXT = 200


def find_project(root: str | os.PathLike[str] | None = None, records: str | None = None) -> Project:
    """The first site whose records folder holds record files; LookupError names what was tried.

    ``root`` wins when given (``None`` or ``"."``, the command line's default, count as not
    given); a folder of the user's own that happens to be called ``errors`` is passed over.
    """
    if root is not None and str(root) != ".":
        candidates = [Path(root)]
    else:
        env = os.environ.get("ERRORKB_ROOT")
        conf = find_conf(Path.cwd())
        here = [conf.parent] if conf is not None else [Path.cwd()]
        candidates = [Path(env)] if env else here + [Path(__file__).resolve().parents[3]]
    tried = []
    for candidate in dict.fromkeys(candidates):
        try:
            project = open_project(candidate, records=records)
        except ProjectError as exc:
            tried.append(str(exc))
            continue
        if record_files(project.records):
            return project
        tried.append(str(project.records))
    raise LookupError(f"no records in {', '.join(tried)}; give --root or set ERRORKB_ROOT to an errorkb site")


def base_url(project: Project) -> str:
    """The site's public URL ending in '/', or '' when none is known."""
    url = os.environ.get("ERRORKB_BASE_URL") or project.settings.base_url or project.html_baseurl
    return url.rstrip("/") + "/" if url else ""


class Answers:
    """A loaded catalogue and its lookup index, with the questions the three front ends ask."""

    def __init__(self, catalogue: Catalogue, project: Project, base: str = ""):
        self.catalogue = catalogue
        self.project = project
        self.root = project.root
        self.base_url = base

    @functools.cached_property
    def index(self) -> LookupIndex:
        """The lookup index, made on the first lookup (``explain`` needs none)."""
        kinds = self.project.settings.kinds
        return build_index(self.catalogue, {i: self.url(r) for i, r in self.catalogue.records.items()}, kinds=kinds,
                           kind_urls={k.name: f"{self.base_url}{k.page}.html" for k in kinds})

    @classmethod
    def load(cls, root: str | os.PathLike[str] | None = None, records: str | None = None) -> Answers:
        """Load the records of :func:`find_project`'s site; LookupError when there are none."""
        project = find_project(root, records)
        catalogue, _ = project.load()
        if not catalogue.records:
            raise LookupError(f"no valid record under {project.records} (see 'errorkb check')")
        return cls(catalogue, project, base_url(project))

    def url(self, record: Record) -> str:
        return self.base_url + record_url(record)

    def matches(self, paste: str, top: int = 5) -> tuple[list[Match], list[str]]:
        result = lookup(self.index, paste, top=top)
        return result.matches, result.notices

    def lookup(self, paste: str, top: int = 5) -> dict[str, Any]:
        """``errorkb lookup --json``'s answer: the matches, the notices it prints on standard
        error and, when nothing matched exactly, the kind of error the paste looks like."""
        result = lookup(self.index, paste, top=top)
        return {"matches": [m.as_json() for m in result.matches], "notices": result.notices,
                "kind": result.kind.as_json() if result.kind else None}

    def explain(self, key: str) -> dict[str, Any] | None:
        """A record by id, code or alias: its fields (and, as its page shows them, the site's by
        their labels and the source's label), its prose, the records related to it either way,
        its snippets with what they claim and their status, and its URL."""
        record = self.catalogue.find(key)
        if record is None:
            return None
        schema = self.project.settings.schema
        related = [self.catalogue.records[i] for i in related_both_ways(self.catalogue)[record.id]]
        return {**record.as_json(schema), "url": self.url(record), "source_label": schema.source.label_of(record.source),
                "fields": [{"name": f.name, "label": f.label, "values": [f.label_of(v) for v in record.values(f.name)]}
                           for f in schema.fields if f.json and record.values(f.name)],
                "related_records": [{"id": r.id, "code": r.code, "title": r.title, "url": self.url(r)} for r in related],
                "snippets": self.snippets(record)}

    def snippets(self, record: Record) -> list[dict[str, Any]]:
        """What each snippet of a record claims and, where the site keeps a result from a machine
        the build lacks (``.verified.yaml``), its status; the build runs the others."""
        rules, _ = snippet_rules(self.project.settings, self.root)
        found, _ = snippets_of_record(record, rules)
        verified, _ = load_verified(verified_path(self.root / record.path), record.path)
        out = []
        for snippet in found:
            entry = verified.get(snippet.id)
            status = f"last verified on {entry.summary()}" if entry else "run by the site's build: its page shows the result"
            out.append({"id": snippet.id, "kind": snippet.kind, "claim": CLAIMS[snippet.kind], "promise": KINDS[snippet.kind],
                        "requires": snippet.requires, "status": status, "code": snippet.code})
        return out

    @property
    def list_fields(self) -> list[str]:
        """The fields :meth:`records` filters on: the source and the site's fields."""
        return [f.name for f in self.project.settings.schema.dimensions]

    def records(self, field: str | None = None, value: str | None = None) -> list[dict[str, Any]]:
        """The records whose ``field`` is (or lists) ``value``, case-insensitive; all without a field."""
        if field is not None and field not in self.list_fields:
            raise ValueError(f"cannot list by {field!r}; the fields are {', '.join(self.list_fields)}")
        wanted = (value or "").casefold()
        chosen = []
        for record in sorted(self.catalogue.records.values(), key=lambda r: r.id):
            if field is not None and wanted not in (v.casefold() for v in record.values(field)):
                continue
            chosen.append({"id": record.id, "code": record.code or None, "title": record.title,
                           "summary": record.summary, **{f: record.value(f) for f in self.list_fields},
                           "url": self.url(record)})
        return chosen

    def block(self, paste: str, headline: str = "") -> str | None:
        """The short text shown under a failure whose output is ``paste``; None when no record
        matches it exactly.  The best match in full, the others by id."""
        matches = self.matches(paste, top=5)[0]
        exact = [m for m in matches if m.exact]
        if not exact:
            return None
        best = exact[0]
        record = self.catalogue.records[best.record["id"]]
        shown = best.text[best.span[0]:best.span[1]].strip()
        lines = [headline] if headline else []
        lines.append(f"errorkb: {record.id}{' (' + record.code + ')' if record.code else ''}: {record.title}")
        lines.append(f"  matched: {shown[:BLOCK_TEXT]}{'...' if len(shown) > BLOCK_TEXT else ''}")
        lines += ["  " + line for line in meaning_lines(best, BLOCK_FIXES)]
        explain = "errorkb explain" if self.root.resolve() == Path.cwd().resolve() else f"errorkb --root {self.root} explain"
        lines.append(f"  more: {self.url(record) if self.base_url else f'{explain} {record.id}'}")
        others = [m.record["id"] for m in matches if (m.exact or m.also) and m is not best]
        if others:
            lines.append("  also matched: " + ", ".join(others))
        return "\n".join(lines) + "\n"
