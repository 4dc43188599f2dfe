"""``errorkb check``: every kind of bad contribution is refused with its file and line."""

from __future__ import annotations

import io
import subprocess
import sys
import time

import pytest

from conftest import ROOT, record_text
from errorkb.tools.cli import main

RECORD = "errors/demo/demo-oom.md"


def check(project) -> tuple[int, list[str]]:
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = main(["--root", str(project.root), "check"])
    finally:
        sys.stdout, sys.stderr = old
    return code, out.getvalue().splitlines()


def line_of(text: str, fragment: str) -> int:
    return next(n for n, line in enumerate(text.split("\n"), 1) if fragment in line)


def test_a_valid_record_passes(project):
    project.add_record()
    assert check(project) == (0, [])


# (what to change in the valid record, a fragment of the line it is reported at (None: the
# last line), what the problem says)
BAD_RECORDS = {
    "value outside the vocabulary": (("phase: run-time", "phase: sometimes"), "phase:", "phase: 'sometimes' is not one of"),
    "unknown field": (("title:", "colour: red\ntitle:"), "colour:", "unknown field 'colour'"),
    "missing field": (("summary: The demo device could not allocate a buffer because its memory was full.\n", ""), "id:",
                      "missing required field 'summary'"),
    "template that does not compile": (("{device:int}\"", "{device:bogus}\""), "template:", "unknown placeholder type 'bogus'"),
    "template that could hang the search": (("\"DemoError: could", "\"{what:text}DemoError: could"), "template:",
                                            "{what:text} starts the template, so a search would run it from every character"),
    "template that matches almost anything": (("DemoError: could not allocate {requested:size} on device {device:int}\"",
                                               "out of memory\""), "template:", "matches almost anything"),
    "example that does not match": (("on device 0\"", "on the device\""), "- \"DemoError",
                                    "messages[0].examples[0] does not match its template: matching stops at character 39, "
                                    "where ' on device ' should follow but the line has ' on the device'"),
    "related id that does not exist": (("related: []", "related: [demo-nope]"), "related:", "no record has the id 'demo-nope'"),
    "missing section": (("## Debugging\n\nPrint the memory in use before the failing step.\n", ""), None, "missing section '## Debugging'"),
    "unfilled placeholder": (("left.\n", "left.\nTODO: say why.\n"), "TODO: say why", "unfilled scaffold placeholder"),
    "prose with a hard tab": (("left.\n", "left.\n\n-\tan item\n"), "\tan item", "(MD010)"),
    "prose with a broken heading": (("## Debugging", "##Debugging"), "##Debugging", "(MD018)"),
}


@pytest.mark.parametrize("case", BAD_RECORDS, ids=list(BAD_RECORDS))
def test_a_bad_record_is_refused_at_its_line(project, case):
    (old, new), fragment, complaint = BAD_RECORDS[case]
    text = record_text().replace(old, new, 1)
    assert text != record_text(), "the change did not apply"
    project.add_record(text)
    code, lines = check(project)
    line = line_of(text, fragment) if fragment else text.count("\n") + 1
    assert code == 1
    assert any(out.startswith(f"{RECORD}:{line}: ") and complaint in out for out in lines), lines


def test_ids_and_codes_are_unique(project):
    project.add_record()
    other = project.add_record(id="demo-oom", source="other", code="DEMO2")
    third = project.add_record(id="demo-three", code="demo1")
    code, lines = check(project)
    assert code == 1
    assert any(line.startswith("errors/other/demo-oom.md:2: id 'demo-oom' is already used by errors/demo/demo-oom.md")
               for line in lines), lines
    assert any(line.startswith("errors/demo/demo-three.md:3: code 'demo1' is already used by errors/demo/demo-oom.md")
               for line in lines), lines
    assert other.exists() and third.exists()


def test_an_example_claimed_by_another_record_is_refused(project):
    project.add_record()
    project.add_record(id="demo-two", code="DEMO2")  # the same template: each claims the other's example
    code, lines = check(project)
    example = line_of(record_text(), "- \"DemoError")
    assert code == 1
    assert f"errors/demo/demo-two.md:{example}: messages[0].examples[0] is answered exactly by demo-oom's template" \
        in "\n".join(lines)


