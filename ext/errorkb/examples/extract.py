"""Find the snippets of a page without Sphinx (for ``errorkb check`` and pytest).

Reads the fences the directive reads, with the Markdown reader the record parser uses
(:mod:`errorkb.core.markdown`): ```` ```{snippet} <kind> ```` (or a ``:::`` colon fence), also inside
another directive's content (a ``tab-item``), ``:option: value`` lines right after the
opening line, then the code.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..core.markdown import fences
from ..core.records import Problem, Record, RecordError, load_record
from ..core.settings import Settings
from .rules import SnippetRules, snippet_rules
from .spec import Snippet, SnippetError, make_snippet

_OPTION = re.compile(r"^:(?P<name>[\w-]+):\s*(?P<value>.*)$")


def snippets_in_text(body: str, first_line: int, *, path: str, record_id: str, templates: tuple[str, ...],
                     rules: SnippetRules = SnippetRules()) -> tuple[list[Snippet], list[Problem]]:
    """Snippets in a page's text; ``first_line`` is the file line of the text's first line."""
    snippets: list[Snippet] = []
    problems: list[Problem] = []
    for fence in fences(body, first_line):
        if fence.directive != "snippet":
            continue
        lines = fence.content.splitlines()
        options: dict[str, str] = {}
        while lines and (opt := _OPTION.match(lines[0].strip())):
            options[opt.group("name")] = opt.group("value")
            lines.pop(0)
        line = fence.line
        text = "\n".join(lines).strip("\n")
        kind = fence.info[len("{snippet}"):].strip()
        try:
            snippets.append(make_snippet(kind, options, text, path=path, line=line,
                                         record_id=record_id, templates=templates, rules=rules))
        except SnippetError as exc:
            problems.append(Problem(path, line, str(exc)))
    seen: set[str] = set()
    for snippet in snippets:
        if snippet.id in seen:
            problems.append(Problem(path, snippet.line, duplicate(snippet.id)))
        seen.add(snippet.id)
    return snippets, problems


def duplicate(snippet_id: str) -> str:
    return f"snippet id {snippet_id!r} is used twice on this page"


def snippets_of_record(record: Record, rules: SnippetRules) -> tuple[list[Snippet], list[Problem]]:
    """The snippets of a loaded record."""
    return snippets_in_text(record.body, record.body_line, path=record.path, record_id=record.id,
                            templates=tuple(m.template for m in record.messages), rules=rules)


def snippets_in_record(path: Path, root: Path, site: Settings) -> tuple[list[Snippet], list[Problem]]:
    """Load a record file of the site ``site`` and return its snippets, or the problems that stop it loading."""
    try:
        record = load_record(path, schema=site.schema, root=root, max_bytes=site.max_record_size)
    except RecordError as exc:
        return [], exc.problems
    rules, problems = snippet_rules(site, root)
    snippets, found = snippets_of_record(record, rules)
    return snippets, problems + found
