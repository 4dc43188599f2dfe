"""The headings and code fences of a record's MyST Markdown, with their file lines.

One reader for the record parser (sections and fixes) and the snippet extractor (fences), built
on markdown-it-py, the parser that MyST itself uses, so that what counts as a heading or a fence
here is what counts on the page: ``#`` inside a fence or an indented code block is not a heading,
and a fence closes where CommonMark closes it.  Only block structure is parsed.
"""

from __future__ import annotations

import dataclasses
import functools

from markdown_it import MarkdownIt
from mdit_py_plugins.colon_fence import colon_fence_plugin


@dataclasses.dataclass(frozen=True)
class Heading:
    level: int
    title: str  # as written, inline markup included
    line: int


@dataclasses.dataclass(frozen=True)
class Fence:
    info: str  # what follows the opening backticks, tildes or colons: ``python``, ``{snippet} python``
    content: str
    line: int  # the line of the opening fence
    end: int  # the line after the fence's last (its closing fence, if any, included)

    @property
    def directive(self) -> str | None:
        """The directive of a MyST fence such as ``{tab-item} PyTorch``, or None."""
        if self.info.startswith("{") and "}" in self.info:
            return self.info[1 : self.info.index("}")]
        return None


@functools.cache
def _parser() -> MarkdownIt:
    parser = MarkdownIt("zero").enable(["heading", "lheading", "fence", "code"]).use(colon_fence_plugin)
    return parser.disable(["inline", "text_join"], ignoreInvalid=True)  # a heading's title stays as written


def outline(text: str, first_line: int = 1) -> list[Heading | Fence]:
    """The headings and top-level fences of ``text`` in order; ``first_line`` is the file line of its first line."""
    blocks: list[Heading | Fence] = []
    tokens = _parser().parse(text)
    for i, token in enumerate(tokens):
        if token.map is None or token.level:
            continue
        if token.type == "heading_open":
            blocks.append(Heading(int(token.tag[1]), tokens[i + 1].content, first_line + token.map[0]))
        elif token.type in ("fence", "colon_fence"):
            blocks.append(Fence(token.info.strip(), token.content, first_line + token.map[0], first_line + token.map[1]))
    return blocks


def fences(text: str, first_line: int = 1) -> list[Fence]:
    """Every fence of ``text``, those nested in a directive's content (``{tab-item}``...) included, in order."""
    found: list[Fence] = []
    for block in outline(text, first_line):
        if isinstance(block, Fence):
            found.append(block)
            if block.directive is not None:
                found += fences(block.content, block.line + 1)
    return found
