"""``errorkb``: the command line.  Each sub-command is one ``cmd_*`` function.

It imports nothing from Sphinx, so it starts fast and works on a plain checkout.
"""

from __future__ import annotations

import argparse
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
