"""Find the snippets of a record file without Sphinx (for pytest and ``errorkb`` tools).

Reads the same MyST fences the directive reads: ```` ```{snippet} <kind> ```` (or a ``:::``
colon fence), ``:option: value`` lines right after the opening line, then the code.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..records import Problem, RecordError, load_record
from ..config import Ceilings, Settings
from .spec import Snippet, SnippetError, make_snippet

_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|:{3,}|~{3,})(?P<info>.*)$")
_OPTION = re.compile(r"^:(?P<name>[\w-]+):\s*(?P<value>.*)$")
_SNIPPET = re.compile(r"^\{snippet\}\s*(?P<kind>.*?)\s*$")


def _closes(line: str, fence: str) -> bool:
    m = _FENCE.match(line)
    return bool(m and m.group("fence")[0] == fence[0] and len(m.group("fence")) >= len(fence) and not m.group("info").strip())


def snippets_in_text(body: str, first_line: int, *, path: str, record_id: str, templates: tuple[str, ...],
                     ceilings: Ceilings = Ceilings()) -> tuple[list[Snippet], list[Problem]]:
    """Snippets in a record's body; ``first_line`` is the file line of the body's first line."""
    lines = body.splitlines()
    snippets: list[Snippet] = []
    problems: list[Problem] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, opening = m.group("fence"), i
        kind = _SNIPPET.match(m.group("info").strip())
        i += 1
        options: dict[str, str] = {}
        while kind and i < len(lines) and (opt := _OPTION.match(lines[i].strip())):
            options[opt.group("name")] = opt.group("value")
            i += 1
        code: list[str] = []
        while i < len(lines) and not _closes(lines[i], fence):
            code.append(lines[i])
            i += 1
        i += 1
        if not kind:
            continue
        line = first_line + opening
        text = "\n".join(code).strip("\n")
        try:
            snippets.append(make_snippet(kind.group("kind"), options, text, path=path, line=line,
                                         record_id=record_id, templates=templates, ceilings=ceilings))
        except SnippetError as exc:
            problems.append(Problem(path, line, str(exc)))
    seen: set[str] = set()
    for snippet in snippets:
        if snippet.id in seen:
            problems.append(Problem(path, snippet.line, f"snippet id {snippet.id!r} is used twice on this page"))
        seen.add(snippet.id)
    return snippets, problems


def snippets_in_record(path: Path, root: Path, site: Settings) -> tuple[list[Snippet], list[Problem]]:
    """Load a record file of the site ``site`` and return its snippets, or the problems that stop it loading."""
    try:
        record = load_record(path, schema=site.schema, root=root, max_bytes=site.max_record_size)
    except RecordError as exc:
        return [], exc.problems
    templates = tuple(m.template for m in record.messages)
    return snippets_in_text(record.body, record.body_line, path=record.path, record_id=record.id, templates=templates,
                            ceilings=site.ceilings)
