"""Snippets written to escape or harm: each is contained, stopped, and leaves nothing behind.

Runs as root (as CI does) and, through ``test_hostile_as_user.py``, as an ordinary user.
"""

from __future__ import annotations

import ast
import fcntl
import os
import signal
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from conftest import ROOT, wait_until
from errorkb.examples import sandbox, sandbox_ids
from errorkb.examples.judge import FAILED, NOT_RUN, PASSED, run_one
from errorkb.examples.runner import run_snippets
from errorkb.examples.spec import SnippetError, make_snippet
from system_tools import require


@pytest.fixture(autouse=True, scope="module")
def bubblewrap() -> None:
    require("bwrap", "bubblewrap")
    if sandbox.unavailable():
        pytest.fail(f"bwrap is installed but the sandbox does not start: {sandbox.unavailable()}")


def snippet(code: str, **options: str):
    return make_snippet("fixes", {"id": "bad", **options}, code, path="errors/demo/demo-oom.md", line=1,
                        record_id="demo-oom")


def run(code: str, **options: str):
    return run_one(snippet(code, **options), "here")


def processes_naming(marker: str) -> list[int]:
    """Live processes of the machine whose command line holds ``marker``."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if marker.encode() in cmdline.read_bytes():
                found.append(int(cmdline.parent.name))
        except OSError:
            continue
    return [pid for pid in found if pid != os.getpid()]


# ---------------------------------------------------------------------------------------------
# What a snippet can see and touch


def test_a_snippet_has_no_capabilities_and_cannot_gain_any() -> None:
    result = run("import ctypes, os\n"
                 "for line in open('/proc/self/status'):\n"
                 "    if line.startswith(('Cap', 'NoNewPrivs')):\n        print(line.split()[0], line.split()[1])\n"
                 "libc = ctypes.CDLL(None, use_errno=True)\n"
                 "print('unshare(CLONE_NEWUSER):', 'refused' if libc.unshare(0x10000000) else 'allowed')\n")
    assert result.status == PASSED, result.output
    assert result.output.splitlines()[-1] == "unshare(CLONE_NEWUSER): refused"
    fields = dict(line.split() for line in result.output.splitlines()[:-1])
    assert {k: v for k, v in fields.items() if k.startswith("Cap")} == {
        "CapInh:": "0000000000000000", "CapPrm:": "0000000000000000", "CapEff:": "0000000000000000",
        "CapBnd:": "0000000000000000", "CapAmb:": "0000000000000000"}
    assert fields["NoNewPrivs:"] == "1"


def test_host_files_are_hidden_even_those_only_root_may_read(tmp_path: Path) -> None:
    secret = tmp_path / "root-only"
    secret.write_text("the host's secret")
    secret.chmod(0o600)
    targets = [str(secret), "/etc/shadow", "/etc/passwd", "/root/.ssh/id_rsa", str(Path.home() / ".ssh"),
               str(ROOT / "errors"), str(ROOT / "conf.py")]
    code = ("import os\n"
            f"for path in {targets!r}:\n"
            "    try:\n"
            "        open(path, 'rb').read() if os.path.isfile(path) else os.listdir(path)\n"
            "        print('READ', path)\n"
            "    except OSError as exc:\n"
            "        print(type(exc).__name__, path)\n")
    result = run(code)
    assert result.status == PASSED, result.output
    assert result.output.splitlines() == [f"FileNotFoundError {target}" for target in targets]


def test_a_snippet_sees_no_other_process_and_can_signal_none() -> None:
    host = subprocess.Popen(["sleep", "60"])
    try:
        code = ("import os\n"
                "print(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))\n"
                f"try:\n    os.kill({host.pid}, 9)\n    print('killed')\nexcept OSError as exc:\n    print(type(exc).__name__)\n")
        result = run(code)
        assert result.status == PASSED, result.output
        assert result.output.splitlines() == ["[1, 2, 3]", "ProcessLookupError"]  # init, launcher, snippet
        assert host.poll() is None
    finally:
        host.kill()
        host.wait()


def test_host_unix_sockets_cannot_be_reached(tmp_path: Path) -> None:
    path = tmp_path / "host.sock"
    abstract = f"\0errorkb-test-{uuid.uuid4().hex}"
    listeners = []
    for address in (str(path), abstract):
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(address)
        listener.listen()
        listener.setblocking(False)
        listeners.append(listener)
    targets = [str(path), abstract, "/run/docker.sock", "/var/run/dbus/system_bus_socket", "/run/systemd/private"]
    code = ("import socket\n"
            f"for address in {targets!r}:\n"
            "    s = socket.socket(socket.AF_UNIX)\n"
            "    try:\n        s.connect(address)\n        print('CONNECTED', repr(address))\n"
            "    except OSError as exc:\n        print(type(exc).__name__)\n")
    try:
        result = run(code)
        assert result.status == PASSED, result.output
        assert "CONNECTED" not in result.output
        for listener in listeners:
            with pytest.raises(BlockingIOError):
                listener.accept()
    finally:
        for listener in listeners:
            listener.close()


def test_a_snippet_has_no_network() -> None:
    code = ("import socket\n"
            "try:\n    socket.create_connection(('1.1.1.1', 53), timeout=3)\n    print('online')\n"
            "except OSError:\n    print('offline')\n")
    result = run(code)
    assert result.status == PASSED and result.output == "offline\n"


def test_writes_stay_in_the_snippets_own_folders_which_vanish(tmp_path: Path) -> None:
    name = f"errorkb-test-{uuid.uuid4().hex}"
    code = ("import os, sys\n"
            f"name = {name!r}\n"
            "print(os.getcwd() == os.environ['HOME'] == os.environ['TMPDIR'], os.listdir('.'))\n"
            "for folder in ('.', '/tmp', '/var/tmp', '/dev/shm'):\n"
            "    with open(os.path.join(folder, name), 'wb') as f:\n        f.write(b'x' * 2**20)\n"
            f"for target in ({str(ROOT / 'errors' / name)!r}, {str(tmp_path / name)!r}, sys.prefix + '/' + name,\n"
            "               '/usr/' + name, '/' + name):\n"
            "    try:\n        open(target, 'w').write('x')\n        print('WROTE', target)\n"
            "    except OSError as exc:\n        print(type(exc).__name__)\n")
    result = run(code)
    assert result.status == PASSED, result.output
    # Beside the snippet, the working folder (the container's /tmp) holds only the way to the
    # interpreter's folders where they live under /tmp (a clone or a CI cache), shown read-only.
    shown = {Path(f).relative_to(sandbox.WORKDIR).parts[0] for f in sandbox._shown_folders()
             if Path(f).is_relative_to(sandbox.WORKDIR)}
    cwd, listed = result.output.splitlines()[0].split(" ", 1)
    assert cwd == "True" and sorted(ast.literal_eval(listed)) == sorted({"snippet.py", *shown})
    assert "WROTE" not in result.output
    for folder in ("/tmp", "/var/tmp", "/dev/shm", str(ROOT / "errors"), str(tmp_path), sys.prefix):
        assert not (Path(folder) / name).exists(), folder


def test_the_private_folders_are_small() -> None:
    code = ("import os\nwritten = 0\n"
            "try:\n"
            "    for i in range(100):\n"
            "        with open(f'/dev/shm/{i}', 'wb') as f:\n            f.write(b'x' * 2**20)\n        written += 1\n"
            "except OSError as exc:\n    print(type(exc).__name__, exc.errno, written)\n")
    result = run(code)
    assert result.status == PASSED, result.output
    name, errno, written = result.output.split()
    assert name == "OSError" and int(errno) == 28 and int(written) == sandbox.SHM_BYTES // 2**20


# ---------------------------------------------------------------------------------------------
# Limits


def test_memory_and_time_above_the_sites_ceilings_are_refused() -> None:
    with pytest.raises(SnippetError, match=r":memory: 1000G is more than this site allows \(errorkb_max_memory = 4G\)"):
        snippet("print(1)", memory="1000G")
    with pytest.raises(SnippetError, match=r":timeout: 9000 is more than this site allows \(errorkb_max_timeout = 600\)"):
        snippet("print(1)", timeout="9000")


def test_a_snippet_that_allocates_without_bound_hits_its_memory_limit() -> None:
    result = run("chunks = []\nwhile True:\n    chunks.append(bytearray(16 * 2**20))\n", memory="256M", timeout="30")
    assert result.status == FAILED
    assert result.reason == "exit status 1: it should run cleanly"
    assert "MemoryError" in result.output


def test_a_snippet_that_loops_forever_is_stopped() -> None:
    result = run("while True:\n    pass\n", timeout="2")
    assert result.status == FAILED and result.transient
    assert result.reason == "stopped: still running after the 2 s time limit"
    assert result.duration < 10


def test_a_fork_bomb_is_contained_and_every_process_killed() -> None:
    marker = f"errorkb-bomb-{uuid.uuid4().hex}"
    code = ("import os, sys, time\n"
            f"os.execv(sys.executable, [sys.executable, '-c', 'import os, time\\n'\n"
            "    'while True:\\n    try:\\n        os.fork()\\n    except OSError:\\n        time.sleep(60)', "
            f"{marker!r}])\n")
    result = run(code, timeout="3")
    assert result.status == FAILED
    assert result.reason == "stopped: still running after the 3 s time limit"
    assert processes_naming(marker) == []


def test_a_snippet_printing_a_gigabyte_is_stopped_early() -> None:
    result = run("import sys\nfor _ in range(2**14):\n    sys.stdout.write('x' * 2**16)\n", timeout="60")
    assert result.status == FAILED
    assert result.reason == "stopped: printed more than 8 MiB of output"
    assert len(result.output) < sandbox.HEAD_BYTES + sandbox.TAIL_BYTES + 100


def test_a_huge_file_is_refused() -> None:
    result = run("with open('big', 'wb') as f:\n    f.write(b'x' * (300 * 2**20))\n")
    assert result.status == FAILED
    assert "File too large" in result.output or result.reason.startswith("stopped: wrote a file larger")


# ---------------------------------------------------------------------------------------------
# The sandbox dies with the build, and builds do not disturb each other


SLEEPER = """
```{{snippet}} fixes
:id: {id}
:timeout: 120

import subprocess, sys, time
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", "{marker}"], start_new_session=True)
time.sleep({seconds})
print("done")
```
"""


def record_with(*snippets: str) -> str:
    from conftest import record_text

    return record_text().replace("Fewer samples per step need fewer activations.\n",
                                 "Fewer samples per step need fewer activations.\n" + "".join(snippets))


def sphinx_build(project, out: Path, builder: str = "examples") -> subprocess.Popen[str]:
    cmd = [sys.executable, "-m", "sphinx", "-q", "-b", builder, "-d", str(out / "doctrees"), str(project.root), str(out)]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)


def kill_and_see_gone(build: subprocess.Popen, marker: str, start_within: float, gone: str) -> None:
    """Once a process naming ``marker`` runs, kill ``build`` with SIGKILL; within 10 s no process
    may name it any more (``gone`` says what that shows)."""
    try:
        wait_until(lambda: processes_naming(marker), start_within, "the snippet to start")
        build.send_signal(signal.SIGKILL)
        build.wait()
        wait_until(lambda: not processes_naming(marker), 10, gone)
    finally:
        build.kill()
        build.wait()


def test_killing_the_build_kills_every_process_of_its_snippets(project) -> None:
    marker = f"errorkb-orphan-{uuid.uuid4().hex}"
    project.add_record(record_with(SLEEPER.format(id="outlives", marker=marker, seconds=300)))
    build = sphinx_build(project, project.root / "_build" / "killed")
    kill_and_see_gone(build, marker, 120, "the snippet's processes to die with the build")


LOST_BUILD = """
import sys
from errorkb.examples import sandbox

