"""``errorkb``: the command line.  Each sub-command is one ``cmd_*`` function.

It imports nothing from Sphinx, and each command imports only what it uses: ``lookup`` and
``explain`` read the site's compiled catalogue (:mod:`.catalogue_cache`), and need neither the
records' model nor YAML while it is current, so they start fast.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import re
import shutil
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from .. import __version__

if TYPE_CHECKING:
    from pathlib import Path

    from ..core.lookup import LookupIndex, Triage
    from ..core.records import Catalogue
    from .compiled import Compiled
    from .project import Project


def _project(args: argparse.Namespace) -> Project:
    """The site of ``--conf``, ``--root`` or the working folder, with its ``conf.py``'s settings."""
    from pathlib import Path

    from .project import ProjectError, open_project

    if getattr(args, "project", None) is None:
        try:
            args.project = open_project(Path(args.root) if args.root else None,
                                        conf=Path(args.conf) if args.conf else None, records=args.records)
        except ProjectError as exc:
            print(f"errorkb: {exc}", file=sys.stderr)
            raise SystemExit(2) from None
    return args.project


def _site(args: argparse.Namespace) -> Compiled:
    """The compiled catalogue of the site :func:`_project` would open."""
    from .catalogue_cache import compiled_site
    from .project import ProjectError

    try:
        return compiled_site(args.root or None, conf=args.conf or None, records=args.records)
    except ProjectError as exc:
        print(f"errorkb: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def _site_markdown(project: Project) -> list[Path]:
    """The Markdown files Sphinx reads, as ``conf.py``'s include and exclude patterns say, records aside."""
    from sphinx.util.matching import get_matching_files

    records = project.records.relative_to(project.root).as_posix() + "/"
    found = get_matching_files(project.root, include_patterns=project.include_patterns,
                               exclude_patterns=(*project.exclude_patterns, "**/.*", "_build"))
    return sorted(project.root / name for name in found if name.endswith(".md") and not name.startswith(records))


def _lintable_records(project: Project) -> list[Path]:
    """The record files the loader reads: not those it refuses unread (too large, or leading out of the site)."""
    from ..core.records import leaves
    from .lint import markdown_files

    limit = project.settings.max_record_size
    return [p for p in markdown_files(project.records) if not leaves(p, project.root) and p.stat().st_size <= limit]


def cmd_check(args: argparse.Namespace) -> int:
    """Validate every record, its snippets and its verified results as the build does, and lint the
    prose of records and guides, without building the site.

    One ``file:line: message`` per problem on standard output; exit 1 on any, 2 when the site
    has no records.  Without rumdl (the check extra) the prose is not linted, and one line says so.
    """
    from ..core.code_catalogues import coverage, load_code_catalogues
    from .checks import page_problems
    from .lint import LintUnavailable, lint_prose
    from .project import ProjectError

    project = _project(args)
    try:
        project.require_records()
    except ProjectError as exc:
        print(f"errorkb check: {exc}", file=sys.stderr)
        return 2
    catalogue, problems = project.load()
    code_catalogues, catalogue_problems = load_code_catalogues(project.settings.code_catalogues, project.root)
    problems += catalogue_problems
    guides = _site_markdown(project)
    try:
        problems += page_problems(project, catalogue, guides)
    except ValueError as exc:  # the hardware profile conf.py names
        print(f"errorkb check: conf.py: {exc}", file=sys.stderr)
        return 2
    try:
        prose, linted = lint_prose(_lintable_records(project) + guides, root=project.root), "prose OK"
    except LintUnavailable as exc:
        prose, linted = [], "prose not linted"
        print(f"errorkb check: the prose is not linted: {exc}", file=sys.stderr)
    # A file the loader cannot read is reported by the linter too, in the same words: once is enough.
    problems = sorted(dict.fromkeys(problems + prose), key=lambda p: (p.path, p.line))
    for problem in problems:
        print(problem)
    _warn_stale(project, catalogue)
    for vendor in code_catalogues:
        covered = sum(record is not None for _, record in coverage(vendor, catalogue.records.values()))
        print(f"{vendor.title}: {covered} of {len(vendor.codes)} codes have a record", file=sys.stderr)
    count = len(catalogue.records)
    if problems:
        print(f"{len(problems)} problem(s) in the records and guides", file=sys.stderr)
        return 1
    print(f"{count} records OK, {linted}", file=sys.stderr)
    return 0


def _warn_stale(project: Project, catalogue: Catalogue) -> None:
    """Warn, without failing, about records whose check is older than the site allows."""
    from ..core.freshness import reasons_to_recheck

    options = project.settings
    if not options.checked_max_age and not options.current_releases:
        return
    for record in sorted(catalogue.records.values(), key=lambda r: r.path):
        if record.checked is None and not options.schema.require_checked:
            continue
        for reason in reasons_to_recheck(record, options.checked_max_age, options.current_releases):
            print(f"{record.path}:{record.line_of('checked')}: warning: check it again: {reason}")


def _answer(args: argparse.Namespace, name: str, question: str) -> str:
    """A flag's value, or, in a terminal only, the answer to ``question``."""
    value = getattr(args, name)
    if value is None and sys.stdin.isatty():
        value = input(f"{question}: ")
    return (value or "").strip()


def _pasted_message(args: argparse.Namespace) -> str:
    """The paste of ``--message``, ``--message-file`` (at most ``_READ_LIMIT`` bytes) or a terminal."""
    from ..core.reading import read_stream

    if args.message_file is not None:
        if args.message_file == "-":
            return read_stream(sys.stdin, _READ_LIMIT)
        with open(args.message_file, encoding="utf-8") as f:  # a pipe too: <(command)
            return read_stream(f, _READ_LIMIT)
    if args.message is not None or not sys.stdin.isatty():
        return args.message or ""
    # Read the whole paste, so that no line of it is left over for the shell to run.
    print("paste the error message, then an empty line:")
    lines = []
    for line in sys.stdin:
        if not line.strip():
            break
        lines.append(line)
    return "".join(lines)


def cmd_new(args: argparse.Namespace) -> int:
    """Write ``errors/<source>/<id>.md`` for a new error from one real pasted message."""
    from ..core.records import SCAFFOLD_MARKER
    from .scaffold import field_problems, pick_line, scaffold

    fields = {
        "id": _answer(args, "id", "id, a lower-case slug such as disk-full"),
        "code": _answer(args, "code", "the vendor's code as printed (empty if none)"),
        "source": _answer(args, "source", "source: the program or library that prints it, a lower-case slug"),
        "title": _answer(args, "title", "title, a few words"),
    }
    from ..core.reading import Refused

    try:
        paste = _pasted_message(args)
    except (OSError, UnicodeDecodeError, Refused) as exc:
        print(f"errorkb new: cannot read the message: {exc}", file=sys.stderr)
        return 2
    message, count = pick_line(paste)
    missing = [f"--{name}" for name in ("id", "source", "title") if not fields[name]]
    if not message:
        missing.append("--message")
    if missing:
        print(f"errorkb new: missing {', '.join(missing)} (it asks for them only in a terminal)", file=sys.stderr)
        return 2
    problems = field_problems(fields["id"], fields["source"], fields["title"], message)
    project = _project(args)
    path = project.records / fields["source"] / f"{fields['id']}.md"
    shown = path.relative_to(project.root).as_posix()
    catalogue, _ = project.load()
    for key in (fields["id"], fields["code"]):
        other = catalogue.find(key) if key else None
        if other is not None:
            problems.append(f"{key!r} is already used by {other.path}")
    for record in catalogue.records.values():
        if any(t.matches(message) for t in record.templates):
            problems.append(f"{record.path} already matches this message: add your paste to its examples instead")
    if path.exists():
        problems.append(f"{shown} exists already; it is never overwritten")
    if problems:
        for problem in problems:
            print(f"errorkb new: {problem}", file=sys.stderr)
        return 1
    path.parent.mkdir(parents=True, exist_ok=True)
    text = scaffold(fields["id"], fields["code"], fields["source"], fields["title"], message, project.settings.schema)
    with path.open("x", encoding="utf-8") as out:
        out.write(text)
    if count > 1:
        print(f"Used the last line of the {count}-line paste as the first example.")
    todo_lines = [str(n) for n, line in enumerate(text.split("\n"), 1) if SCAFFOLD_MARKER in line]
    print(f"""Wrote {shown}. Next:
  1. Check the template (the message with its variable parts as placeholders) and name each
     placeholder after what it holds rather than its type.
  2. Fill in what is empty and replace every {SCAFFOLD_MARKER} marker (lines {", ".join(todo_lines)}): values marked
     as guessed were read from the message; add more examples if you have them.
  3. Run `errorkb check` until it prints no problem, then build the site to read the page.""")
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    """Show a record as its page reads: its code and title, summary, the site's fields, its
    messages, the sections with the fixes in the order to try them, its snippets' claims and
    statuses, related records, references, and the page's address where the site's URL is known."""
    from .answers import base_url
    from .explain import explained, render

    project = _project(args)
    catalogue, _ = project.load()
    base = base_url(project.settings.base_url or project.html_baseurl)
    record, data = catalogue.find(args.key), explained(project, catalogue, args.key, base)
    if record is None or data is None:
        print(_shown(f"errorkb: no error with the id, code or alias {args.key!r}"), file=sys.stderr)
        return 2
    if args.json or args.format == "json":
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    width = max(40, min(shutil.get_terminal_size((89, 24)).columns, 101) - 1)
    text = render(record, data, project.settings, markdown=args.format == "markdown", width=width,
                  show_code=args.code, addresses=bool(base))
    print("\n".join(map(_shown, text.split("\n"))), end="")
    return 0


#: Bytes of standard input kept (its end: errors come last): as many as lookup.MAX_PASTE characters.
#: ``new`` reads no more of its message.
_READ_LIMIT = 10 * 1024 * 1024
#: The largest lookup index ``lookup --index`` reads (a site of some 50,000 records).
_INDEX_LIMIT = 128 * 1024 * 1024
_LOOKUP_EXIT = """exit status:
  0  at least one error matched exactly
  1  no exact match (closest records listed, if any)
  2  nothing to search: empty or binary input, unreadable index or records"""
# What a terminal would act on rather than show: control characters, bidi and other format marks.
_UNSHOWABLE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e"
                         r"\u2060-\u206f\ufeff\ufff9-\ufffb]")


