"""Bad input: each snippet is stopped, reported failed with the reason, and nothing is left behind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from errorkb.examples import sandbox
from errorkb.examples.judge import FAILED, PASSED, run_one
from errorkb.examples.spec import make_snippet

from conftest import ROOT


def run(code: str, **options: str):
    snippet = make_snippet("fixes", {"id": "bad", **options}, code, path="errors/demo/demo-oom.md", line=1,
                           record_id="demo-oom")
    return run_one(snippet, "here")


def test_a_snippet_that_loops_forever_is_stopped() -> None:
    result = run("while True:\n    pass\n", timeout="2")
    assert result.status == FAILED
    assert result.reason == "stopped: still running after the 2 s time limit"
    assert result.duration < 10


def test_a_snippet_that_allocates_without_bound_hits_its_memory_limit() -> None:
    result = run("chunks = []\nwhile True:\n    chunks.append(bytearray(16 * 2**20))\n", memory="256M", timeout="30")
    assert result.status == FAILED
    assert result.reason == "exit status 1: it should run cleanly"
    assert "MemoryError" in result.output


def test_a_fork_bomb_is_contained_and_every_process_killed() -> None:
    if not sandbox.isolation().own_user and os.geteuid() == 0:
        pytest.skip("root builds limit processes only with a separate user id, not available here")
    result = run("import os, time\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        time.sleep(60)\n",
                 timeout="3")
    assert result.status == FAILED
    assert result.reason == "stopped: still running after the 3 s time limit"
    if sandbox.isolation().own_user:
        assert sandbox._pids_of_user(sandbox.FIRST_SANDBOX_UID) == []


def test_a_snippet_printing_a_gigabyte_is_stopped_early() -> None:
    result = run("import sys\nfor _ in range(2**14):\n    sys.stdout.write('x' * 2**16)\n", timeout="60")
    assert result.status == FAILED
    assert result.reason == "stopped: printed more than 8 MiB of output"
    assert result.duration < 30
    assert len(result.output) < sandbox.HEAD_BYTES + sandbox.TAIL_BYTES + 100


def test_a_huge_file_is_refused() -> None:
    result = run("with open('big', 'wb') as f:\n    f.write(b'x' * (300 * 2**20))\n")
    assert result.status == FAILED
    assert "File too large" in result.output or result.reason.startswith("stopped: wrote a file larger")


def test_a_snippet_runs_in_a_fresh_folder_without_network() -> None:
    code = ("import os, socket\nprint(os.getcwd() == os.environ['HOME'], os.listdir('.'))\n"
            "try:\n    socket.create_connection(('1.1.1.1', 53), timeout=3)\n    print('online')\n"
            "except OSError:\n    print('offline')\n")
    result = run(code)
    assert result.status == PASSED
    assert result.output.splitlines()[0] == "True ['snippet.py']"
    if sandbox.isolation().network:
        assert result.output.splitlines()[1] == "offline"


def test_a_snippet_cannot_write_to_the_source_tree() -> None:
    if not sandbox.isolation().own_user:
        pytest.skip("snippets run with the build user's file rights on this machine")
    target = ROOT / "errors" / "written-by-a-snippet.txt"
    result = run(f"open({str(target)!r}, 'w').write('x')\n")
    assert result.status == FAILED
    assert "PermissionError" in result.output
    assert not target.exists()


def test_the_sandbox_leaves_no_folder_behind(tmp_path: Path) -> None:
    result = run("import os\nprint(os.getcwd())\n")
    assert not Path(result.output.strip()).exists()
