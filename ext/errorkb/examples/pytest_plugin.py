"""pytest plugin: every snippet of every record is a test item, ``errors/<source>/<id>.md::<snippet id>``.

Enabled with ``-p errorkb.examples.pytest_plugin`` (see ``pyproject.toml``).  Items whose
requirements are missing, or that no sandbox can run on this machine, are skipped with the
reason; a failing item reports why, and the end of what the snippet printed.  The snippets are
read by the site's rules (its ceilings, hardware, languages and declared packages), from its
``conf.py``.  Results are not cached: a test run always runs.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..core.settings import Settings
from ..tools.project import ProjectError, open_project
from . import requirements, sandbox
from .extract import snippets_in_record
from .hardware import Machine, load_profile
from .judge import FAILED, Result, run_one
from .spec import Snippet


class SnippetFailed(Exception):
    def __init__(self, result: Result):
        super().__init__(result.reason)
        self.result = result


@functools.cache
def site_settings(root: Path) -> Settings:
    """The settings of the site whose ``conf.py`` is in ``root`` (the defaults where it sets none)."""
    return open_project(root).settings


class RecordFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        try:
            site = site_settings(self.config.rootpath)
            hw = requirements.machine(load_profile(site.hardware))
        except (ProjectError, ValueError) as exc:
            raise self.CollectError(str(exc)) from None
        why = sandbox.unavailable()
        snippets, problems = snippets_in_record(self.path, self.config.rootpath, site)
        if problems:
            raise self.CollectError("\n".join(map(str, problems)))
        for snippet in snippets:
            item = SnippetItem.from_parent(self, name=snippet.id, snippet=snippet, hw=hw)
            gap = why if why and snippet.programs else requirements.unmet(snippet, hw) or why
            if gap:  # skipped at collection, so the report points at the snippet
                item.add_marker(pytest.mark.skip(reason=gap))
            yield item


class SnippetItem(pytest.Item):
    def __init__(self, *, snippet: Snippet, hw: Machine, **kwargs: Any):
        super().__init__(**kwargs)
        self.snippet = snippet
        self.hw = hw

    def runtest(self) -> None:
        result = run_one(self.snippet, requirements.where(self.snippet, self.hw))
        if result.status == FAILED:
            raise SnippetFailed(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, SnippetFailed):
            result = excinfo.value.result
            tail = "\n".join(result.output.rstrip().splitlines()[-40:])
            snippet = self.snippet
            return f"{snippet.path}:{snippet.line}: {snippet.kind} snippet {snippet.id!r} failed: {result.reason}\n{tail}"
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.snippet.line - 1, self.snippet.id


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> RecordFile | None:
    if file_path.suffix != ".md":
        return None
    try:
        records = parent.config.rootpath / site_settings(parent.config.rootpath).records_dir
    except ProjectError:
        return None  # reported by the build and by errorkb check
    if file_path.parent.parent == records:
        return RecordFile.from_parent(parent, path=file_path)
    return None
