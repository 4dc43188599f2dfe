"""Results kept between builds, keyed by a snippet's text, options and environment.

One JSON file per result under the build's cache folder (never the source tree).  A result
whose key is present is reused as is; a transient result (a time limit, a sandbox that could
not start: the machine, not the snippet, may be to blame) is not kept.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
from pathlib import Path

from .judge import Result
from .spec import Snippet

#: Bump to throw away every cached result when the runner's behaviour changes.
RUNNER_VERSION = 3


def cache_key(snippet: Snippet, fingerprint: dict[str, object]) -> str:
    what = dataclasses.asdict(snippet)
    for place in ("path", "line"):  # moving a snippet does not change its result
        del what[place]
    text = json.dumps({"runner": RUNNER_VERSION, "snippet": what, "environment": fingerprint}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


class ResultCache:
    def __init__(self, folder: Path):
        self.folder = folder

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> Result | None:
        try:
            return Result.from_json(json.loads(self._path(key).read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):
            return None

    def put(self, key: str, result: Result) -> None:
        if result.transient:
            return
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(result.as_json(), f)
        os.replace(tmp, path)
