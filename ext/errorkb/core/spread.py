"""Loading the records in several processes, for a build run with ``-j``.

:func:`~errorkb.core.records.load_catalogue` does the same work in one process.  Here the
files not in the cache are parsed in forked worker processes, without matching their
examples; the records come back (a template without its compiled matcher, which pickling
leaves out), and the checks across records run as usual.  Then each worker matches the
examples of its share of the records, and looks them up against the whole catalogue's lookup
index (the cross-record check), compiling the templates it needs: each template is compiled
once, by the process that checks its record.  Where an example does not match its template,
the records are loaded again in one process, which reports the same problems in the same way.
Nothing here imports Sphinx.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
from pathlib import Path
from typing import Any

from .gc_pause import gc_paused
from .records import (
    Catalogue,
    Frontmatter,
    Problem,
    Record,
    RecordCache,
    RecordError,
    checks_across,
    claimed_by_others,
    example_problems,
    file_digest,
    load_record,
    placed_files,
)
from .schema import Schema

#: Record files below which forking workers costs more than it saves: these load in one process.
FEW = 64

#: What the workers of one step share, set before they are forked (never pickled).
_shared: dict[str, Any] = {}


def load_spread(folder: Path, *, schema: Schema, root: Path | None, cache: RecordCache | None, max_bytes: int,
                processes: int) -> tuple[Catalogue, list[Problem]] | None:
    """``load_catalogue`` in ``processes`` processes; None where an example fails, or for a few
    files (load them in one process then)."""
    problems, paths = placed_files(folder, root)
    if len(paths) < FEW:
        return None
    schema.model(Frontmatter)  # made before forking: the records the workers send back are its instances
    digests = {path: file_digest(path, schema, max_bytes) for path in paths} if cache is not None else {}
    hits = {path: cache[str(path)][1] for path, digest in digests.items()
            if digest is not None and cache is not None and cache.get(str(path), ("",))[0] == digest}
    parsed = iter(_in_workers(_parse, [p for p in paths if p not in hits], processes,
                              schema=schema, root=root, max_bytes=max_bytes))
    by_path: dict[Path, Record] = {}
    for path in paths:
        outcome = hits[path] if path in hits else next(parsed)
        if isinstance(outcome, Record):
            by_path[path] = outcome
        else:
            problems += outcome
    records, across = checks_across(folder, list(by_path.values()))
    from .lookup import build_index  # the lookup imports the records' module

    fresh = {record.id for path, record in by_path.items() if path not in hits}
    found = _in_workers(_check, list(records), processes, records=records, fresh=fresh,
                        index=build_index(Catalogue(records)))
    if any(examples for examples, _ in found):
        return None
    problems += across + [p for _, claimed in found for p in claimed]
    if cache is not None:
        cache.clear()
        cache.update({str(path): (digest, by_path[path]) for path, digest in digests.items()
                      if digest is not None and path in by_path})
    return Catalogue(records), sorted(problems, key=lambda p: (p.path, p.line))


def _in_workers(work: Any, items: list[Any], processes: int, **shared: Any) -> list[Any]:
    """``work`` on each item, in order, in ``processes`` forked workers that see ``shared``."""
    if not items:
        return []
    size = max(1, -(-len(items) // (processes * 4)))  # a few parts a worker, so that they end together
    parts = [items[i:i + size] for i in range(0, len(items), size)]
    _shared.update(shared)
    try:
        context = multiprocessing.get_context("fork")
        with concurrent.futures.ProcessPoolExecutor(processes, mp_context=context) as pool:
            return [result for part in pool.map(work, parts) for result in part]
    finally:
        _shared.clear()


def _parse(paths: list[Path]) -> list[Record | list[Problem]]:
    """In a worker: each file's record, its examples not yet matched, or its problems."""
    out: list[Record | list[Problem]] = []
    with gc_paused():
        for path in paths:
            try:
                out.append(load_record(path, schema=_shared["schema"], root=_shared["root"],
                                       max_bytes=_shared["max_bytes"], check_examples=False))
            except RecordError as exc:
                out.append(exc.problems)
    return out


def _check(ids: list[str]) -> list[tuple[list[Problem], list[Problem]]]:
    """In a worker: for each record, its examples that its templates do not match (fresh records
    only: a cached one was checked when it was parsed), and what other records claim of them."""
    records, index = _shared["records"], _shared["index"]
    with gc_paused():
        return [(example_problems(records[i]) if i in _shared["fresh"] else [],
                 claimed_by_others(records, index, [i])) for i in ids]
