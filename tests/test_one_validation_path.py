"""``errorkb check`` and the build judge records and snippets alike: one set of broken pages, both
paths, the same ``file:line: message`` lines."""

from __future__ import annotations

import io
import re
from contextlib import redirect_stderr, redirect_stdout

from sphinx.util.console import strip_colors

from conftest import record_text
from errorkb.tools.cli import main

SNIPPETS = {
    "unknown option": "```{snippet} fixes\n:id: with-a-shell\n:shell: bash\n\nprint(1)\n```\n",
    "id not a slug": "```{snippet} fixes\n:id: Not_A_Slug\n\nprint(1)\n```\n",
    "time above the ceiling": "```{snippet} fixes\n:id: too-long\n:timeout: 9999\n\nprint(1)\n```\n",
    "memory above the ceiling": "```{snippet} fixes\n:id: too-big\n:memory: 64G\n\nprint(1)\n```\n",
    "a superscript two": "```{snippet} fixes\n:id: superscript\n:timeout: ²\n\nprint(1)\n```\n",
    "Arabic-Indic digits": "```{snippet} fixes\n:id: other-digits\n:memory: ٣G\n\nprint(1)\n```\n",
    "unknown language": "```{snippet} fixes\n:id: in-cobol\n:language: cobol\n\nDISPLAY 'X'.\n```\n",
    "twice the same id": "```{snippet} fixes\n:id: twice\n\nprint(1)\n```\n\n```{snippet} fixes\n:id: twice\n\nprint(2)\n```\n",
    "a session without a prompt": "```{snippet} shows\n:id: no-prompt\n:language: bash\n\necho 1\n```\n",
    "an HTML comment": "<!-- rumdl-disable MD092 -->\n",
    "an inline tag": "Some <b>bold</b> words.\n",
}
VERIFIED = "- snippet: nowhere\n  date: 2026-03-01\n  device: GPU\n  status: passed\n" \
           "- snippet: with-a-shell\n  date: 2026-03-01\n  device: GPU\n  status: maybe\n"


def check_lines(project) -> list[str]:
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        main(["--root", str(project.root), "check"])
    return [line for line in out.getvalue().splitlines() if not re.search(r"\(MD\d+\)$", line)]


def build_lines(project) -> list[str]:
    done = project.build("-D", "errorkb_run_examples=0")
    found = re.findall(r"^(\S+?):(\d+): (?:WARNING|ERROR): (.*?)(?: \[[\w.]+\])?$", strip_colors(done.stderr), re.M)
    root = str(project.root) + "/"
    return [f"{path.removeprefix(root)}:{line}: {message}" for path, line, message in found
            if not message.startswith(tuple(f"{n} problem(s)" for n in range(1000)))]


def test_check_and_the_build_agree_on_broken_snippets_and_pages(project) -> None:
    body = "".join(f"{snippet}\n" for snippet in SNIPPETS.values())
    project.add_record(record_text().replace("Fewer samples per step need fewer activations.\n",
                                             "Fewer samples per step need fewer activations.\n\n" + body))
    project.write("errors/demo/demo-oom.verified.yaml", VERIFIED)
    checked, built = check_lines(project), build_lines(project)
    assert len(checked) == len(SNIPPETS) + 2, checked  # the pair of twins once, two entries
    assert sorted(set(built)) == sorted(set(checked))


def test_check_and_the_build_agree_on_records_that_do_not_load(project) -> None:
    project.add_record(record_text().replace("phase: run-time", "phase: sometimes"))
    project.add_record(record_text(id="demo-two", code="DEMO2", related="[demo-nope]").replace(
        "## Debugging\n\nPrint the memory in use before the failing step.\n", "").replace(
        "on device {device:int}", "on device {device:bogus}"), id="demo-two")
    checked, built = check_lines(project), build_lines(project)
    assert len(checked) == 3, checked
    assert sorted(built) == sorted(checked)