def _shown(text: str) -> str:
    """``text`` safe to print to a terminal: what it would act on is written as an escape."""
    return _UNSHOWABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _read_paste(text: str | None) -> tuple[bytes, int]:
    """The paste (at most ``_READ_LIMIT`` bytes, its end) and its full size in bytes."""
    if text is not None and text != "-":
        data = text.encode("utf-8", "surrogateescape")
        return data[-_READ_LIMIT:], len(data)
    if sys.stdin is None:
        return b"", 0
    if sys.stdin.isatty():
        print("Paste the error, then press Ctrl-D:", file=sys.stderr)
    kept, total = bytearray(), 0
    while chunk := sys.stdin.buffer.read(1 << 20):
        total += len(chunk)
        kept += chunk
        if len(kept) > 2 * _READ_LIMIT:
            del kept[:-_READ_LIMIT]
    return bytes(kept[-_READ_LIMIT:]), total


def _lookup_index(args: argparse.Namespace) -> LookupIndex:
    from ..core.lookup import LookupIndex

    if args.index:
        from ..core.reading import Refused, read_file

        try:
            return LookupIndex.from_json(json.loads(read_file(args.index, _INDEX_LIMIT)))
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, Refused) as exc:
            raise SystemExit(f"errorkb: cannot read the lookup index {args.index}: {exc}") from None
        except RecursionError:
            raise SystemExit(f"errorkb: cannot read the lookup index {args.index}: it is nested too deeply") from None
    site = _site(args)
    if site.problems:
        print(f"errorkb: {len(site.problems)} problem(s) in the records (see 'errorkb check'); "
              "the other records are searched", file=sys.stderr)
    index = site.index()
    if index is None:
        raise SystemExit(f"errorkb: no records under {site.records_dir}")
    return index


