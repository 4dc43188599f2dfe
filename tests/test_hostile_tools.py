"""Every terminal tool and the build on inputs written to break them: each answers with a message
and its documented exit status, never a traceback, a hang or an unbounded read.

Nothing here runs a snippet or depends on who runs the tools, so it runs once, as whoever runs
the tests; ``test_hostile_as_user.py`` reruns only the snippets' suite as an ordinary user.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Project, record_text

MESSAGE = "DemoError: could not allocate 2.00 GiB on device 0"
PROSE = "The program asked for more memory than the device had left.\n"


def errorkb(root: Path, *args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "errorkb.tools.cli", "--root", str(root), *args], input=stdin,
                          capture_output=True, timeout=120, cwd=root)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode("utf-8", "replace"),
                                       done.stderr.decode("utf-8", "replace"))


# ---------------------------------------------------------------------------------------------
# Bounded reads


@pytest.fixture
def small_site(tmp_path: Path) -> Project:
    project = Project(tmp_path)
    project.add_record()
    return project


def test_new_reads_no_more_than_its_limit_of_a_message_file(small_site: Project) -> None:
    done = errorkb(small_site.root, "new", "--id", "demo-zero", "--source", "demo", "--title", "Zeros without end",
                   "--message-file", "/dev/zero")
    assert done.returncode == 2, done.stderr
    assert done.stderr == "errorkb new: cannot read the message: it holds more than 10,485,760 characters\n"
    assert not (small_site.root / "errors/demo/demo-zero.md").exists()


def test_new_still_reads_a_message_from_a_pipe(small_site: Project, tmp_path: Path) -> None:
    pipe = tmp_path / "message"
    os.mkfifo(pipe)
    writer = subprocess.Popen(["sh", "-c", f"printf 'step 1\\nOtherError: no room for 5 GiB\\n' > '{pipe}'"])
    done = errorkb(small_site.root, "new", "--id", "demo-pipe", "--source", "demo", "--title", "From a pipe",
                   "--message-file", str(pipe))
    writer.wait(timeout=60)
    assert done.returncode == 0, done.stderr
    assert "OtherError: no room for 5 GiB" in (small_site.root / "errors/demo/demo-pipe.md").read_text(encoding="utf-8")


def test_a_lookup_index_nested_100000_deep_exits_2_with_one_line(small_site: Project) -> None:
    deep = small_site.root / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    done = errorkb(small_site.root, "lookup", "--index", str(deep), MESSAGE)
    assert done.returncode == 2, done.stderr
    assert done.stderr == f"errorkb: cannot read the lookup index {deep}: it is nested too deeply\n"


# ---------------------------------------------------------------------------------------------
# Every command on a corpus of broken inputs


def _with(text: str, before: str, after: str) -> str:
    assert before in text
    return text.replace(before, after)


def _record(id_: str) -> str:
    """A record of its own message, so that it clashes with no other."""
    return record_text(id=id_, code=id_.upper()).replace("could not allocate", f"{id_} could not allocate")


#: Record files that break a different part of the reading: id -> its text (bytes where not UTF-8).
BROKEN_RECORDS: dict[str, str | bytes] = {
    "demo-huge-diagnosis": _with(_record("demo-huge-diagnosis"), "related: []",
                                 "related: []\ndiagnoses:\n  - when: requested > " + "9" * 310 + " B\n    say: Big\n    fix: 1"),
    "demo-bad-condition": _with(_record("demo-bad-condition"), "related: []",
                                "related: []\ndiagnoses:\n  - when: requested > (\n    say: Big\n    fix: 9"),
    "demo-bad-date": _with(_record("demo-bad-date"), "related: []",
                           "related: []\nchecked: {date: 2026-13-45, against: {PyTorch: '2.9'}}"),
    "demo-long-number": _with(_record("demo-long-number"), "related: []",
                              "related: []\nchecked: {date: 2026-11, against: {PyTorch: " + "9" * 5000 + "}}"),
    "demo-deep": _with(_record("demo-deep"), "related: []", "related: []\nextra: " + "[" * 50_000 + "]" * 50_000),
    "demo-aliases": _with(_record("demo-aliases"), "related: []",
                          "related: []\na: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]"),
    "demo-python-tag": _with(_record("demo-python-tag"), "related: []",
                             "related: []\nextra: !!python/object/apply:os.system ['true']"),
    "demo-bad-template": _with(_record("demo-bad-template"), "on device {device:int}", "on device {device"),
    "demo-no-front-matter": "## Causes\n\nNone.\n",
    "demo-nul": _record("demo-nul").replace(PROSE, "A NUL \x00 byte.\n"),
    "demo-not-utf8": _record("demo-not-utf8").encode("utf-8").replace(b"device had left", b"device \xff\xfe left"),
    "demo-oversized": _record("demo-oversized").replace(PROSE, PROSE + "Padding. " * 40_000 + "\n"),
}
#: Indexes for ``lookup --index`` that are not one: name -> content (None: a link to /dev/zero).
BROKEN_INDEXES: dict[str, str | None] = {
    "deep.json": "[" * 100_000 + "]" * 100_000,
    "deep-objects.json": '{"a":' * 100_000 + "1" + "}" * 100_000,
    "not-json.json": "{'version': 3",
    "a-list.json": "[]",
    "wrong-shape.json": '{"version": 3, "records": 5, "templates": "x"}',
    "zero.json": None,
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Project:
    """A site with one good record and every broken one, a FIFO and a link to /dev/zero among them."""
    project = Project(tmp_path_factory.mktemp("corpus"))
    project.add_record()
    for id_, text in BROKEN_RECORDS.items():
        path = project.root / "errors/demo" / f"{id_}.md"
        path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    os.mkfifo(project.root / "errors/demo/demo-fifo.md")
    (project.root / "errors/demo/demo-zero.md").symlink_to("/dev/zero")
    project.write("errors/stray.md", "# Not at a record's place\n")
    for name, content in BROKEN_INDEXES.items():
        if content is None:
            (project.root / name).symlink_to("/dev/zero")
        else:
            project.write(name, content)
    return project


def assert_no_traceback(done: subprocess.CompletedProcess[str], *statuses: int) -> None:
    assert "Traceback" not in done.stdout + done.stderr, done.stderr[-3000:]
    assert done.returncode in statuses, (done.returncode, done.stderr[-3000:])


def test_check_names_every_broken_record_at_a_line(corpus: Project) -> None:
    done = errorkb(corpus.root, "check")
    assert_no_traceback(done, 1)
    named = {line.split(":", 1)[0] for line in done.stdout.splitlines()}
    broken = {f"errors/demo/{id_}.md" for id_ in [*BROKEN_RECORDS, "demo-fifo", "demo-zero"]}
    assert broken | {"errors/stray.md"} <= named, sorted(broken - named)
    assert "errors/demo/demo-oom.md" not in named


@pytest.mark.parametrize("args", [
    ("explain", "demo-oom"),
    ("explain", "demo-huge-diagnosis"),
    ("lookup", MESSAGE),
    ("lookup", "--json", MESSAGE),
    ("lookup", "--top", "3", "demo-huge-diagnosis could not allocate 2.00 GiB on device 0"),
    ("new", "--id", "demo-new", "--source", "demo", "--title", "A new one", "--message-file", "/dev/zero"),
    ("new", "--id", "demo-new", "--source", "demo", "--title", "A new one", "--message-file", "errors/demo/demo-not-utf8.md"),
    ("new", "--id", "demo-new", "--source", "demo", "--title", "A new one", "--message-file", "errors"),
    ("run", "--", sys.executable, "-c", f"import sys; sys.exit('{MESSAGE}')"),
    ("mcp",),
], ids=["explain", "explain-broken", "lookup", "lookup-json", "lookup-broken", "new-dev-zero", "new-not-utf8",
        "new-folder", "run", "mcp"])
def test_every_command_answers_the_corpus_without_a_traceback(corpus: Project, args: tuple[str, ...]) -> None:
    done = errorkb(corpus.root, *args)
    assert_no_traceback(done, 0, 1, 2)
    if args[0] == "run":
        assert done.returncode == 1 and "errorkb: demo-oom (DEMO1): Demo device ran out of memory" in done.stderr
    if args[:2] == ("lookup", "--json"):
        assert [m["id"] for m in json.loads(done.stdout)["matches"]] == ["demo-oom"]


def test_the_lookup_input_may_be_binary_or_empty(corpus: Project) -> None:
    for stdin in (b"", b"\x00\xff" * 5000, b"\n" * 10_000):
        assert_no_traceback(errorkb(corpus.root, "lookup", stdin=stdin), 2)


@pytest.mark.parametrize("name", list(BROKEN_INDEXES))
def test_a_broken_lookup_index_exits_2_with_one_line(corpus: Project, name: str) -> None:
    done = errorkb(corpus.root, "lookup", "--index", name, MESSAGE)
    assert_no_traceback(done, 2)
    assert done.stderr.startswith(f"errorkb: cannot read the lookup index {name}: ") and done.stderr.count("\n") == 1


def test_the_python_hook_adds_its_block_under_the_programs_own_traceback(corpus: Project) -> None:
    script = corpus.root / "fails.py"
    script.write_text(f"raise RuntimeError({MESSAGE!r})\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "errorkb.hook", str(script)], capture_output=True, text=True,
                          timeout=120, cwd=corpus.root, env={**os.environ, "ERRORKB_ROOT": str(corpus.root)})
    assert done.returncode == 1
    assert done.stderr.count("Traceback") == 1 and "errorkb/" not in done.stderr.split("RuntimeError")[0], done.stderr
    assert "errorkb: demo-oom (DEMO1): Demo device ran out of memory" in done.stderr


def test_the_build_names_every_broken_record_and_builds_nothing(corpus: Project) -> None:
    built = corpus.build()
    assert_no_traceback(built, 1)
    for id_ in [*BROKEN_RECORDS, "demo-fifo", "demo-zero"]:
        assert f"errors/demo/{id_}.md:" in built.stderr, id_
    assert "nothing was built" in built.stderr and not (corpus.out / "index.html").exists()
