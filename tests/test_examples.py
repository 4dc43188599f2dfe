"""Snippets: options, extraction, the cache, status rendering, pages, ``-b examples`` and pytest."""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from docutils import nodes
from sphinx.util.console import strip_colors

from conftest import ROOT, page, record_text
from errorkb.examples.accelerators import PROFILE as ACCELERATORS
from errorkb.examples.builder import summary_line
from errorkb.examples.extract import snippets_in_record, snippets_in_text
from errorkb.examples.hardware import load_profile
from errorkb.examples.judge import FAILED, NOT_RUN, PASSED, Result, matching_lines
from errorkb.examples.render import status_line
from errorkb.examples.rules import SnippetRules
from errorkb.examples.runner import run_snippets
from errorkb.examples.spec import SnippetError, make_snippet, parse_requires
from errorkb.examples.verified import load_verified
from errorkb.tools.project import open_project

FIXES_OK = """
```{snippet} fixes
:id: runs-cleanly
:timeout: 30

print("fine")
```
"""
#: The rules of a site with the accelerators' profile that declares jax and torch for its snippets.
RULES = SnippetRules(hardware=ACCELERATORS, packages=frozenset({"jax", "torch", "no-such-package-errorkb"}))


def snippet(kind: str = "fixes", code: str = "print(1)\n", **options: str):
    return make_snippet(kind, {"id": "demo", **options}, code, path="errors/demo/demo-oom.md", line=1,
                        record_id="demo-oom", templates=("DemoError: could not allocate {requested:size}",),
                        rules=RULES)


# ---------------------------------------------------------------------------------------------
# Options


def test_requires_splits_declared_packages_programs_and_the_hardware_the_sites_profile_names() -> None:
    found = parse_requires("jax, torch>=2.0, git>=2.30, cuda, gpu-memory>=40G, gpus>=4, tpu, Torch", RULES)
    assert found.packages == ("jax", "torch>=2.0", "Torch") and found.programs == ("git>=2.30",)
    assert [str(h) for h in found.hardware] == ["cuda", "gpu-memory>=40G", "gpus>=4", "tpu"]
    assert found.hardware[1].minimum == 40 * 1024**3
    plain = parse_requires("jax, tpu")  # a site that declares no package and names no hardware: programs
    assert (plain.packages, plain.programs, plain.hardware) == ((), ("jax", "tpu"), ())
    with pytest.raises(SnippetError, match="nor a program"):
        parse_requires("gpu-memory>=40G")
    with pytest.raises(SnippetError, match="extras, markers and URLs are for packages"):
        parse_requires("git[full]")


def test_a_site_names_its_hardware_profile(tmp_path: Path) -> None:
    assert load_profile("errorkb.examples.accelerators") is ACCELERATORS
    for name, message in (("no.such.module", "cannot import 'no.such.module'"), ("errorkb.core.records", "no hardware profile there")):
        with pytest.raises(ValueError, match=message):
            load_profile(name)


@pytest.mark.parametrize("kind, options, code, message", [
    ("breaks", {}, "x", "claims one of reproduces, fixes, shows"),
    ("fixes", {"id": "Bad Id"}, "x", "lower-case slug"),
    ("fixes", {"timeout": "0"}, "x", ":timeout:"),
    ("fixes", {"memory": "lots"}, "x", ":memory:"),
    ("fixes", {"requires": "gpu-memory>40G"}, "x", "gpu-memory>=40G"),
    ("fixes", {"requires": "not a package!"}, "x", "neither a package nor a program"),
    ("fixes", {"colour": "red"}, "x", "unknown option :colour:"),
    ("fixes", {"language": "cobol"}, "x", ":language: 'cobol' is not one of this site's languages (bash, python"),
    ("shows", {"language": "bash"}, "echo 1", "has no '$' prompt"),
    ("shows", {}, "print(1)", "no '>>>' prompt"),
    ("fixes", {"tolerance": "0.1"}, "x", "'shows' snippets only"),
    ("fixes", {}, "  ", "has no code"),
])
def test_bad_options_are_explained(kind: str, options: dict[str, str], code: str, message: str) -> None:
    with pytest.raises(SnippetError, match=re.escape(message)):
        make_snippet(kind, {"id": "demo", **options}, code, path="p.md", line=1, record_id="r", templates=("t",),
                     rules=RULES)


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
    assert matching_lines(templates, "Traceback ...\nDemoError: could not allocate 2.00 GiB on device 0\n") == (
        "DemoError: could not allocate 2.00 GiB on device 0",)
    assert matching_lines(templates, "DemoError: could not allocate 2.00 GiB\non device 0\n") == (
        "DemoError: could not allocate 2.00 GiB on device 0",)  # a wrapped message: the two lines joined
    assert matching_lines(templates, "DemoError: something else\n") == ()


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
    report = run_snippets([snippet(requires="cuda, no-such-package-errorkb>=1")], tmp_path, hardware=ACCELERATORS)
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
    assert isinstance(badge, nodes.Element)
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
# Whole builds of tests/roots/test-snippets: a record whose snippets run cleanly, reproduce its
# error, need a GPU, raise, and loop past their time limit, and a page with the table of them all


