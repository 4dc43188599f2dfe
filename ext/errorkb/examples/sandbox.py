"""Run Python in a sandbox: own process group, fresh directory, limits, no network.

Each run gets a new temporary directory as its working directory, ``HOME`` and ``TMPDIR``; a
time limit (the whole process group is killed when it passes); ``RLIMIT_AS`` (memory),
``RLIMIT_NPROC`` (processes and threads), ``RLIMIT_FSIZE`` (largest file written) and no core
dumps; its output (stdout and stderr together) is captured, and a run that prints more than
:data:`FLOOD_BYTES` is stopped.  The network is cut with a network namespace where the
machine allows one (``unshare --net``; as an ordinary user, in a user namespace).

When the build runs as root, each concurrent run also gets its own unprivileged user id, so
a snippet cannot write to the source tree, the build output or the virtual environment, and
its process limit counts its own processes only.  Run as an ordinary user, a snippet has
that user's rights on files: it starts in its own directory but is not prevented from
writing elsewhere.  :func:`isolation` says which of these protections this machine gives.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).parent
LAUNCHER = HERE / "launch.py"
SESSION = HERE / "session.py"

FLOOD_BYTES = 8 * 1024**2  # a run printing more than this is stopped
HEAD_BYTES = 16 * 1024  # of a long output, the start and the end are kept
TAIL_BYTES = 48 * 1024
FILE_BYTES = 256 * 1024**2  # the largest file a snippet may write
TASKS = 512  # processes and threads a snippet may have at once
FIRST_SANDBOX_UID = 61000  # root builds run snippets as 61000, 61001, ... (one per worker)
MAX_WORKERS = 64


@dataclasses.dataclass(frozen=True)
class Isolation:
    """The protections this machine gives a snippet."""

    network: bool  # runs in its own network namespace
    own_user: bool  # runs as a separate unprivileged user id
    prefix: tuple[str, ...]  # command that enters the network namespace
    switch_user: tuple[str, ...]  # setpriv options that drop to the sandbox's user id

    def describe(self) -> str:
        parts = ["no network" if self.network else "network NOT isolated (no network namespace allowed here)"]
        parts.append("separate user id" if self.own_user else "the build user's file rights")
        return ", ".join(parts)


def _output(cmd: list[str]) -> str | None:
    """The command's output, or None when it fails."""
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd="/")
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def _setpriv(uid: int, options: tuple[str, ...]) -> list[str]:
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", *options, "--"]


# Where the interpreter lives in a folder other users cannot enter (pyenv under /root), the
# sandbox user keeps one capability: reading and searching folders.  It still cannot write.
_READ_ANYWHERE = ("--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search")


@functools.cache
def isolation() -> Isolation:
    """Detect, once, what this machine allows."""
    unshare = shutil.which("unshare")
    candidates = [[unshare, "--net", "--"]] if os.geteuid() == 0 else []
    candidates.append([unshare, "--user", "--net", "--"])
    prefix = next((c for c in candidates if unshare and _output([*c, "true"]) is not None), [])
    if os.geteuid() == 0 and shutil.which("setpriv"):
        # The sandbox user must start this very interpreter, not another Python on the PATH.
        probe = [sys.executable, "-I", "-c", "import sys; print(sys.version, sys.prefix)"]
        for options in ((), _READ_ANYWHERE):
            if _output([*prefix, *_setpriv(FIRST_SANDBOX_UID, options), *probe]) == f"{sys.version} {sys.prefix}\n":
                return Isolation(bool(prefix), True, tuple(prefix), options)
    return Isolation(bool(prefix), False, tuple(prefix), ())


