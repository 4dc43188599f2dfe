"""The snippets in the build: after every page is read they run (or come from the cache), each
page's statuses are resolved, and each snippet that failed, was refused or could not run for an
error is a warning at its line, on every build, so that ``-W`` fails until it is fixed; ``-b
examples`` runs them all."""

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
from .judge import FAILED, NOT_RUN, Result
from .render import setup_render
from .rules import snippet_rules
from .runner import Report, run_snippets
from .spec import Snippet
from .verified import load_verified, unknown_snippets, verified_path

logger = logging.getLogger(__name__)

CACHE_FOLDER = "examples-cache"


def prepare_rules(app: Sphinx) -> None:
    """``builder-inited``: what the site allows its snippets and offers them, and the problems of
    its requirements file."""
    rules, problems = snippet_rules(settings(app.config), Path(app.srcdir))
    for problem in problems:
        logger.warning(problem.message, location=f"{problem.path}:{problem.line}", type="errorkb", subtype="snippet")
    err_domain(app.env).snippet_rules = rules


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
        entries, problems = load_verified(path, path.relative_to(srcdir).as_posix())
        problems += unknown_snippets(entries, record.path, path.relative_to(srcdir).as_posix(), known)
        for problem in problems:
            logger.warning(problem.message, location=f"{path}:{problem.line}", type="errorkb", subtype="verified")
        found.update({f"{record.path}::{snippet_id}": entry for snippet_id, entry in entries.items()})
    return found


def _last_line(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return f" (last line: {lines[-1][:200]})" if lines else ""


def warn_about_snippets(env: BuildEnvironment, snippets: list[Snippet], report: Report) -> None:
    """One warning, at its line, for each snippet refused, failed or not run for an error; one for a
    sandbox that cannot start."""
    domain = err_domain(env)
    for docname in sorted(domain.data["snippet_problems"]):
        for line, message in domain.data["snippet_problems"][docname]:
            logger.warning(message, location=(docname, line), type="errorkb", subtype="snippet")
    docnames = {s.key: d for d, page in domain.snippets.items() for s in page}
    for snippet in snippets:
        result = report.results.get(snippet.key)
        if result is None or (result.by_error and result.reason == report.unavailable):
            continue
        if result.status == FAILED:
            logger.warning(f"snippet {snippet.id!r} failed: {result.reason}{_last_line(result.output)}",
                           location=(docnames[snippet.key], snippet.line), type="errorkb", subtype="snippet")
        elif result.by_error:
            logger.warning(f"snippet {snippet.id!r} could not run: {result.reason}",
                           location=(docnames[snippet.key], snippet.line), type="errorkb", subtype="snippet")
    if report.unavailable:
        waiting = sum(1 for r in report.results.values() if r.by_error and r.reason == report.unavailable)
        logger.warning(f"{waiting} snippet(s) could not run: {report.unavailable}. Install bubblewrap "
                       "(see docs/examples.md), or build with -D errorkb_run_examples=0 to show cached results only",
                       type="errorkb", subtype="sandbox")


def summary(snippets: list[Snippet], report: Report) -> str:
    """``snippets: 14 passed, 1 failed, 2 not run ...``: one line, saying that a snippet whose
    requirements are missing here is not a failure."""
    results = [report.results.get(s.key, Result(NOT_RUN, "")) for s in snippets]
    wanting = sum(1 for r in results if r.status == NOT_RUN and not r.by_error)
    line = summary_line(results).replace("examples:", "snippets:").replace(" skipped", " not run")
    if wanting:
        line += f" ({wanting} for want of what they require here, which is not a failure)"
    return line + f"; {len(report.executed)} run, {len(snippets) - len(report.executed)} from the cache or not run"


def run_examples(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """``env-updated``: decide every snippet's status, warn about the bad ones; return the pages whose
    statuses changed."""
    domain = err_domain(env)
    snippets = domain.all_snippets()
    execute = settings(app.config).run_examples or app.builder.name == ExamplesBuilder.name

    def progress(items: Any, length: int) -> Any:
        return status_iterator(items, "running snippets... ", "darkgreen", length, app.verbosity,
                               stringify_func=lambda s: s.key)

    report = run_snippets(snippets, Path(app.doctreedir) / CACHE_FOLDER, execute=execute,
                          hardware=domain.snippet_rules.hardware, progress=progress)
    before = domain.snippet_results
    verified = load_all_verified(app, env)
    changed = verified != domain.verified
    domain.note_snippet_results(report.results, verified)
    warn_about_snippets(env, snippets, report)
    if snippets:
        logger.info(summary(snippets, report))
    pages = {d for d, page in domain.snippets.items()
             if changed or any(before.get(s.key) != report.results.get(s.key) for s in page)}
    return sorted(pages | domain.data["snippet_tables"].keys())


def setup_examples(app: Sphinx) -> None:
    setup_directives(app)
    setup_render(app)
    app.add_builder(ExamplesBuilder)
    app.connect("builder-inited", prepare_rules)
    app.connect("env-updated", run_examples)
