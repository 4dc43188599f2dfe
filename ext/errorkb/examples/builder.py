"""``sphinx-build -b examples`` (``make doctest``): run every snippet, report, fail on a failure.

The snippets run when the environment is up to date (see :func:`errorkb.examples.run_examples`);
this builder writes no pages, only ``output.txt`` with one line per snippet and the summary
``examples: N passed, N failed, N skipped``, and sets a non-zero exit status on any failure.
"""

from __future__ import annotations

from collections.abc import Iterator, Set
from pathlib import Path

from docutils import nodes
from sphinx.builders import Builder
from sphinx.util import logging
from sphinx.util.console import bold, darkgreen, red

from ..site.domain import err_domain
from .judge import FAILED, NOT_RUN, PASSED, Result

logger = logging.getLogger(__name__)


def summary_line(results: list[Result]) -> str:
    count = {s: sum(r.status == s for r in results) for s in (PASSED, FAILED, NOT_RUN)}
    return f"examples: {count[PASSED]} passed, {count[FAILED]} failed, {count[NOT_RUN]} skipped"


def report_lines(keys: list[str], results: dict[str, Result]) -> list[str]:
    lines = []
    for key in keys:
        result = results.get(key, Result(NOT_RUN, "not run"))
        sandbox = f" [sandbox: {result.isolation}]" if result.isolation else ""
        lines.append(f"{key}: {result.status}: {result.reason}{sandbox}")
        if result.status == FAILED and result.output:
            lines += ["    " + line for line in result.output.rstrip().splitlines()[-30:]]
    return lines


class ExamplesBuilder(Builder):
    """Runs every snippet of the site and checks what each one claims."""

    name = "examples"
    epilog = "Snippet results are in %(outdir)s/output.txt."

    def init(self) -> None:
        pass

    def get_outdated_docs(self) -> Iterator[str]:
        yield from ()

    def get_target_uri(self, docname: str, typ: str | None = None) -> str:
        return ""

    def prepare_writing(self, docnames: Set[str]) -> None:
        pass

    def write_doc(self, docname: str, doctree: nodes.document) -> None:
        pass

    def finish(self) -> None:
        domain = err_domain(self.env)
        results = domain.state.snippet_results
        keys = [s.key for s in domain.all_snippets()]
        lines = report_lines(keys, results)
        for line in lines:
            colour = red if ": failed:" in line else darkgreen if ": passed:" in line else str
            logger.info(colour(line))
        summary = summary_line([results.get(k, Result(NOT_RUN, "")) for k in keys])
        Path(self.outdir).mkdir(parents=True, exist_ok=True)
        (Path(self.outdir) / "output.txt").write_text("\n".join([*lines, summary]) + "\n", encoding="utf-8")
        logger.info(bold(summary))
        if any(results.get(k, Result(NOT_RUN, "")).status == FAILED for k in keys):
            self._app.statuscode = 1  # as Sphinx's own doctest and linkcheck builders do