def snippet_warnings(app) -> list[str]:
    """The build's warnings, each as ``file:line: message`` (the file relative to the source folder)."""
    found = re.findall(r"^(\S+?):(\d+): WARNING: (.*?)(?: \[[\w.]+\])?$", strip_colors(app.warning.getvalue()), re.M)
    return [f"{Path(f).relative_to(app.srcdir).as_posix()}:{n}: {m}" for f, n, m in found]


FAILURES = [
    "errors/demo/demo-oom.md:49: snippet 'breaks' failed: exit status 1: it should run cleanly (last line: ValueError: broken)",
    "errors/demo/demo-oom.md:55: snippet 'loops-forever' failed: stopped: still running after the 2 s time limit",
]


@pytest.mark.sphinx("html", testroot="snippets")
def test_pages_show_each_status_and_the_status_page_lists_them(app) -> None:
    app.build()
    assert snippet_warnings(app) == FAILURES  # and nothing about the one whose requirements are missing
    text = page(app, "errors/demo/demo-oom.html")
    assert "The message it reproduced" in text
    assert re.search(r"errorkb-snippet-printed.*?DemoError: could not allocate 2.00 GiB on device 0", text, re.S)
    assert text.count(">passed</span>") == 2
    assert ">not run</span> needs a CUDA GPU; needs a GPU with 40 GiB of memory" in text
    assert "Last verified on </strong>NVIDIA H100 80GB HBM3, 2026-03-01: passed" in text
    assert ">failed</span> exit status 1: it should run cleanly" in text and "ValueError: broken" in text
    assert ">failed</span> stopped: still running after the 2 s time limit" in text  # and the build went on
    status = page(app, "status.html")
    assert "5 snippets: 2 passed, 2 failed, 1 not run." in status
    assert 'href="errors/demo/demo-oom.html#snippet-on-a-gpu"' in status


@pytest.mark.sphinx("examples", testroot="snippets")
def test_examples_builder_summarises_and_fails_on_a_failure(app) -> None:
    app.build()
    assert app.statuscode == 1
    lines = (app.outdir / "output.txt").read_text(encoding="utf-8").splitlines()
    assert lines[-1] == "examples: 2 passed, 2 failed, 1 skipped"
    assert any(line.startswith("errors/demo/demo-oom.md::breaks: failed: exit status 1: it should run cleanly") for line in lines)
    assert "    ValueError: broken" in lines


NOT_RUN_HERE = {"errorkb_run_examples": False}  # statuses from the cache alone: nothing runs


@pytest.mark.sphinx("html", testroot="snippets", srcdir="snippets-bad", confoverrides=NOT_RUN_HERE)
def test_a_bad_snippet_or_verified_entry_is_a_warning_at_its_line(app_params, make_app) -> None:
    args, kwargs = app_params  # the copy is made; the records are read when the app starts
    record = kwargs["srcdir"] / "errors/demo/demo-oom.md"
    text = record.read_text(encoding="utf-8").replace(":timeout: 30", ":timeout: forever")
    record.write_text(text, encoding="utf-8")
    with (kwargs["srcdir"] / "errors/demo/demo-oom.verified.yaml").open("a", encoding="utf-8") as f:
        f.write("- snippet: elsewhere\n  date: 2026-03-01\n  device: GPU\n  status: maybe\n")
    app = make_app(*args, **kwargs)
    app.build()
    line = text.splitlines().index(":timeout: forever") - 1  # the fence's, two lines above, counted from 1
    warnings = app.warning.getvalue()
    assert f"demo-oom.md:{line}: WARNING: snippet 'runs-cleanly': :timeout: 'forever' must be a whole number" in warnings
    assert "errors/demo/demo-oom.verified.yaml:7: WARNING: status: Input should be 'passed' or 'failed'" in warnings


