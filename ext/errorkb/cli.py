"""``errorkb``: the command line.  Each sub-command is one ``cmd_*`` function.

It imports nothing from Sphinx, so it starts fast and works on a plain checkout.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .lint import LintUnavailable, lint_prose, markdown_files
from .records import SCAFFOLD_MARKER, Catalogue, load_catalogue
from .scaffold import field_problems, pick_line, scaffold


def _catalogue(args: argparse.Namespace) -> tuple[Catalogue, list]:
    root = Path(args.root)
    return load_catalogue(root / args.records, root=root)


def cmd_check(args: argparse.Namespace) -> int:
    """Validate every record and lint the prose of records and guides, without building the site.

    One ``file:line: message`` per problem on standard output; exit 1 on any.
    """
    root = Path(args.root)
    catalogue, problems = _catalogue(args)
    try:
        prose = lint_prose(markdown_files(root / args.records) + markdown_files(root / args.guides), root=root)
    except LintUnavailable as exc:
        print(f"errorkb check: {exc}", file=sys.stderr)
        return 2
    # A file the loader cannot read is reported by the linter too, in the same words: once is enough.
    problems = sorted(dict.fromkeys(problems + prose), key=lambda p: (p.path, p.line))
    for problem in problems:
        print(problem)
    count = len(catalogue.records)
    if problems:
        print(f"{len(problems)} problem(s) in the records and guides", file=sys.stderr)
        return 1
    print(f"{count} records OK, prose OK", file=sys.stderr)
    return 0


def _answer(args: argparse.Namespace, name: str, question: str) -> str:
    """A flag's value, or, in a terminal only, the answer to ``question``."""
    value = getattr(args, name)
    if value is None and sys.stdin.isatty():
        value = input(f"{question}: ")
    return (value or "").strip()


def _pasted_message(args: argparse.Namespace) -> str:
    if args.message_file is not None:
        if args.message_file == "-":
            return sys.stdin.read()
        return Path(args.message_file).read_text(encoding="utf-8")
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
    fields = {
        "id": _answer(args, "id", "id, a lower-case slug such as cuda-oom-alloc"),
        "code": _answer(args, "code", "the vendor's code as printed (empty if none)"),
        "source": _answer(args, "source", "source: who raises it (xla, neuron, pytorch, cuda ...)"),
        "title": _answer(args, "title", "title, a few words"),
    }
    try:
        paste = _pasted_message(args)
    except (OSError, UnicodeDecodeError) as exc:
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
    root = Path(args.root)
    path = root / args.records / fields["source"] / f"{fields['id']}.md"
    shown = path.relative_to(root).as_posix()
    catalogue, _ = _catalogue(args)
    for key in (fields["id"], fields["code"]):
        other = catalogue.find(key) if key else None
        if other is not None:
            problems.append(f"{key!r} is already used by {other.path}")
    for record in catalogue.records.values():
        if any(t.matches(message) for ts in record.templates for t in ts):
            problems.append(f"{record.path} already matches this message: add your paste to its examples instead")
    if path.exists():
        problems.append(f"{shown} exists already; it is never overwritten")
    if problems:
        for problem in problems:
            print(f"errorkb new: {problem}", file=sys.stderr)
        return 1
    path.parent.mkdir(parents=True, exist_ok=True)
    text = scaffold(fields["id"], fields["code"], fields["source"], fields["title"], message)
    with path.open("x", encoding="utf-8") as out:
        out.write(text)
    if count > 1:
        print(f"Used the last line of the {count}-line paste as the first example.")
    todo_lines = [str(n) for n, line in enumerate(text.split("\n"), 1) if SCAFFOLD_MARKER in line]
    print(f"""Wrote {shown}. Next:
  1. Check the template (the message with its variable parts as placeholders) and rename each
     placeholder after what it means, e.g. {{size:size}} -> {{requested:size}}.
  2. Replace every {SCAFFOLD_MARKER} marker (lines {", ".join(todo_lines)}); add more examples if you have them.
  3. Run `make check` until it prints no problem, then `make serve` to read the page.""")
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

    check = sub.add_parser("check", help="validate every record and lint the prose")
    check.add_argument("--guides", default="docs", help="the guides' folder under the root, linted too (default: docs)")
    check.set_defaults(func=cmd_check)

    new = sub.add_parser("new", help="write a new record from one pasted error message")
    new.add_argument("--id", help="lower-case slug, also the file name: cuda-oom-alloc")
    new.add_argument("--code", help="the vendor's code as printed (E1000); empty for none")
    new.add_argument("--source", help="who raises it, also the folder: xla, neuron, pytorch, cuda ...")
    new.add_argument("--title", help="a short title")
    paste = new.add_mutually_exclusive_group()
    paste.add_argument("--message", help="one real error message, pasted as printed")
    paste.add_argument("--message-file", metavar="FILE", help="read the pasted message from FILE ('-': standard input)")
    new.set_defaults(func=cmd_new)

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
