"""The snippets in the build: after every page is read they run (or come from the cache) and
each page's statuses are resolved; ``-b examples`` runs them all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging
from sphinx.util.display import status_iterator

from ..site.config import settings
from ..site.domain import err_domain
from .builder import ExamplesBuilder, summary_line
from .directive import setup_directives
from .hardware import load_profile
from .render import resolve
from .runner import run_snippets
from .verified import load_verified, verified_path

logger = logging.getLogger(__name__)

CACHE_FOLDER = "examples-cache"


def load_all_verified(app: Sphinx, env: BuildEnvironment) -> dict[str, Any]:
    """Every record's ``.verified.yaml``, keyed like the snippets; problems are warnings."""
    srcdir = Path(app.srcdir)
    domain = err_domain(env)
    known = {s.key for s in domain.all_snippets()}
    found = {}
    for record in domain.catalogue.records.values():
        path = verified_path(srcdir / record.path)
        if not path.is_file():
            continue
        shown = path.relative_to(srcdir).as_posix()
        entries, problems = load_verified(path, shown)
        for problem in problems:
            logger.warning(problem.message, location=f"{path}:{problem.line}", type="errorkb", subtype="verified")
        for snippet_id, entry in entries.items():
            key = f"{record.path}::{snippet_id}"
            if key not in known:
                logger.warning(f"no snippet {snippet_id!r} on {record.path}", location=f"{path}:1",
                               type="errorkb", subtype="verified")
            found[key] = entry
    return found


def run_examples(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """``env-updated``: decide every snippet's status; return the pages whose statuses changed."""
    domain = err_domain(env)
    snippets = domain.all_snippets()
    execute = settings(app.config).run_examples or app.builder.name == ExamplesBuilder.name

    def progress(items: Any, length: int) -> Any:
        return status_iterator(items, "running snippets... ", "darkgreen", length, app.verbosity,
                               stringify_func=lambda s: s.key)

    report = run_snippets(snippets, Path(app.doctreedir) / CACHE_FOLDER, execute=execute,
                          hardware=load_profile(settings(app.config).hardware), progress=progress)
    before = domain.state.snippet_results
    verified = load_all_verified(app, env)
    changed = verified != domain.state.verified
    domain.note_snippet_results(report.results, verified)
    if snippets:
        logger.info(summary_line(list(report.results.values())).replace("examples:", "snippets:")
                    + f" ({len(report.executed)} run, {len(snippets) - len(report.executed)} from cache or skipped)")
    return sorted(docname for docname, page in domain.pages() if page.snippet_table or (page.snippets and (
        changed or any(before.get(s.key) != report.results.get(s.key) for s in page.snippets))))


def setup_examples(app: Sphinx) -> None:
    setup_directives(app)
    app.add_builder(ExamplesBuilder)
    app.connect("env-updated", run_examples)
    app.connect("doctree-resolved", resolve)