@pytest.mark.sphinx("html", testroot="snippets", srcdir="snippets-incremental", confoverrides=NOT_RUN_HERE)
def test_a_rebuild_keeps_the_snippets_of_unchanged_pages_and_drops_removed_ones(app, make_app) -> None:
    app.build()
    assert "5 snippets: 0 passed, 0 failed, 5 not run." in page(app, "status.html")
    (app.srcdir / "guide.md").write_text("# Guide\n\n```{snippet} fixes\n:id: in-a-guide\n\nprint(1)\n```\n",
                                         encoding="utf-8")
    record = app.srcdir / "errors/demo/demo-oom.md"
    record.write_text(record.read_text(encoding="utf-8").replace(":id: breaks", ":id: raises"), encoding="utf-8")
    app.cleanup()
    again = make_app("html", srcdir=app.srcdir, builddir=app.outdir.parent, confoverrides=NOT_RUN_HERE)
    again.build()
    status = page(again, "status.html")
    assert "6 snippets: 0 passed, 0 failed, 6 not run." in status
    assert "demo-oom.md::raises" in status and "demo-oom.md::breaks" not in status and "guide.md::in-a-guide" in status


@pytest.mark.sphinx("html", testroot="snippets", srcdir="snippets-parallel", confoverrides=NOT_RUN_HERE, parallel=2)
def test_a_parallel_build_lists_the_same_snippets(app, make_app, tmp_path: Path) -> None:
    for n in range(5):  # enough pages for Sphinx to read them in parallel
        (app.srcdir / f"guide{n}.md").write_text(f"# Guide {n}\n\n```{{snippet}} fixes\n:id: guide-{n}\n\nprint({n})\n```\n",
                                                 encoding="utf-8")
    shutil.copytree(app.srcdir, tmp_path / "serial")
    merged: list[str] = []
    app.connect("env-merge-info", lambda app, env, docnames, other: merged.extend(docnames))
    app.build()
    assert merged
    app.cleanup()
    serial = make_app("html", srcdir=tmp_path / "serial", confoverrides=NOT_RUN_HERE)
    serial.build()
    for name in ("status.html", "errors/demo/demo-oom.html", "guide3.html"):
        assert page(app, name) == page(serial, name), name
    assert "10 snippets: 0 passed, 0 failed, 10 not run." in page(app, "status.html")


def test_pytest_collects_snippets_with_readable_ids(rootdir: Path, tmp_path: Path) -> None:
    shutil.copytree(rootdir / "test-snippets", tmp_path, dirs_exist_ok=True)
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "errorkb.examples.pytest_plugin", "-rs", "-v",
                           "--rootdir", str(tmp_path), "-c", "/dev/null", "errors"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert "errors/demo/demo-oom.md::runs-cleanly PASSED" in done.stdout, done.stdout
    assert "errors/demo/demo-oom.md::prints-the-error PASSED" in done.stdout
    assert "errors/demo/demo-oom.md::breaks FAILED" in done.stdout
    assert "SKIPPED [1] errors/demo/demo-oom.md: needs a CUDA GPU" in done.stdout
    assert done.returncode == 1


# ---------------------------------------------------------------------------------------------
# Languages and programs: tests/roots/test-languages has snippets in bash, in awk and in C, two
# languages its conf.py declares (C compiled, then run), and one that needs a newer git than any


@pytest.mark.sphinx("html", testroot="languages")
def test_a_site_runs_snippets_in_bash_and_in_the_languages_it_declares(app) -> None:
    app.build()
    assert snippet_warnings(app) == []
    text = page(app, "errors/demo/demo-oom.html")
    statuses = [re.sub(r"<[^>]+>", "", s) for s in re.findall(r'errorkb-snippet-status">(.*?)</p>', text, re.S)]
    cpu = f"CPU ({platform.machine()})"
    assert statuses[:3] == [f"passed ran on bash on {cpu}"] * 2 + [f"passed ran on awk on {cpu}"]
    assert re.fullmatch(rf"(passed ran on c, cc [0-9.]+ on {re.escape(cpu)})|(not run needs cc \(no program cc .*)", statuses[3])
    assert re.fullmatch(r"not run needs git&gt;=999 \((found git [0-9.]+|no program git on the sandbox's PATH)\)", statuses[4])
    for lexer in ("bash", "console", "awk", "c"):  # each highlighted as its language; a session as a console
        assert f'class="highlight-{lexer} notranslate"' in text, lexer
    assert "The message it reproduced" in text and "What it printed in this build" in text


