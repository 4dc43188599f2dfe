"""Run many snippets: requirements first, then the cache, then the sandbox in parallel."""

from __future__ import annotations

import concurrent.futures
import dataclasses
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from . import requirements, sandbox
from .cache import ResultCache, cache_key
from .hardware import NO_HARDWARE, Profile
from .judge import NOT_RUN, Result, run_one
from .spec import Snippet

Progress = Callable[[Iterable[Snippet], int], Iterator[Snippet]]


@dataclasses.dataclass
class Report:
    results: dict[str, Result]  # snippet key -> result
    executed: list[str]  # keys of the snippets run in this call (not taken from the cache)
    unavailable: str | None = None  # why no snippet could run, where some had to


def default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def run_snippets(snippets: list[Snippet], cache_dir: Path | None, *, execute: bool = True, hardware: Profile = NO_HARDWARE,
                 jobs: int | None = None, progress: Progress | None = None) -> Report:
    """Decide every snippet's result on this machine as ``hardware`` probes it; with ``execute`` false,
    only the cache is consulted."""
    hw = requirements.machine(hardware)
    cache = ResultCache(cache_dir) if cache_dir is not None else None
    results: dict[str, Result] = {}
    todo: dict[str, tuple[Snippet, str, str]] = {}  # key -> (snippet, cache key, where)
    unavailable = None
    for snippet in snippets:
        if execute and snippet.programs and (why := sandbox.unavailable()):  # their versions are read in it
            results[snippet.key] = Result(NOT_RUN, why, transient=True)
            unavailable = why
            continue
        gap = requirements.unmet(snippet, hw)
        if gap:
            results[snippet.key] = Result(NOT_RUN, gap)
            continue
        key = cache_key(snippet, requirements.fingerprint(snippet, hw))
        cached = cache.get(key) if cache else None
        if cached is not None:
            results[snippet.key] = cached
        elif execute and (why := sandbox.unavailable()):
            results[snippet.key] = Result(NOT_RUN, why, transient=True)
            unavailable = why
        elif execute:
            todo[snippet.key] = (snippet, key, requirements.where(snippet, hw))
        else:
            results[snippet.key] = Result(NOT_RUN, "examples are not run in this build (errorkb_run_examples = False)")
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs or default_jobs()) as pool:
        futures = {pool.submit(run_one, snippet, where): (snippet, key) for snippet, key, where in todo.values()}
        done = concurrent.futures.as_completed(futures)
        by_snippet = {id(futures[f][0]): f for f in futures}
        order = (futures[f][0] for f in done)
        for snippet in progress(order, len(futures)) if progress else order:
            future = by_snippet[id(snippet)]
            result = future.result()
            results[snippet.key] = result
            if cache:
                cache.put(futures[future][1], result)
    return Report(results, list(todo), unavailable)
