"""A record's MyST prose as a reader sees it: plain text for a terminal, or CommonMark.

The prose is parsed with markdown-it-py and the MyST plugins the record parser knows
(colon fences, roles, targets and comments); each block is then written out in the chosen
form.  What only a page can show is said in words: a directive's name becomes its title
(``Note:``), a ``{snippet}`` what it claims and its status (through :class:`Writer`'s
``snippet``), a role its text (``{err}`` the record's title), a heading its title.  Nothing
here imports Sphinx.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable

from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.myst_blocks import myst_block_plugin
from mdit_py_plugins.myst_role import myst_role_plugin

_PARSER = (MarkdownIt("commonmark").enable(["table", "strikethrough"])
           .use(colon_fence_plugin).use(myst_role_plugin).use(myst_block_plugin))
_DIRECTIVE = re.compile(r"^\{([\w:-]+)\}\s*(.*)$")
_OPTION = re.compile(r"^:[\w-]+:")
#: Directives whose body is prose under a title: the admonitions.
ADMONITIONS = {"note": "Note", "tip": "Tip", "hint": "Hint", "important": "Important", "warning": "Warning",
               "caution": "Caution", "attention": "Attention", "danger": "Danger", "error": "Error",
               "seealso": "See also", "admonition": ""}
#: Directives whose body is code.
CODE = {"code", "code-block", "sourcecode", "code-cell", "eval-rst"}

#: What a ``{snippet}`` becomes: given its kind, options and code, the lines to show.
SnippetWriter = Callable[[str, dict[str, str], str], list[str]]
#: What an ``{err}`` role becomes: the record's title (and a link in CommonMark), given its target.
RoleWriter = Callable[[str], tuple[str, str | None]]


def directive_parts(content: str) -> tuple[dict[str, str], str]:
    """A directive's ``:name: value`` options (its first lines) and the rest of its content."""
    lines = content.split("\n")
    options: dict[str, str] = {}
    while lines and _OPTION.match(lines[0].strip()):
        name, _, value = lines.pop(0).strip()[1:].partition(":")
        options[name] = value.strip()
    return options, "\n".join(lines).strip("\n")