@dataclasses.dataclass(frozen=True)
class Limits:
    timeout: float
    memory: int


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What a run did."""

    returncode: int  # negative: killed by that signal
    output: str  # stdout and stderr interleaved; the middle of a long output is cut
    timed_out: bool
    flooded: bool  # printed more than FLOOD_BYTES and was stopped
    output_bytes: int
    duration: float
    isolation: Isolation

    @property
    def signal_name(self) -> str | None:
        if self.returncode >= 0:
            return None
        try:
            return signal.Signals(-self.returncode).name
        except ValueError:
            return f"signal {-self.returncode}"


class _Capture:
    """Reads a pipe to its end, keeping the head and tail; flags a flood."""

    def __init__(self, stream, on_flood) -> None:  # type: ignore[no-untyped-def]
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self.flooded = False
        self._stream, self._on_flood = stream, on_flood
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while chunk := self._stream.read1(65536):
            self.total += len(chunk)
            room = HEAD_BYTES - len(self.head)
            if room > 0:
                self.head += chunk[:room]
                chunk = chunk[room:]
            self.tail = (self.tail + chunk)[-TAIL_BYTES:]
            if self.total > FLOOD_BYTES and not self.flooded:
                self.flooded = True
                self._on_flood()

    def text(self) -> str:
        cut = self.total - len(self.head) - len(self.tail)
        middle = f"\n[... {cut} bytes of output left out ...]\n".encode() if cut > 0 else b""
        return (bytes(self.head) + middle + bytes(self.tail)).decode("utf-8", "replace")


# Root builds hand each concurrent run a user id of its own.
_free_uids: queue.Queue[int] = queue.Queue()
for _uid in range(FIRST_SANDBOX_UID, FIRST_SANDBOX_UID + MAX_WORKERS):
    _free_uids.put(_uid)


def _pids_of_user(uid: int) -> list[int]:
    """Live (not zombie) processes whose real user id is ``uid``."""
    pids = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        except OSError:
            continue
        if int(fields["Uid"].split()[0]) == uid and not fields["State"].strip().startswith("Z"):
            pids.append(int(status.parent.name))
    return pids


def _user_tasks() -> int:
    """Processes and threads this user has now (RLIMIT_NPROC counts them all)."""
    uid = os.getuid()
    return sum(len(list(Path(f"/proc/{pid}/task").glob("*"))) for pid in _pids_of_user(uid)) if Path("/proc").is_dir() else 0


def _kill_all(pgid: int, uid: int | None) -> None:
    """Kill the process group, and in root builds every process left with the sandbox's uid."""
    for _ in range(50):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        left = _pids_of_user(uid) if uid is not None else []
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if not left:
            return
        time.sleep(0.02)


def run(files: dict[str, str], argv: list[str], limits: Limits) -> Outcome:
    """Write ``files`` into a fresh directory and run ``python -I -u *argv`` there."""
    iso = isolation()
    uid = _free_uids.get() if iso.own_user else None
    workdir = Path(tempfile.mkdtemp(prefix="errorkb-snippet-"))
    try:
        for name, text in files.items():
            (workdir / name).write_text(text, encoding="utf-8")
        if uid is not None:
            for path in [workdir, *workdir.iterdir()]:
                os.chown(path, uid, uid)
        nproc = TASKS if uid is not None else TASKS + _user_tasks()
        switch = _setpriv(uid, iso.switch_user) if uid is not None else []
        spec = {
            "limits": {"RLIMIT_AS": limits.memory, "RLIMIT_NPROC": nproc, "RLIMIT_FSIZE": FILE_BYTES, "RLIMIT_CORE": 0},
            "argv": [*switch, sys.executable, "-I", "-u", *argv],
        }
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(workdir), "TMPDIR": str(workdir),
               "LANG": "C.UTF-8", "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}
        cmd = [*iso.prefix, sys.executable, "-I", str(LAUNCHER), json.dumps(spec)]
        start = time.monotonic()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                env=env, cwd=workdir, process_group=0)
        flood = threading.Event()
        capture = _Capture(proc.stdout, flood.set)
        timed_out = False
        while proc.poll() is None:
            if flood.wait(0.05):
                break
            if time.monotonic() - start > limits.timeout:
                timed_out = True
                break
        _kill_all(proc.pid, uid)
        returncode = proc.wait()
        duration = time.monotonic() - start
        capture.thread.join(timeout=5)
        return Outcome(returncode, capture.text(), timed_out, capture.flooded, capture.total, duration, iso)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
        if uid is not None:
            _free_uids.put(uid)
