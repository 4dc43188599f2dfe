"""``errorkb``: the command line.  Each sub-command is one ``cmd_*`` function.

It imports nothing from Sphinx, so it starts fast and works on a plain checkout.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .records import Catalogue, load_catalogue


def _catalogue(args: argparse.Namespace) -> tuple[Catalogue, list]:
    root = Path(args.root)
    return load_catalogue(root / args.records, root=root)


def cmd_check(args: argparse.Namespace) -> int:
    """Validate every record without building the site; one ``file:line: message`` per problem."""
    catalogue, problems = _catalogue(args)
    for problem in problems:
        print(problem)
    count = len(catalogue.records)
    if problems:
        print(f"{len(problems)} problem(s) in the records", file=sys.stderr)
        return 1
    print(f"{count} records OK", file=sys.stderr)
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    """Print a record in the terminal, like ``rustc --explain``."""
    catalogue, _ = _catalogue(args)
    record = catalogue.find(args.key)
    if record is None:
        print(f"errorkb: no error with the id, code or alias {args.key!r}", file=sys.stderr)
        return 2
    heading = f"{record.code}: {record.title}" if record.code else record.title
    print(heading, "=" * len(heading), "", record.summary, "", sep="\n")
    print("Messages:")
    for message in record.messages:
        print(f"  {message.template}")
    print()
    print(record.body.strip())
    return 0


#: Bytes of standard input kept (its end: errors come last); a UTF-8 character is 4 bytes at most.
_READ_LIMIT = 4 * 256 * 1024
_LOOKUP_EXIT = """exit status:
  0  at least one error matched exactly
  1  no exact match (closest records listed, if any)
  2  nothing to search: empty or binary input, unreadable index or records"""


def _read_paste(text: str | None) -> tuple[bytes, int]:
    """The paste (at most ``_READ_LIMIT`` bytes, its end) and its full size in bytes."""
    if text is not None and text != "-":
        data = text.encode("utf-8", "surrogateescape")
        return data[-_READ_LIMIT:], len(data)
    if sys.stdin is None:
        return b"", 0
    if sys.stdin.isatty():
        print("Paste the error, then press Ctrl-D:", file=sys.stderr)
    kept, total = b"", 0
    while chunk := sys.stdin.buffer.read(1 << 20):
        total += len(chunk)
        kept = (kept + chunk)[-_READ_LIMIT:]
    return kept, total


def _lookup_index(args: argparse.Namespace):
    from .lookup import LookupIndex, build_index

    if args.index:
        try:
            return LookupIndex.from_json(json.loads(Path(args.index).read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
            raise SystemExit(f"errorkb: cannot read the lookup index {args.index}: {exc}") from None
    catalogue, problems = _catalogue(args)
    if problems:
        print(f"errorkb: {len(problems)} problem(s) in the records (see 'errorkb check'); "
              "the other records are searched", file=sys.stderr)
    if not catalogue.records:
        raise SystemExit(f"errorkb: no records under {Path(args.root) / args.records}")
    return build_index(catalogue)


def cmd_lookup(args: argparse.Namespace) -> int:
    """Find the errors in a pasted message or log, best first."""
    from .lookup import looks_binary, lookup

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
        print(exc, file=sys.stderr)
        return 2
    result = lookup(index, paste, top=args.top)
    if total > len(data):
        result.notices.insert(0, f"The input has {total:,} bytes; only its last {len(data):,} were read.")
    for notice in result.notices:
        print(f"errorkb: {notice}", file=sys.stderr)
    if args.json:
        print(json.dumps({"matches": [m.as_json() for m in result.matches]}, indent=2))
    else:
        _print_matches(result.matches)
    return 0 if result.exact else 1


def _print_matches(matches: list) -> None:
    if not matches:
        print("No error in the catalogue matches this text.")
        return
    if not matches[0].exact:
        print("No exact match; the closest records (not exact):")
    for rank, m in enumerate(matches, 1):
        rec = m.record
        label = "exact" if m.exact else "closest, not exact"
        print(f"{rank}. {rec['code'] + ': ' if rec['code'] else ''}{rec['title']}  [{label}]")
        print(f"   {rec['url']}  ({rec['id']})")
        if m.exact:
            where = f"line {m.line + 1}" + (f"-{m.line + m.lines}" if m.lines > 1 else "")
            shown = m.text[m.span[0]:m.span[1]]
            print(f"   {where}: {shown[:300]}{'...' if len(shown) > 300 else ''}")
        for name, value in m.values.items():
            extra = f" ({value.number:,.0f} bytes)" if value.type == "size" and value.number is not None else ""
            print(f"   {name} = {value.text}{extra}")
        if m.explanation:
            print(f"   {m.explanation['text']}")
        if rec["fixes"]:
            print("   First fixes: " + "; ".join(rec["fixes"]))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="errorkb", description="A knowledge base of accelerator error messages.")
    parser.add_argument("--root", default=".", help="the site's folder (default: the current one)")
    parser.add_argument("--records", default="errors", help="the records' folder under the root (default: errors)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    check = sub.add_parser("check", help="validate every record")
    check.set_defaults(func=cmd_check)

    explain = sub.add_parser("explain", help="print the record for an id, code or alias")
    explain.add_argument("key", metavar="ID_OR_CODE")
    explain.set_defaults(func=cmd_explain)

    lookup = sub.add_parser(
        "lookup", help="find the errors in a pasted message or log",
        description="Find the errors in a message or log, best first: exact template matches, "
        "else the closest records. Reads standard input when TEXT is absent or '-', "
        "e.g. 'python train.py 2>&1 | errorkb lookup'.",
        epilog=_LOOKUP_EXIT, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    lookup.add_argument("text", nargs="?", metavar="TEXT", help="the error text ('-' or absent: standard input)")
    lookup.add_argument("--json", action="store_true",
                        help='print {"matches": [{"id", "code", "title", "score", "exact", "values", "url"}]}')
    lookup.add_argument("--top", type=int, default=5, metavar="K", help="show at most K errors (default: 5)")
    lookup.add_argument("--index", metavar="PATH",
                        help="search a built index (_build/html/_static/errorkb/lookup-index.json) "
                        "instead of the records")
    lookup.set_defaults(func=cmd_lookup)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `errorkb ... | head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
