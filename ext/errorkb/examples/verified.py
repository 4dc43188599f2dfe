"""What a snippet did on hardware the build machine lacks, kept as data next to its record.

``errors/<source>/<id>.verified.yaml`` is a list of entries, one per run worth keeping::

    - snippet: oom-on-gpu          # the snippet's :id:
      date: 2026-05-01
      device: NVIDIA H100 80GB HBM3
      status: passed               # passed or failed
      versions: {python: 3.11.7, jax: 0.10.2, cuda: "12.8"}
      output: |
        the exact message seen

The page shows the newest entry of each snippet as "last verified on".  Nothing here
imports Sphinx.
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..core.reading import Refused, read_file
from ..core.records import MAX_RECORD_BYTES, SLUG, Loader, Problem

SUFFIX = ".verified.yaml"


class Verification(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    snippet: str = Field(pattern=SLUG)
    date: datetime.date
    device: str = Field(min_length=2, max_length=200)
    status: Literal["passed", "failed"]
    versions: dict[str, str] = {}
    output: str = ""

    def summary(self) -> str:
        versions = ", ".join(f"{k} {v}" for k, v in self.versions.items())
        return f"{self.device}, {self.date.isoformat()}: {self.status}" + (f" ({versions})" if versions else "")


def verified_path(record_path: Path) -> Path:
    return record_path.with_name(record_path.stem + SUFFIX)


def load_verified(path: Path, shown: str) -> tuple[dict[str, Verification], list[Problem]]:
    """The newest entry per snippet id, and the problems found (file and line)."""
    try:
        text = read_file(path, MAX_RECORD_BYTES).decode("utf-8")
        node = yaml.compose(text, Loader=Loader)
        data = yaml.load(text, Loader=Loader)
    except (OSError, UnicodeDecodeError, Refused) as exc:
        return {}, [Problem(shown, 1, f"cannot read the file: {exc}")]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return {}, [Problem(shown, mark.line + 1 if mark else 1, f"invalid YAML: {getattr(exc, 'problem', exc)}")]
    if data is None:
        return {}, []
    if not isinstance(data, list) or not isinstance(node, yaml.SequenceNode):
        return {}, [Problem(shown, 1, "a .verified.yaml file is a list of entries (- snippet: ...)")]
    newest: dict[str, Verification] = {}
    problems: list[Problem] = []
    for item, item_node in zip(data, node.value):
        line = item_node.start_mark.line + 1
        try:
            entry = Verification.model_validate(item)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(map(str, err["loc"])) or "entry"
            problems.append(Problem(shown, line, f"{field}: {err['msg']}"))
            continue
        if entry.snippet not in newest or newest[entry.snippet].date <= entry.date:
            newest[entry.snippet] = entry
    return newest, problems
