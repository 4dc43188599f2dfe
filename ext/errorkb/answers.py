"""The answers ``errorkb run``, the Python hook and the MCP server give, from a checkout's records.

One engine: the records are loaded by :func:`~errorkb.records.load_catalogue` and a paste is
matched by :func:`~errorkb.lookup.lookup`, as ``errorkb lookup`` does; no built site and no
network are needed.  Lookups answer ``{"matches": [...]}`` with the entries of
``errorkb lookup --json``; :meth:`Answers.block` is the short text printed under a failure.

The records are found in the folder given, else ``$ERRORKB_ROOT``, else the current folder,
else the checkout this package is installed from (an editable install): the first whose
records folder holds records.  Page URLs are absolute
when a base URL is known: ``$ERRORKB_BASE_URL``, else ``errorkb_base_url`` (or ``html_baseurl``)
written as a plain string in the site's ``conf.py``.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path
from typing import Any

from .lookup import Match, build_index, lookup, record_url
from .records import Catalogue, Record, load_catalogue, record_files

RECORDS = "errors"
#: Fields :meth:`Answers.records` filters on.
LIST_FIELDS = ("source", "platforms", "frameworks", "phase", "category")
#: At most this many fixes, and characters of the matched text, are shown in a block.
BLOCK_FIXES = 3
BLOCK_TEXT = 200


def find_root(root: str | os.PathLike[str] | None = None, records: str = RECORDS) -> Path:
    """The first folder whose ``records`` folder holds record files; LookupError names what
    was tried.  ``root`` wins when given (``"."``, the command line's default, counts as not
    given); a folder of the user's own that happens to be called ``errors`` is passed over.
    """
    if root is not None and str(root) != ".":
        candidates = [Path(root)]
    else:
        env = os.environ.get("ERRORKB_ROOT")
        candidates = [Path(env)] if env else [Path.cwd(), Path(__file__).resolve().parents[2]]
    for candidate in candidates:
        if record_files(candidate / records):
            return candidate
    tried = ", ".join(str(c / records) for c in dict.fromkeys(candidates))
    raise LookupError(f"no records in {tried}; give --root or set ERRORKB_ROOT to an errorkb checkout")


def base_url(root: Path) -> str:
    """The site's public URL ending in '/', or '' when none is known."""
    conf = _conf_strings(root / "conf.py")
    url = os.environ.get("ERRORKB_BASE_URL") or conf.get("errorkb_base_url") or conf.get("html_baseurl")
    return url.rstrip("/") + "/" if url else ""


def _conf_strings(path: Path) -> dict[str, str]:
    """Top-level ``name = "text"`` assignments of a ``conf.py``, read without running it."""
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return {}
    found: dict[str, str] = {}
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else \
            node.target if isinstance(node, ast.AnnAssign) else None
        value = getattr(node, "value", None)
        if isinstance(target, ast.Name) and isinstance(value, ast.Constant) and isinstance(value.value, str):
            found[target.id] = value.value
    return found


class Answers:
    """A loaded catalogue and its lookup index, with the questions the three front ends ask."""

    def __init__(self, catalogue: Catalogue, root: Path, base: str = ""):
        self.catalogue = catalogue
        self.root = root
        self.base_url = base
        self.index = build_index(catalogue, {i: self.url(r) for i, r in catalogue.records.items()})

    @classmethod
    def load(cls, root: str | os.PathLike[str] | None = None, records: str = RECORDS) -> Answers:
        """Load the records under :func:`find_root`; LookupError when there are none."""
        found = find_root(root, records)
        catalogue, _ = load_catalogue(found / records, root=found)
        if not catalogue.records:
            raise LookupError(f"no valid record under {found / records} (see 'errorkb check')")
        return cls(catalogue, found, base_url(found))

    def url(self, record: Record) -> str:
        return self.base_url + record_url(record)

    def matches(self, paste: str, top: int = 5) -> tuple[list[Match], list[str]]:
        result = lookup(self.index, paste, top=top)
        return result.matches, result.notices

    def lookup(self, paste: str, top: int = 5) -> dict[str, Any]:
        """``errorkb lookup --json``'s answer, with the notices it prints on standard error."""
        found, notices = self.matches(paste, top)
        return {"matches": [m.as_json() for m in found], "notices": notices}

    def explain(self, key: str) -> dict[str, Any] | None:
        """A record by id, code or alias: its fields, causes, fixes and debugging, and its URL."""
        record = self.catalogue.find(key)
        if record is None:
            return None
        return {**record.as_json(), "url": self.url(record)}

    def records(self, field: str | None = None, value: str | None = None) -> list[dict[str, Any]]:
        """The records whose ``field`` is (or lists) ``value``, case-insensitive; all without a field."""
        if field is not None and field not in LIST_FIELDS:
            raise ValueError(f"cannot list by {field!r}; the fields are {', '.join(LIST_FIELDS)}")
        wanted = (value or "").casefold()
        chosen = []
        for record in sorted(self.catalogue.records.values(), key=lambda r: r.id):
            if field is not None:
                have = getattr(record, field)
                have = have if isinstance(have, list) else [have]
                if wanted not in (str(h).casefold() for h in have):
                    continue
            chosen.append({"id": record.id, "code": record.code or None, "title": record.title,
                           "summary": record.summary, **{f: getattr(record, f) for f in LIST_FIELDS},
                           "url": self.url(record)})
        return chosen

    def block(self, paste: str, headline: str = "") -> str | None:
        """The short text shown under a failure whose output is ``paste``; None when no record
        matches it exactly.  The best match in full, the others by id."""
        exact = [m for m in self.matches(paste, top=5)[0] if m.exact]
        if not exact:
            return None
        best = exact[0]
        record = self.catalogue.records[best.record["id"]]
        shown = best.text[best.span[0]:best.span[1]].strip()
        lines = [headline] if headline else []
        lines.append(f"errorkb: {record.id}{' (' + record.code + ')' if record.code else ''}: {record.title}")
        lines.append(f"  matched: {shown[:BLOCK_TEXT]}{'...' if len(shown) > BLOCK_TEXT else ''}")
        for name, value in best.values.items():
            extra = f" ({value.number:,.0f} bytes)" if value.type == "size" and value.number is not None else ""
            lines.append(f"  {name} = {value.text}{extra}")
        for found in best.diagnoses:
            lines.append(f"  {found['message']} (fix {found['fix']}: {found['fix_title']})")
        for n, fix in enumerate(record.fixes[:BLOCK_FIXES], 1):
            lines.append(f"  fix {n}: {fix.title}")
        explain = "errorkb explain" if self.root.resolve() == Path.cwd().resolve() else f"errorkb --root {self.root} explain"
        lines.append(f"  more: {self.url(record) if self.base_url else f'{explain} {record.id}'}")
        if len(exact) > 1:
            lines.append("  also matched: " + ", ".join(m.record["id"] for m in exact[1:]))
        return "\n".join(lines) + "\n"