command = sandbox._command
sandbox._command = lambda *args: [a for a in command(*args) if a != "--die-with-parent"]
sandbox.run({"snippet.py": sys.argv[1]}, [*sandbox.PYTHON, "snippet.py"], sandbox.Limits(timeout=300, memory=2**30))
"""


def test_a_build_lost_before_bwrap_watches_it_still_takes_its_snippet_along() -> None:
    prefix, suffix = "errorkb-lost-", uuid.uuid4().hex
    marker = prefix + suffix  # not in the build's own command line, which holds the code
    code = ("import subprocess, sys, time\n"
            f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)', {prefix!r} + {suffix!r}])\n"
            "time.sleep(300)\n")
    build = subprocess.Popen([sys.executable, "-c", LOST_BUILD, code])
    kill_and_see_gone(build, marker, 60, "the launcher to kill the container")


def test_two_builds_at_once_run_every_snippet_and_cache_no_failure(project) -> None:
    marker = f"errorkb-concurrent-{uuid.uuid4().hex}"
    project.add_record(record_with(SLEEPER.format(id="slow", marker=marker, seconds=10),
                                   SLEEPER.format(id="quick", marker=marker, seconds=0)))
    first = sphinx_build(project, project.root / "_build" / "first")
    wait_until(lambda: processes_naming(marker), 120, "the first build's snippets to start")
    second = sphinx_build(project, project.root / "_build" / "second")  # ends while the first still runs
    for build, name in ((second, "second"), (first, "first")):
        output, _ = build.communicate(timeout=300)
        assert build.returncode == 0, output
        summary = (project.root / "_build" / name / "output.txt").read_text(encoding="utf-8")
        assert summary.splitlines()[-1] == "examples: 2 passed, 0 failed, 0 skipped", summary
    assert processes_naming(marker) == []


def test_a_sandbox_that_cannot_start_is_not_run_and_not_cached(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(sandbox, "_mounts", lambda accelerators: ["--ro-bind", "/no/such/folder", "/x"])
    report = run_snippets([snippet("print(1)")], tmp_path)
    result = report.results["errors/demo/demo-oom.md::bad"]
    assert result.status == NOT_RUN and result.transient
    assert result.reason.startswith("the sandbox could not start: bwrap: Can't find source path /no/such/folder")
    assert list(tmp_path.rglob("*.json")) == []


def test_without_bubblewrap_nothing_runs_and_the_reason_is_given(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    sandbox._verdict.cache_clear()
    try:
        report = run_snippets([snippet("print(1)")], tmp_path)
    finally:
        sandbox._verdict.cache_clear()
    result = report.results["errors/demo/demo-oom.md::bad"]
    assert result.status == NOT_RUN and result.transient and report.executed == []
    assert result.reason.startswith("the sandbox needs bwrap") and "missing on this machine" in result.reason
    assert list(tmp_path.rglob("*.json")) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="sandbox user ids are handed out to builds run as root only")
def test_when_every_sandbox_id_is_taken_snippets_are_not_run_and_not_cached(tmp_path: Path) -> None:
    held = []
    folder = sandbox_ids._private_folder()
    try:
        for uid in range(sandbox_ids.FIRST, sandbox_ids.FIRST + sandbox_ids.COUNT):
            fd = os.open(folder / f"{uid}.lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:  # a build running beside this test holds it
                pass
            held.append(fd)
        report = run_snippets([snippet("print(1)")], tmp_path)
    finally:
        for fd in held:
            os.close(fd)
    result = report.results["errors/demo/demo-oom.md::bad"]
    assert result.status == NOT_RUN and result.transient
    assert result.reason == f"all {sandbox_ids.COUNT} sandbox user ids ({sandbox_ids.FIRST} to " \
                            f"{sandbox_ids.FIRST + sandbox_ids.COUNT - 1}) are in use by running snippets"
    assert list(tmp_path.rglob("*.json")) == []


# ---------------------------------------------------------------------------------------------
# Numbers in snippet options: ASCII digits, bounded; anything else a file:line problem in
# errorkb check and the build, never an exception


HOSTILE_NUMBERS = {
    "timeout": ["²", "٣", "１", "9" * 5000, "1e3", "-5", "0x10", "60.5", "∞"],
    "memory": ["²G", "٣G", "1" * 5000 + "G", "9" * 400 + "G", "1e999G", "nanG", "2G" + "\u200b"],
    "tolerance": ["٠.٥", "0.５", "1e-400", "nan", "inf", "0." + "1" * 5000],
    "requires": ["gpus>=²", "gpus>=٤", "gpus>=" + "9" * 5000, "gpu-memory>=" + "9" * 400 + "G",
                 "gpu-memory>=٤G", "torch>=²"],
}
CASES = [(option, value) for option, values in HOSTILE_NUMBERS.items() for value in values]


@pytest.mark.parametrize("option, value", CASES, ids=[f"{o}-{i}" for i, (o, _) in enumerate(CASES)])
def test_a_number_that_is_not_plain_digits_in_range_is_refused_with_its_option(option: str, value: str) -> None:
    from errorkb.examples.accelerators import PROFILE
    from errorkb.examples.rules import SnippetRules

    kind, code = ("shows", ">>> 1\n1\n") if option == "tolerance" else ("fixes", "print(1)\n")
    with pytest.raises(SnippetError, match=f":{option}:"):
        make_snippet(kind, {"id": "bad", option: value}, code, path="errors/demo/demo-oom.md", line=1,
                     record_id="demo-oom", rules=SnippetRules(hardware=PROFILE))


def test_hostile_numbers_are_file_line_problems_in_check_and_the_build(project) -> None:
    import io
    import re
    from contextlib import redirect_stderr, redirect_stdout

    from errorkb.tools.cli import main

    fences = "".join(f"\n```{{snippet}} {'shows' if option == 'tolerance' else 'fixes'}\n:id: case-{n}\n:{option}: {value}\n\n"
                     f"{'>>> 1' if option == 'tolerance' else 'print(1)'}\n```\n" for n, (option, value) in enumerate(CASES))
    text = record_with(fences)
    project.write("conf.py", project.CONF + '\nerrorkb_hardware = "errorkb.examples.accelerators"\n')
    project.add_record(text)
    lines = text.split("\n")
    expected = {f"errors/demo/demo-oom.md:{n}" for n, line in enumerate(lines, 1) if line.startswith("```{snippet}")}
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        assert main(["--root", str(project.root), "check"]) == 1
    assert {line.split(": ", 1)[0] for line in out.getvalue().splitlines()} == expected
    done = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", "-D", "errorkb_run_examples=0",
                           str(project.root), str(project.out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-3000:]
    found = {f"errors/demo/demo-oom.md:{n}" for n in re.findall(r"demo-oom\.md:(\d+): WARNING: snippet 'case-\d+': :",
                                                                   done.stderr)}
    assert found == expected