def cmd_lookup(args: argparse.Namespace) -> int:
    """Find the errors in a message or log, best first: exact template matches, else the closest
    records. Reads standard input when TEXT is absent or '-', e.g. 'python train.py 2>&1 | errorkb lookup'."""
    from ..core.lookup import looks_binary, lookup

    if args.top < 1:
        print("errorkb: --top must be 1 or more", file=sys.stderr)
        return 2
    data, total = _read_paste(args.text)
    paste = data.decode("utf-8", "replace")
    if not paste.strip():
        print("errorkb: the input is empty: give the error as TEXT or pipe it in", file=sys.stderr)
        return 2
    if looks_binary(paste):
        print("errorkb: the input looks like binary data, not text; nothing was searched", file=sys.stderr)
        return 2
    try:
        index = _lookup_index(args)
    except SystemExit as exc:
        print(_shown(str(exc)), file=sys.stderr)
        return 2
    result = lookup(index, paste, top=args.top)
    if total > len(data):
        result.notices.insert(0, f"The input has {total:,} bytes; only its last {len(data):,} were read.")
    for notice in result.notices:
        print(f"errorkb: {notice}", file=sys.stderr)
    if args.json:
        print(json.dumps({"matches": [m.as_json() for m in result.matches],
                          "kind": result.kind.as_json() if result.kind else None}, indent=2, allow_nan=False))
    else:
        _print_matches(result.matches, result.kind)
    if not result.exact:
        sys.stdout.flush()
        _print_way_forward(index.report)
    return 0 if result.exact else 1


