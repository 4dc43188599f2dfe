"""What the build checks beyond the records' model, checked without it, from the same code: the
snippets of every page (:func:`~errorkb.examples.spec.make_snippet` by the site's rules), the
records' ``.verified.yaml`` files, the names that get redirect pages, raw output in records;
and, beyond the build, a snippet whose requirement is declared nowhere.  Nothing here imports Sphinx.
"""

from __future__ import annotations

from pathlib import Path

from packaging.requirements import Requirement

from ..core.page_rules import raw_output_problems, redirect_name_problems
from ..core.reading import Refused, read_file
from ..core.records import Catalogue, Problem
from ..examples.extract import snippets_in_text, snippets_of_record
from ..examples.requirements import program_path
from ..examples.rules import SnippetRules, snippet_rules
from ..examples.spec import Snippet
from ..examples.verified import load_verified, unknown_snippets, verified_path
from .project import Project

GUIDE_BYTES = 16 * 1024**2  # the most of a guide read for its snippets


def undeclared(snippet: Snippet, rules: SnippetRules) -> list[Problem]:
    """A requirement of ``snippet`` that is neither a declared package nor a program here.

    A snippet that also needs hardware is judged where it runs, not here."""
    if snippet.hardware:
        return []
    return [Problem(snippet.path, snippet.line,
                    f"snippet {snippet.id!r} requires {text!r}: {Requirement(text).name} is neither a package declared in "
                    f"{rules.packages_file} (which the set-up installs) nor a program on the sandbox's PATH here")
            for text in snippet.programs if program_path(Requirement(text).name) is None]


def _verified_problems(project: Project, record_path: str, known: set[str]) -> list[Problem]:
    path = verified_path(project.root / record_path)
    if not path.is_file():
        return []
    shown = path.relative_to(project.root).as_posix()
    entries, problems = load_verified(path, shown)
    return problems + unknown_snippets(entries, record_path, shown, known)


def page_problems(project: Project, catalogue: Catalogue, guides: list[Path]) -> list[Problem]:
    """Every problem the build finds in the pages of the loaded records and in ``guides``, beyond
    what loading the records found."""
    rules, problems = snippet_rules(project.settings, project.root)
    for record in catalogue.records.values():
        problems += redirect_name_problems(record)
        if not project.settings.allow_raw_html:
            problems += raw_output_problems(record)
        snippets, found = snippets_of_record(record, rules)
        problems += found + [p for s in snippets for p in undeclared(s, rules)]
        problems += _verified_problems(project, record.path, {s.key for s in snippets})
    for guide in guides:
        shown = guide.relative_to(project.root).as_posix()
        try:
            text = read_file(guide, GUIDE_BYTES).decode("utf-8")
        except (Refused, OSError, UnicodeDecodeError):
            continue  # the linter says so
        snippets, found = snippets_in_text(text, 1, path=shown, record_id=guide.stem, templates=(), rules=rules)
        problems += found + [p for s in snippets for p in undeclared(s, rules)]
    return problems