class Writer:
    """Writes prose in one form: ``markdown`` false for a terminal's plain text, true for CommonMark."""

    def __init__(self, *, markdown: bool = False, width: int = 88, snippet: SnippetWriter | None = None,
                 role: RoleWriter | None = None, heading: Callable[[str], str] | None = None):
        self.markdown = markdown
        self.width = width
        self.snippet = snippet
        self.role = role
        self.heading = heading  # a heading's title as shown (a fix's variant by its value's label)

    def write(self, text: str, indent: str = "") -> str:
        """``text`` (MyST Markdown) rendered, each line after ``indent``."""
        return "\n".join(self._blocks(SyntaxTreeNode(_PARSER.parse(text)).children, indent)).rstrip("\n")

    # -- blocks -------------------------------------------------------------------------------

    def _blocks(self, nodes: list[SyntaxTreeNode], indent: str) -> list[str]:
        out: list[str] = []
        for node in nodes:
            lines = self._block(node, indent)
            if lines:
                out += [*lines, ""]
        while out and not out[-1]:
            out.pop()
        return out

    def _block(self, node: SyntaxTreeNode, indent: str) -> list[str]:
        kind = node.type
        if kind == "paragraph":
            return self._wrap(self._inline(node.children[0]), indent)
        if kind == "heading":
            title = self._inline(node.children[0])
            title = self.heading(title) if self.heading else title
            return [f"{indent}{'#' * int(node.tag[1:])} {title}"] if self.markdown else [f"{indent}{title}:"]
        if kind in ("bullet_list", "ordered_list"):
            return self._list(node, indent)
        if kind in ("fence", "colon_fence"):
            return self._fence(node.info.strip(), node.content, indent)
        if kind == "code_block":
            return self._code(node.content, "", indent)
        if kind == "blockquote":
            return [f"{indent}> {line}".rstrip() for line in self._blocks(node.children, "")]
        if kind == "table":
            return self._table(node, indent)
        if kind == "hr":
            return [f"{indent}---"]
        return []  # targets, comments, raw HTML: nothing a reader sees

    def _list(self, node: SyntaxTreeNode, indent: str) -> list[str]:
        out: list[str] = []
        start = int(node.attrs.get("start", 1) or 1)
        for n, item in enumerate(node.children):
            mark = f"{start + n}. " if node.type == "ordered_list" else "- "
            lines = self._blocks(item.children, indent + " " * len(mark))
            if lines:
                lines[0] = indent + mark + lines[0][len(indent) + len(mark):]
            out += lines
        return out

    def _fence(self, info: str, content: str, indent: str) -> list[str]:
        directive = _DIRECTIVE.match(info)
        if directive is None:
            return self._code(content, info.split(" ")[0], indent)
        name, argument = directive.group(1), directive.group(2).strip()
        options, body = directive_parts(content)
        if name == "snippet":
            lines = self.snippet(argument, options, body) if self.snippet else []
            return [f"{indent}{line}" if line else "" for line in lines]
        if name in CODE:
            return self._code(body, "rst" if name == "eval-rst" else argument, indent)
        if name in ADMONITIONS:
            title = argument if name == "admonition" else ADMONITIONS[name]
            inner = self._blocks(SyntaxTreeNode(_PARSER.parse(body)).children, indent + ("> " if self.markdown else "  "))
            head = f"{indent}> **{title}**" if self.markdown else f"{indent}{title}:"
            return [head, *inner]
        # Any other directive (tabs, dropdowns, figures): its title, then its content as prose.
        inner = self._blocks(SyntaxTreeNode(_PARSER.parse(body)).children, indent)
        return ([f"{indent}{'**' + argument + '**' if self.markdown else argument + ':'}"] if argument else []) + inner

    def _code(self, code: str, language: str, indent: str) -> list[str]:
        lines = code.rstrip("\n").split("\n")
        if self.markdown:
            fence = "`" * max(3, *(len(m) + 1 for m in re.findall(r"`{3,}", code)))
            return [f"{indent}{fence}{language}", *(f"{indent}{line}" for line in lines), f"{indent}{fence}"]
        return [f"{indent}    {line}".rstrip() for line in lines]

    def _table(self, node: SyntaxTreeNode, indent: str) -> list[str]:
        rows = [[self._inline(cell.children[0]) if cell.children else "" for cell in row.children]
                for part in node.children for row in part.children]
        if not rows:
            return []
        if self.markdown:
            lines = [f"{indent}| " + " | ".join(row) + " |" for row in rows]
            return [lines[0], f"{indent}|" + "---|" * len(rows[0]), *lines[1:]]
        return [f"{indent}" + " | ".join(row) for row in rows]

    def _wrap(self, text: str, indent: str) -> list[str]:
        if self.markdown:
            return [indent + line for line in text.split("\n")]
        return [wrapped for line in text.split("\n") for wrapped in
                textwrap.wrap(line, self.width, initial_indent=indent, subsequent_indent=indent,
                              break_long_words=False, break_on_hyphens=False) or [indent]]

    # -- inline -------------------------------------------------------------------------------

    def _inline(self, node: SyntaxTreeNode) -> str:
        return "".join(self._span(child) for child in node.children)

    def _span(self, node: SyntaxTreeNode) -> str:
        kind = node.type
        if kind == "text":
            return node.content
        if kind in ("softbreak",):
            return " "
        if kind == "hardbreak":
            return "\n"
        if kind == "code_inline":
            return f"`{node.content}`" if self.markdown else node.content
        if kind in ("em", "strong", "s"):
            inner = self._inline(node)
            marks = {"em": "*", "strong": "**", "s": "~~"}[kind]
            return f"{marks}{inner}{marks}" if self.markdown else inner
        if kind == "link":
            text, href = self._inline(node), str(node.attrs.get("href", ""))
            if self.markdown:
                return f"[{text}]({href})"
            return text if text == href or not href.startswith(("http:", "https:")) else f"{text} ({href})"
        if kind == "image":
            return f"[{node.attrs.get('alt') or self._inline(node)}]"
        if kind == "myst_role":
            return self._role(str(node.meta.get("name", "")), node.content)
        return self._inline(node) if node.children else node.content

    def _role(self, name: str, content: str) -> str:
        explicit = re.match(r"^(.*?)\s*<([^<>]+)>$", content)
        text, target = (explicit.group(1), explicit.group(2)) if explicit else ("", content)
        if name in ("err", "err:err") and self.role is not None:
            title, url = self.role(target)
            text = text or title
            return f"[{text}]({url})" if self.markdown and url else text
        text = text or target
        return f"`{text}`" if self.markdown and name in ("code", "literal", "samp", "file", "kbd") else text