def test_guides_are_linted_too(project):
    project.add_record()
    project.write("docs/guide.md", "# A guide\n\nSome text.\n\n\n\nMore text.\n")
    code, lines = check(project)
    assert code == 1 and lines[0].startswith("docs/guide.md:5: ") and all("(MD012)" in line for line in lines), lines


def test_an_unreadable_record_is_reported_once(project):
    project.add_record()
    (project.root / "errors/demo/binary.md").write_bytes(b"---\nid: x\n\xff\xfe\x00\x01")
    code, lines = check(project)
    assert (code, lines) == (1, ["errors/demo/binary.md:3: the file is not UTF-8 text"])


def test_the_site_itself_passes_in_seconds():
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "errorkb.tools.cli", "--root", str(ROOT), "check"],
                          capture_output=True, text=True, timeout=120)
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stdout + done.stderr
    assert elapsed < 20, f"errorkb check took {elapsed:.1f}s"


def test_a_record_saved_with_a_byte_order_mark_loads(project):
    """Some editors start UTF-8 files with a BOM; Sphinx drops it, and so does the loader."""
    project.add_record().write_bytes("\ufeff".encode() + record_text().encode())
    assert check(project) == (0, [])
    assert project.build().returncode == 0


SNIPPET = "```{snippet} fixes\n:id: with-pandas\n:requires: pandas>=2\n\nimport pandas\n```\n"


def with_snippet(snippet: str) -> str:
    return record_text().replace("left.\n", "left.\n\n" + snippet, 1)


def test_a_snippet_requiring_a_package_declared_nowhere_is_named(project):
    text = with_snippet(SNIPPET)
    project.add_record(text)
    code, lines = check(project)
    assert code == 1
    assert lines == [f"{RECORD}:{line_of(text, '{snippet}')}: snippet 'with-pandas' requires 'pandas>=2': pandas is neither "
                     "a package declared in snippet-requirements.txt (which the set-up installs) nor a program on the "
                     "sandbox's PATH here"]
    project.write("snippet-requirements.txt", "# what the snippets import\npandas==2.3.0  # data frames\n")
    assert check(project) == (0, [])  # declared: whether it is installed here is the build's business


def test_records_are_checked_and_the_prose_skipped_without_the_linter(project, monkeypatch, capsys):
    from errorkb.tools import lint

    def missing() -> str:
        raise lint.LintUnavailable("rumdl is not installed (pip install 'errorkb[check]')")

    monkeypatch.setattr(lint, "rumdl_command", missing)
    project.add_record(record_text().replace("left.\n", "left.\n\n-\tan item\n"))  # a hard tab, for the linter
    assert main(["--root", str(project.root), "check"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == ["errorkb check: the prose is not linted: rumdl is not installed (pip install 'errorkb[check]')",
                   "1 records OK, prose not linted"]
    project.add_record(record_text().replace("phase: run-time", "phase: sometimes"))
    assert main(["--root", str(project.root), "check"]) == 1


CONFLICT = "```text\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> branch\n```\n"


def test_nothing_in_fenced_code_is_linted_and_a_site_turns_rules_off_in_its_rumdl_configuration(project):
    project.add_record(record_text().replace("left.\n", "left.\n\n" + CONFLICT, 1))
    project.write("docs/guide.md", "# A guide\n\nSome text.\n\n\n\nMore text.\n\n" + CONFLICT)
    code, lines = check(project)
    assert code == 1 and [line.split(": ", 1)[0] for line in lines] == ["docs/guide.md:5", "docs/guide.md:6"]
    assert all(line.endswith("(MD012)") for line in lines), lines
    project.write(".rumdl.toml", '[global]\ndisable = ["MD012", "MD013"]\n')
    assert check(project) == (0, [])


def test_a_fifo_for_the_snippet_requirements_is_refused_unread(project):
    import os

    project.add_record()
    os.mkfifo(project.root / "snippet-requirements.txt")
    code, lines = check(project)
    assert (code, lines) == (1, ["snippet-requirements.txt:1: not read: it is a FIFO, not a file"])