def _print_way_forward(report: str | None) -> None:
    """What to do about an error that is not in the catalogue (on standard error)."""
    if report:
        print(f"errorkb: not in the catalogue? Report it (check the paste for private paths and names first):\n"
              f"  {_shown(report)}", file=sys.stderr)
    print("errorkb: or start its record from the error line saved in a file:\n"
          "  errorkb new --id ID --source SOURCE --title TITLE --message-file FILE", file=sys.stderr)


#: Fixes shown under each match of ``errorkb lookup``, in the order its values call for.
LOOKUP_FIXES = 3


def _print_matches(matches: list, kind: Triage | None = None) -> None:
    from .meaning import meaning_lines

    if kind is not None:
        print(_shown(f"No exact match. This looks like: {kind.title}"))
        print(_shown(f"   What to check first: {kind.url}"))
    if not matches:
        print("No error in the catalogue matches this text." if kind is None else "No record of that kind is close.")
        return
    if not matches[0].exact:
        print("The closest records of that kind (not exact):" if kind is not None else
              "No exact match; the closest records (not exact):")
    for rank, m in enumerate(matches, 1):
        rec = m.record
        label = "exact" if m.exact else "also matches, less specific" if m.also else "closest, not exact"
        code = f"{rec['code']}: " if rec["code"] else ""
        print(_shown(f"{rank}. {code}{rec['title']}  [{label}]"))
        print(_shown(f"   {rec['url']}  ({rec['id']})"))
        if m.line is not None:
            where = f"line {m.line + 1}" + (f"-{m.line + m.lines}" if m.lines > 1 else "")
            shown = m.text[m.span[0]:m.span[1]]
            print(_shown(f"   {where}: {shown[:300]}{'...' if len(shown) > 300 else ''}"))
        for line in meaning_lines(m, LOOKUP_FIXES):
            print(_shown(f"   {line}"))


def cmd_run(args: argparse.Namespace) -> int:
    """Run CMD with its output passed through unchanged. When it fails (non-zero exit, or killed by a
    signal), print the record matching the end of its output on standard error. Exits with CMD's
    status (128+N for signal N; 127: not found)."""
    from .run import explain_from_records, run

    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        print("errorkb run: give the command to run: errorkb run -- CMD ARGS...", file=sys.stderr)
        return 2
    return run(command, explain_from_records(args.root, args.records))


def cmd_mcp(args: argparse.Namespace) -> int:
    """Serve the lookup to coding agents over the Model Context Protocol (standard input and output)."""
    from .mcp_server import serve

    return serve(args.root, args.records)


