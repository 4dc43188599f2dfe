"""What a record's page may hold beyond its model, judged alike by ``errorkb check`` and the build.

* The names that get a redirect page (a record's codes and aliases) must be file names.
* No raw output (an HTML block or an inline tag, comments included, the ``raw`` directive, raw
  output in an ``eval-rst`` block) unless the site sets ``errorkb_allow_raw_html``: found here in
  the Markdown as MyST reads it (markdown-it-py, HTML on), for ``errorkb check``; the build
  refuses the same nodes in :mod:`errorkb.site.containment`, in the same words.

Nothing here imports Sphinx.
"""

from __future__ import annotations

import functools
import re

from markdown_it import MarkdownIt
from mdit_py_plugins.colon_fence import colon_fence_plugin

from .records import Problem, Record

SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
ALLOW_RAW = "set errorkb_allow_raw_html = True in conf.py to publish it"
#: Directives whose content is code, not Markdown: nothing in them is published raw.
CODE_DIRECTIVES = frozenset({"code", "code-block", "sourcecode", "code-cell", "snippet", "literalinclude", "math"})
_RST_RAW = re.compile(r"^\s*\.\.\s+raw::\s*(\S+)")


def unsafe_name(name: str) -> str | None:
    """Why a code or alias gets no redirect page, or None."""
    if SAFE_NAME.match(name):
        return None
    return f"{name!r} cannot be a file name, so it gets no redirect page (letters, digits, '.', '_' and '-' only)"


def redirect_name_problems(record: Record) -> list[Problem]:
    problems = []
    for name in dict.fromkeys([*record.codes, *record.aliases]):
        field = "code" if name in record.codes else "aliases"
        why = None if name.casefold() == record.id.casefold() else unsafe_name(name)
        if why:
            problems.append(Problem(record.path, record.line_of(field), why))
    return problems


def raw_refusal(output_format: str) -> str:
    """The words of a refusal of raw output of ``output_format`` in a record."""
    what = "raw HTML" if output_format == "html" else f"raw {output_format} output"
    return f"{what} is not allowed in a record ({ALLOW_RAW})"


@functools.cache
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark").use(colon_fence_plugin)


def _raw_in(text: str, first_line: int) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for token in _parser().parse(text):
        if token.map is None:
            continue
        line = first_line + token.map[0]
        if token.type == "html_block":
            found.append((line, "html"))
        elif token.type == "inline":
            found += [(line, "html") for child in token.children or () if child.type == "html_inline"]
        elif token.type in ("fence", "colon_fence") and token.info.startswith("{") and "}" in token.info:
            directive = token.info[1:token.info.index("}")]
            if directive == "raw":
                found.append((line, token.info[token.info.index("}") + 1:].strip().split(" ")[0] or "html"))
            elif directive == "eval-rst":
                found += [(line + 1 + n, m.group(1)) for n, row in enumerate(token.content.splitlines())
                          if (m := _RST_RAW.match(row))]
            elif directive not in CODE_DIRECTIVES:
                found += _raw_in(token.content, line + 1)
    return found


def raw_output_problems(record: Record) -> list[Problem]:
    """Each piece of raw output in the record's prose, at its line."""
    return [Problem(record.path, line, raw_refusal(output_format))
            for line, output_format in sorted(set(_raw_in(record.body, record.body_line)))]
