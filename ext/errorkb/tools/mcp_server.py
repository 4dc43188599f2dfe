"""``errorkb mcp``: the catalogue as a Model Context Protocol server over standard input and output.

Coding agents get the answers people get: ``lookup`` answers as ``errorkb lookup --json`` does,
``explain`` gives a whole record, ``list_errors`` the records with a given field value.  It needs
the ``mcp`` package (``pip install 'errorkb[mcp]'``); the records are found as
:mod:`errorkb.tools.answers` describes, and read in their compiled form.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any, Literal

from pydantic import Field

from .answers import Answers

INSTRUCTIONS = """\
A knowledge base of error messages{sources}. When a program fails, pass its error output to \
`lookup`: an exact match names the record, the values read from the message and the page. Then \
`explain` the record for what it says: causes, the fixes in the order to try them, and more."""


def instructions(answers: Answers) -> str:
    """The server's instructions, naming the site's sources."""
    sources = answers.site.details["sources"]
    shown = ", ".join(sources[:12]) + (", ..." if len(sources) > 12 else "")
    return INSTRUCTIONS.format(sources=f" ({shown})" if sources else "")


def build_server(answers: Answers) -> Any:
    """An ``MCPServer`` with the three tools, answering from ``answers``."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer("errorkb", instructions=instructions(answers))

    @server.tool()
    def lookup(
        paste: Annotated[str, Field(description="The error output: a message, a traceback or the end of a log.")],
        top: Annotated[int, Field(ge=1, le=50, description="At most this many records.")] = 5,
    ) -> dict[str, Any]:
        """Find the known errors in a pasted message or log, best first.

        Answers {"matches": [{"id", "code", "title", "score", "exact", "also", "values", "url",
        "readings", "diagnoses", "fixes"}], "notices": [...]}, the matches as `errorkb lookup
        --json` prints them: exact template matches first (one record per message), then records
        whose templates matched the same lines less specifically ("also": true); without any, the
        closest records, with "exact": false.  "values" holds the parts read from the message,
        each with its "label" in words, sizes also in bytes; "readings" and "diagnoses" say what
        they mean; "fixes" are the record's fixes in the order the values call for (first the
        ones a diagnosis points to, last those it rules out), each with its "anchor" on the page."""
        if not paste.strip():
            raise ToolError("the paste is empty: give the error text")
        return answers.lookup(paste, top)

    @server.tool()
    def explain(
        key: Annotated[str, Field(description="A record's id (disk-full), one of its codes as printed (53100, HTTP 413) or an alias.")],
    ) -> dict[str, Any]:
        """A whole record: its fields, messages, causes, fixes in the order to try them, debugging
        steps, references and URL."""
        record = answers.explain(key)
        if record is None:
            raise ToolError(f"no error with the id, code or alias {key!r}; use list_errors to see them")
        return record

    def list_errors(
        field: str | None = None,
        value: Annotated[str | None, Field(description="The value it must be or list, e.g. a source's folder name.")] = None,
    ) -> dict[str, Any]:
        """The records, or those whose field is (or lists) a value: {"records": [{"id", "code",
        "title", "summary", "source", the site's fields, "url"}]}."""
        if (field is None) != (value is None):
            raise ToolError("give both field and value, or neither")
        return {"records": answers.records(field, value)}

    # The fields are the site's: the annotation is made here, not written in the source.
    list_errors.__annotations__["field"] = Annotated[
        Literal[tuple(answers.list_fields)] | None,
        Field(description="The field to filter on; none: every record."),
    ]
    server.tool()(list_errors)

    return server


def serve(root: str | None, records: str | None) -> int:
    """Serve until the client closes standard input."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        print("errorkb mcp: the mcp package is not installed: pip install 'errorkb[mcp]'", file=sys.stderr)
        return 2
    try:
        answers = Answers.load(root, records)
    except LookupError as exc:
        print(f"errorkb mcp: {exc}", file=sys.stderr)
        return 2
    build_server(answers).run("stdio")
    return 0
