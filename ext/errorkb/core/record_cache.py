"""Records loaded by the last build, kept next to the doctrees so a rebuild re-checks only changed files.

The cache maps each record file to the digest of its bytes and the record it gave; it is
discarded when the code that parses and checks records changes.  Nothing here imports Sphinx.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path

from .. import __version__
from . import diagnoses, markdown, records, schema as site_schema, templates, values
from .gc_pause import gc_paused
from .records import MAX_RECORD_BYTES, Catalogue, Frontmatter, Problem, RecordCache, load_catalogue
from .schema import Schema
from .spread import load_spread

CACHE_FILE = "errorkb-records.pickle"


def _fingerprint() -> str:
    """Changes whenever the record model, the template compiler or the diagnoses' checks do."""
    files = [Path(str(m.__file__)) for m in (records, site_schema, markdown, values, diagnoses)]
    files += sorted(Path(str(templates.__file__)).parent.glob("*.py"))
    code = b"".join(f.read_bytes() for f in files)
    return hashlib.blake2b(code + __version__.encode(), digest_size=16).hexdigest()


def read(cache_dir: Path) -> RecordCache:
    """The cache written by the last build, or an empty one if it is missing, stale or unreadable."""
    try:
        with (cache_dir / CACHE_FILE).open("rb") as f:
            fingerprint, cache = pickle.load(f)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError):
        return {}
    return cache if fingerprint == _fingerprint() and isinstance(cache, dict) else {}


def write(cache_dir: Path, cache: RecordCache) -> None:
    cache_dir.mkdir(parents=True, exist_ok=True)
    partial = cache_dir / f"{CACHE_FILE}.{os.getpid()}"
    with partial.open("wb") as f:
        pickle.dump((_fingerprint(), cache), f, pickle.HIGHEST_PROTOCOL)
    os.replace(partial, cache_dir / CACHE_FILE)


def load_catalogue_cached(folder: Path, schema: Schema, root: Path, cache_dir: Path,
                          max_bytes: int = MAX_RECORD_BYTES, processes: int = 1) -> tuple[Catalogue, list[Problem]]:
    """:func:`~errorkb.records.load_catalogue`, reusing the records of files that did not change,
    in ``processes`` processes; the records' compiled matchers are let go once they are checked.

    Reading the cache and loading the records run with the garbage collector paused (see :mod:`.gc_pause`).
    """
    schema.model(Frontmatter)  # made before the cache is read: its records are instances of it
    with gc_paused():
        cache = read(cache_dir)
        before = {path: digest for path, (digest, _) in cache.items()}
        spread = load_spread(folder, schema=schema, root=root, cache=cache, max_bytes=max_bytes,
                             processes=processes) if processes > 1 else None
        catalogue, problems = spread or load_catalogue(folder, schema=schema, root=root, cache=cache, max_bytes=max_bytes)
    for record in catalogue.records.values():
        for template in record.templates:
            template.release()
    if before != {path: digest for path, (digest, _) in cache.items()}:
        write(cache_dir, cache)
    return catalogue, problems
