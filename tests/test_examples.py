"""Snippets: options, extraction, the cache, status rendering, pages, ``-b examples`` and pytest."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from errorkb.examples.builder import summary_line
from errorkb.examples.extract import snippets_in_record, snippets_in_text
from errorkb.examples.judge import FAILED, NOT_RUN, PASSED, Result, matching_line
from errorkb.examples.render import status_line
from errorkb.examples.runner import run_snippets
from errorkb.examples.spec import SnippetError, make_snippet, parse_requires
from errorkb.examples.verified import load_verified

from conftest import ROOT, record_text
from errorkb.project import open_project

FIXES_OK = """
```{snippet} fixes
:id: runs-cleanly
:timeout: 30

print("fine")
```
"""
REPRODUCES = """
```{snippet} reproduces
:id: prints-the-error

import sys
sys.exit("DemoError: could not allocate 2.00 GiB on device 0")
```
"""
NEEDS_CUDA = """
```{snippet} fixes
:id: on-a-gpu
:requires: cuda, gpu-memory>=40G

print("never here")
```
"""
LOOPS = """
```{snippet} fixes
:id: loops-forever
:timeout: 2

while True:
    pass
```
"""


def with_snippets(*snippets: str) -> str:
    """The demo record with snippets added to its first fix."""
    return record_text().replace("Fewer samples per step need fewer activations.\n",
                                 "Fewer samples per step need fewer activations.\n" + "".join(snippets))


def snippet(kind: str = "fixes", code: str = "print(1)\n", **options: str):
    return make_snippet(kind, {"id": "demo", **options}, code, path="errors/demo/demo-oom.md", line=1,
                        record_id="demo-oom", templates=("DemoError: could not allocate {requested:size}",))


# ---------------------------------------------------------------------------------------------
# Options


def test_requires_splits_packages_and_hardware() -> None:
    packages, hardware = parse_requires("jax, torch>=2.0, cuda, gpu-memory>=40G, gpus>=4, tpu")
    assert packages == ("jax", "torch>=2.0")
    assert [str(h) for h in hardware] == ["cuda", "gpu-memory>=40G", "gpus>=4", "tpu"]
    assert hardware[1].minimum == 40 * 1024**3


@pytest.mark.parametrize("kind, options, code, message", [
    ("breaks", {}, "x", "claims one of reproduces, fixes, shows"),
    ("fixes", {"id": "Bad Id"}, "x", "lower-case slug"),
    ("fixes", {"timeout": "0"}, "x", ":timeout:"),
    ("fixes", {"memory": "lots"}, "x", ":memory:"),
    ("fixes", {"requires": "gpu-memory>40G"}, "x", "gpu-memory>=40G"),
    ("fixes", {"requires": "not a package!"}, "x", "neither a package"),
    ("fixes", {"colour": "red"}, "x", "unknown option :colour:"),
    ("shows", {}, "print(1)", "no '>>>' prompt"),
    ("fixes", {"tolerance": "0.1"}, "x", "'shows' snippets only"),
    ("fixes", {}, "  ", "has no code"),
])
def test_bad_options_are_explained(kind: str, options: dict[str, str], code: str, message: str) -> None:
    with pytest.raises(SnippetError, match=message.replace("(", r"\(")):
        make_snippet(kind, {"id": "demo", **options}, code, path="p.md", line=1, record_id="r", templates=("t",))


def test_extraction_finds_snippets_with_their_lines_and_reports_duplicates() -> None:
    body = "## Fixes\n" + FIXES_OK + "````markdown\n```{snippet} fixes\n:id: shown-not-run\n\nx\n```\n````\n" + FIXES_OK
    found, problems = snippets_in_text(body, 10, path="errors/demo/demo-oom.md", record_id="demo-oom", templates=())
    assert [(s.id, s.line, s.code, s.timeout) for s in found] == [
        ("runs-cleanly", 12, 'print("fine")\n', 30), ("runs-cleanly", 26, 'print("fine")\n', 30)]
    assert [str(p) for p in problems] == ["errors/demo/demo-oom.md:26: snippet id 'runs-cleanly' is used twice on this page"]


def test_the_catalogue_snippets_load_without_problems() -> None:
    found, problems = snippets_in_record(ROOT / "errors/xla/xla-e1000.md", ROOT, open_project(ROOT).settings)
    assert problems == []
    assert {"donate-buffers", "checkpoint-layers", "smaller-batch", "bfloat16-arguments"} <= {s.id for s in found}


# ---------------------------------------------------------------------------------------------
# Judging, the cache and the summary


def test_reproduces_matches_the_records_templates_on_one_line_or_two_joined() -> None:
    templates = ("DemoError: could not allocate {requested:size} on device {device:int}",)
    assert matching_line(templates, "Traceback ...\nDemoError: could not allocate 2.00 GiB on device 0\n")
    assert matching_line(templates, "DemoError: could not allocate 2.00 GiB\non device 0\n")
    assert matching_line(templates, "DemoError: something else\n") is None


def test_a_second_run_executes_nothing_and_a_change_runs_again(tmp_path: Path) -> None:
    snippets = [snippet(code="print(1)\n"), snippet("reproduces", "raise SystemExit('DemoError: could not allocate 1 GiB')\n", id="repro")]
    first = run_snippets(snippets, tmp_path)
    assert sorted(first.executed) == sorted(s.key for s in snippets)
    assert {r.status for r in first.results.values()} == {PASSED}
    second = run_snippets(snippets, tmp_path)
    assert second.executed == [] and second.results == first.results
    changed = run_snippets([snippet(code="print(2)\n"), snippets[1]], tmp_path)
    assert changed.executed == [snippets[0].key]


def test_cache_only_mode_runs_nothing(tmp_path: Path) -> None:
    report = run_snippets([snippet(code="print(3)\n")], tmp_path, execute=False)
    assert report.executed == []
    assert report.results["errors/demo/demo-oom.md::demo"].status == NOT_RUN


def test_missing_requirements_are_not_run_and_say_why(tmp_path: Path) -> None:
    report = run_snippets([snippet(requires="cuda, no-such-package-errorkb>=1")], tmp_path)
    result = report.results["errors/demo/demo-oom.md::demo"]
    assert result.status == NOT_RUN and report.executed == []
    assert "no-such-package-errorkb is not installed" in result.reason and "needs a CUDA GPU" in result.reason


def test_summary_line() -> None:
    results = [Result(PASSED, ""), Result(PASSED, ""), Result(FAILED, ""), Result(NOT_RUN, "")]
    assert summary_line(results) == "examples: 2 passed, 1 failed, 1 skipped"


@pytest.mark.parametrize("result, text", [
    (Result(PASSED, "Python 3.11.7, jax 0.10.2 on CPU (x86_64)"), "passed ran on Python 3.11.7, jax 0.10.2 on CPU (x86_64)"),
    (Result(FAILED, "exit status 1: it should run cleanly"), "failed exit status 1: it should run cleanly"),
    (Result(NOT_RUN, "needs a CUDA GPU"), "not run needs a CUDA GPU"),
])
def test_status_line(result: Result, text: str) -> None:
    node = status_line(result)
    assert node.astext() == text
    badge = node.children[0]
    colour = {PASSED: "success", FAILED: "danger", NOT_RUN: "secondary"}[result.status]
    assert badge["classes"][:2] == ["errorkb-badge", f"errorkb-badge-{colour}"] and badge.astext() == result.status


# ---------------------------------------------------------------------------------------------
# Verified results


def test_verified_file_keeps_the_newest_entry_and_reports_bad_ones(tmp_path: Path) -> None:
    path = tmp_path / "demo-oom.verified.yaml"
    path.write_text(
        "- snippet: on-a-gpu\n  date: 2026-01-01\n  device: Old GPU\n  status: failed\n"
        "- snippet: on-a-gpu\n  date: 2026-03-01\n  device: NVIDIA H100 80GB HBM3\n  status: passed\n"
        "  versions: {python: 3.11.7, torch: 2.13.0}\n"
        "- snippet: on-a-gpu\n  date: someday\n  device: X\n  status: passed\n", encoding="utf-8")
    entries, problems = load_verified(path, "errors/demo/demo-oom.verified.yaml")
    assert entries["on-a-gpu"].summary() == "NVIDIA H100 80GB HBM3, 2026-03-01: passed (python 3.11.7, torch 2.13.0)"
    assert [(p.line, p.message.split(":")[0]) for p in problems] == [(10, "date")]


# ---------------------------------------------------------------------------------------------
# Whole builds


def test_pages_show_each_status_and_the_status_page_lists_them(project) -> None:
    project.add_record(with_snippets(FIXES_OK, REPRODUCES, NEEDS_CUDA))
    project.write("errors/demo/demo-oom.verified.yaml",
                  "- snippet: on-a-gpu\n  date: 2026-03-01\n  device: NVIDIA H100 80GB HBM3\n  status: passed\n"
                  "  output: |\n    never here\n")
    project.write("status.md", "# Status\n\n```{err:snippet-status}\n```\n")
    project.write("index.md", "# Demo\n\n```{toctree}\n:glob:\n\nerrors/*/*\nstatus\n```\n")
    done = project.build()
    assert done.returncode == 0, done.stderr
    page = (project.out / "errors/demo/demo-oom.html").read_text(encoding="utf-8")
    assert page.count(">passed</span>") == 2
    assert ">not run</span> needs a CUDA GPU; needs a GPU with 40 GiB of memory" in page
    assert "Last verified on </strong>NVIDIA H100 80GB HBM3, 2026-03-01: passed" in page
    status = (project.out / "status.html").read_text(encoding="utf-8")
    assert "3 snippets: 2 passed, 0 failed, 1 not run." in status
    assert 'href="errors/demo/demo-oom.html#snippet-on-a-gpu"' in status


def test_a_bad_snippet_is_a_warning_at_its_line(project) -> None:
    text = with_snippets("\n```{snippet} fixes\n:id: demo\n:timeout: forever\n\nprint(1)\n```\n")
    project.add_record(text)
    line = text.splitlines().index("```{snippet} fixes") + 1
    done = project.build()
    assert done.returncode != 0
    assert f"demo-oom.md:{line}: WARNING: :timeout: 'forever' must be a whole number" in done.stderr


def test_a_bad_verified_file_is_a_warning_at_its_line(project) -> None:
    project.add_record(with_snippets(NEEDS_CUDA))
    project.write("errors/demo/demo-oom.verified.yaml",
                  "- snippet: on-a-gpu\n  date: 2026-03-01\n  device: GPU\n  status: passed\n"
                  "- snippet: elsewhere\n  date: 2026-03-01\n  device: GPU\n  status: maybe\n")
    done = project.build()
    assert done.returncode != 0
    assert "errors/demo/demo-oom.verified.yaml:5: WARNING: status: Input should be 'passed' or 'failed'" in done.stderr


def test_a_looping_snippet_fails_and_the_build_goes_on(project) -> None:
    project.add_record(with_snippets(LOOPS, FIXES_OK))
    done = project.build()
    assert done.returncode == 0, done.stderr
    page = (project.out / "errors/demo/demo-oom.html").read_text(encoding="utf-8")
    assert ">failed</span> stopped: still running after the 2 s time limit" in page
    assert ">passed</span>" in page


def test_examples_builder_summarises_and_fails_on_a_failure(project) -> None:
    project.add_record(with_snippets(FIXES_OK, NEEDS_CUDA, "\n```{snippet} fixes\n:id: breaks\n\nraise ValueError('broken')\n```\n"))
    done = project.build(builder="examples")
    assert done.returncode == 1
    lines = (project.out / "output.txt").read_text(encoding="utf-8").splitlines()
    assert lines[-1] == "examples: 1 passed, 1 failed, 1 skipped"
    assert any(line.startswith("errors/demo/demo-oom.md::breaks: failed: exit status 1: it should run cleanly") for line in lines)
    assert "    ValueError: broken" in lines


def test_pytest_collects_snippets_with_readable_ids(project) -> None:
    project.add_record(with_snippets(FIXES_OK, REPRODUCES, NEEDS_CUDA))
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "errorkb.examples.pytest_plugin", "-rs", "-v",
                           "--rootdir", str(project.root), "-c", "/dev/null", "errors"],
                          cwd=project.root, capture_output=True, text=True, timeout=300)
    assert "errors/demo/demo-oom.md::runs-cleanly PASSED" in done.stdout, done.stdout
    assert "errors/demo/demo-oom.md::prints-the-error PASSED" in done.stdout
    assert "SKIPPED [1] errors/demo/demo-oom.md: needs a CUDA GPU" in done.stdout
    assert done.returncode == 0
