"""``errorkb explain``: a record as a reader sees its page, in a terminal, as Markdown or as JSON."""

from __future__ import annotations

import io
import json
import shutil
import sys
from pathlib import Path

import pytest

from conftest import Project, record_text
from errorkb.tools.answers import Answers
from errorkb.tools.cli import main

SNIPPETS = Path(__file__).parent / "roots" / "test-snippets"

NOTE_AND_VARIANTS = record_text().replace(
    "    examples:", "    note: Printed by `demo-run`, see [the manual](https://example.org/manual).\n    examples:", 1
).replace("Delete large tensors before the next allocation.", """\
Delete what the step no longer needs.

#### PyTorch

Call `del` on it, as {err}`demo-two` explains.

#### JAX

Let it go out of scope.""")


def explain(root: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = main(["--root", str(root), "explain", *argv])
    finally:
        sys.stdout, sys.stderr = old
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def snippets(tmp_path: Path) -> Path:
    shutil.copytree(SNIPPETS, tmp_path / "site")
    return tmp_path / "site"


def test_a_record_reads_as_its_page(snippets):
    code, out, _ = explain(snippets, "demo1")
    assert code == 0
    assert out.startswith("DEMO1: Demo device ran out of memory\n====")
    assert "The demo device could not allocate a buffer because its memory was full." in out
    for line in ("Code:      DEMO1", "Source:    demo", "Platform:  GPU", "Framework: PyTorch", "Phase:     Run time",
                 "Category:  Device memory"):
        assert f"\n{line}\n" in out, line
    assert "  DemoError: could not allocate {requested} on device {device}\n" in out  # placeholders by name
    assert "\nFixes\n-----\n" in out and "\n1. Use a smaller batch\n" in out and "\n2. Free what you no longer need\n" in out
    # Snippets by what they claim and their status, not their code.
    assert "[Fix (runs-cleanly): must run cleanly (exit status 0)]" in out
    assert "[Reproduces the error (prints-the-error): must fail with one of this record's messages]" in out
    assert "[Fix (on-a-gpu): must run cleanly (exit status 0); needs cuda, gpu-memory>=40G]\n" \
           "     last verified on NVIDIA H100 80GB HBM3, 2026-03-01: passed" in out
    assert "run by the site's build: its page shows the result" in out
    assert "{snippet}" not in out and 'print("fine")' not in out and ":id:" not in out
    assert "The page:" not in out  # no public address is known


def test_its_snippets_code_when_asked(snippets):
    code, out, _ = explain(snippets, "demo-oom", "--code")
    assert code == 0 and '    print("fine")' in out and "    sys.exit(" in out


def test_notes_roles_and_variants_in_words(project: Project):
    project.add_record(NOTE_AND_VARIANTS.replace("related: []", "related: [demo-two]"))
    project.add_record(record_text(id="demo-two", code="DEMO2").replace("DemoError", "DemoTwo"), id="demo-two")
    code, out, _ = explain(project.root, "demo-oom")
    assert code == 0
    assert "    Printed by demo-run, see the manual (https://example.org/manual).\n" in out
    assert "\n   PyTorch:\n\n   Call del on it, as DEMO2: Demo device ran out of memory explains.\n" in out
    assert "\n   JAX:\n\n   Let it go out of scope.\n" in out and "####" not in out
    assert "See also\n--------\n- DEMO2: Demo device ran out of memory (demo-two)" in out


def test_markdown_for_machines(project: Project):
    project.add_record(NOTE_AND_VARIANTS.replace("related: []", "related: [demo-two]"))
    project.add_record(record_text(id="demo-two", code="DEMO2").replace("DemoError", "DemoTwo"), id="demo-two")
    project.write("conf.py", Project.CONF + 'errorkb_base_url = "https://kb.example.org/"\n')
    code, out, _ = explain(project.root, "demo-oom", "--format", "markdown")
    assert code == 0
    assert out.startswith("# DEMO1: Demo device ran out of memory\n")
    assert "- **Platform:** GPU" in out and "## Fixes" in out and "### 2. Free what you no longer need" in out
    assert "#### PyTorch\n\nCall `del` on it, as [DEMO2: Demo device ran out of memory]" \
           "(https://kb.example.org/errors/demo/demo-two.html) explains." in out
    assert "The page: <https://kb.example.org/errors/demo/demo-oom.html>" in out


def test_json_is_the_mcp_server_s_answer(snippets):
    code, out, _ = explain(snippets, "DEMO1", "--json")
    assert code == 0
    data = json.loads(out)
    assert data == json.loads(json.dumps(Answers.load(snippets).explain("DEMO1")))
    assert data["source_label"] == "demo" and data["fields"][0] == {"name": "platforms", "label": "Platform", "values": ["GPU"]}
    assert [(s["id"], s["claim"]) for s in data["snippets"]][:2] == [("runs-cleanly", "Fix"),
                                                                    ("prints-the-error", "Reproduces the error")]
    assert explain(snippets, "DEMO1", "--format", "json")[1] == out


def test_a_code_with_spaces_and_an_unknown_key(project: Project):
    project.add_record(record_text(code='"HTTP 413"'))
    code, out, _ = explain(project.root, "http  413")
    assert code == 0 and out.startswith("HTTP 413: Demo device ran out of memory")
    code, _, err = explain(project.root, "HTTP 414")
    assert code == 2 and "no error with the id, code or alias 'HTTP 414'" in err