def test_a_transcript_passes_on_its_output_alone() -> None:
    rules = SnippetRules()
    session = make_snippet("shows", {"id": "s", "language": "bash", "tolerance": "0.1"},
                           "$ echo 'used: 1.04 GiB'\nused: 1.00 GiB\n$ echo ...\n...", path="p.md", line=1, record_id="r",
                           rules=rules)
    assert run_snippets([session], None).results["p.md::s"].status == PASSED
    wrong = make_snippet("shows", {"id": "w", "language": "bash"}, "$ echo two\none", path="p.md", line=1, record_id="r",
                         rules=rules)
    result = run_snippets([wrong], None).results["p.md::w"]
    assert (result.status, result.reason, result.output) == (FAILED, "its output differs from the session shown",
                                                            "Expected:\none\nGot:\ntwo\n")


def test_a_missing_program_is_named() -> None:
    report = run_snippets([snippet(requires="no-such-program-errorkb>=1")], None)
    assert report.results["errors/demo/demo-oom.md::demo"].reason == \
        "needs no-such-program-errorkb>=1 (no program no-such-program-errorkb on the sandbox's PATH)"


@pytest.mark.parametrize("declared, message", [
    ({"node": {"command": "node"}}, "must name the snippet's file as {file}"),
    ({"bash": {"command": "sh {file}"}}, "'bash' is built in"),
    ({"Rust": {"command": "x {file}"}}, "is not a language name"),
    ({"js": {"command": "node {file}", "highlight": "no-such-lexer"}}, "Pygments knows no language 'no-such-lexer'"),
    ({"js": {"command": "node {file}", "colour": "red"}}, "colour: Extra inputs are not permitted"),
])
def test_a_declared_language_is_checked(declared, message) -> None:
    from errorkb.core.settings import settings_from

    with pytest.raises(ValueError, match=re.escape(message)):
        settings_from({"errorkb_languages": declared})


# ---------------------------------------------------------------------------------------------
# -W fails on a failed and on a refused snippet, on the first build and on a cached one


BROKEN_SNIPPETS = """
```{snippet} fixes
:id: raises

raise ValueError("broken")
```

```{snippet} fixes
:id: asks-too-long
:timeout: 9999

print(1)
```
"""


def test_warnings_as_errors_fail_on_a_failed_and_a_refused_snippet_until_fixed(project) -> None:
    text = record_text().replace("Fewer samples per step need fewer activations.\n",
                                 "Fewer samples per step need fewer activations.\n" + BROKEN_SNIPPETS)
    path = project.add_record(text)
    failed = f"{line_of(text, ':id: raises') - 1}: WARNING: snippet 'raises' failed: exit status 1: it should run cleanly"
    refused = f"{line_of(text, ':id: asks-too-long') - 1}: WARNING: snippet 'asks-too-long': :timeout: 9999 is more than " \
              "this site allows"
    for build in ("first", "cached"):
        done = project.build("-d", str(project.root / "_build" / "doctrees"))
        assert done.returncode != 0, build
        assert f"errors/demo/demo-oom.md:{failed}" in done.stderr and f"errors/demo/demo-oom.md:{refused}" in done.stderr, \
            (build, done.stderr)
    path.write_text(text.replace('raise ValueError("broken")', "print(2)").replace(":timeout: 9999", ":timeout: 60"),
                    encoding="utf-8")
    done = project.build("-d", str(project.root / "_build" / "doctrees"))
    assert done.returncode == 0, done.stderr


def line_of(text: str, fragment: str) -> int:
    return next(n for n, line in enumerate(text.split("\n"), 1) if fragment in line)


def test_a_sandbox_that_cannot_start_is_said_once_and_fails_warnings_as_errors(project, tmp_path: Path) -> None:
    project.add_record(record_text().replace("Fewer samples per step need fewer activations.\n",
                                             "Fewer samples per step need fewer activations.\n" + FIXES_OK))
    no_tools = tmp_path / "bin"  # a PATH without bubblewrap
    no_tools.mkdir()
    env = {**{k: v for k, v in os.environ.items() if k != "PATH"}, "PATH": str(no_tools)}

    def build(*options: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", *options, str(project.root), str(project.out)]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)

    done = build()
    warnings = [line for line in strip_colors(done.stderr).splitlines() if "WARNING" in line]
    assert done.returncode == 1 and len(warnings) == 1, done.stderr
    assert "WARNING: 1 snippet(s) could not run: the sandbox needs bwrap" in warnings[0]
    assert "-D errorkb_run_examples=0" in warnings[0]
    assert build("-D", "errorkb_run_examples=0").returncode == 0  # not meant to run here: cached results only