def _described(command: Callable[[argparse.Namespace], int]) -> str:
    """A command's description: its docstring, on one line."""
    return " ".join((command.__doc__ or "").split())


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="errorkb", description="Look up, explain and check the error records of an errorkb site.")
    parser.add_argument("--version", action="version", version=f"errorkb {__version__}")
    parser.add_argument("--root", help="the site's folder (default: where conf.py is, from the current folder upward)")
    parser.add_argument("--conf", metavar="PATH", help="the site's conf.py (default: found as --root says)")
    parser.add_argument("--records", help="the records' folder under the site (default: conf.py's errorkb_records_dir)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    check = sub.add_parser("check", help="validate every record and lint the prose of the site's Markdown pages")
    check.set_defaults(func=cmd_check)

    new = sub.add_parser("new", help="write a new record from one pasted error message")
    new.add_argument("--id", help="a lower-case slug, also the file name: disk-full")
    new.add_argument("--code", help="the code as printed (E0425, HTTP 413), if the error has one")
    new.add_argument("--source", help="who raises it, also the folder under the records: a lower-case slug")
    new.add_argument("--title", help="a short title")
    paste = new.add_mutually_exclusive_group()
    paste.add_argument("--message", help="one real error message, pasted as printed")
    paste.add_argument("--message-file", metavar="FILE", help="read the pasted message from FILE ('-': standard input)")
    new.set_defaults(func=cmd_new)

    explain = sub.add_parser("explain", help="show the record of an id, code or alias as its page reads",
                             description=_described(cmd_explain))
    explain.add_argument("key", metavar="ID_OR_CODE", help="a record's id, one of its codes (quote one with spaces: "
                         "'HTTP 413') or an alias")
    explain.add_argument("--format", choices=("text", "markdown", "json"), default="text",
                         help="text for a terminal (the default), markdown (CommonMark), or json (as the MCP server's explain)")
    explain.add_argument("--json", action="store_true", help="the same as --format json")
    explain.add_argument("--code", action="store_true", help="show each snippet's code too")
    explain.set_defaults(func=cmd_explain)

    lookup = sub.add_parser("lookup", help="find the errors in a pasted message or log", description=_described(cmd_lookup),
                            epilog=_LOOKUP_EXIT, formatter_class=argparse.RawDescriptionHelpFormatter)
    lookup.add_argument("text", nargs="?", metavar="TEXT", help="the error text ('-' or absent: standard input)")
    lookup.add_argument("--json", action="store_true",
                        help='print {"matches": [{"id", "code", "title", "score", "exact", "values", "url", '
                        '"line", "lines", "span", "text", "diagnoses"}]}, strict JSON')
    lookup.add_argument("--top", type=int, default=5, metavar="K", help="show at most K errors (default: 5)")
    lookup.add_argument("--index", metavar="PATH",
                        help="search a built index (_build/html/_static/errorkb-lookup-index.json) "
                        "instead of the records")
    lookup.set_defaults(func=cmd_lookup)

    run = sub.add_parser("run", help="run a command; when it fails, show the error record matching its output",
                         description=_described(cmd_run))
    run.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD [ARGS...]")
    run.set_defaults(func=cmd_run)

    mcp = sub.add_parser("mcp", help="serve the lookup to coding agents (Model Context Protocol, stdio)",
                         description="A Model Context Protocol server over standard input and output, "
                         "with the tools lookup, explain and list_errors. Needs: pip install 'errorkb[mcp]'.")
    mcp.set_defaults(func=cmd_mcp)
    return parser


def _stdout_gone() -> None:
    """Standard output can take nothing more: send what is left to /dev/null, so that the
    interpreter's own flush at exit does not fail again."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        status = args.func(args)
        sys.stdout.flush()
        return status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `errorkb ... | head`
        _stdout_gone()
        return 0
    except OSError as exc:
        if exc.errno != errno.ENOSPC:
            raise
        _stdout_gone()
        print(f"errorkb: cannot write: {exc.strerror}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
