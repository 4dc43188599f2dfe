"""Run Python in a sandbox made with bubblewrap: nothing of the host but what the interpreter needs.

Each run is a ``bwrap`` container with its own namespaces (processes, network, IPC, host
name), in which the only host files are, read-only, ``/usr``, the loader's cache and the
interpreter's folders (the virtual environment and the Python it was made from).  The
working folder, ``HOME`` and ``TMPDIR`` are ``/tmp``, an in-memory folder of
:data:`TEMP_BYTES` (``/var/tmp`` leads there; ``/dev/shm`` is one of :data:`SHM_BYTES`),
which disappears with the container.  The snippet runs with no capabilities and no way to
gain any (``no_new_privs``), under ``RLIMIT_AS`` (memory), ``RLIMIT_NPROC`` (processes and
threads), ``RLIMIT_FSIZE`` (largest file) and no core dumps; its output (stdout and stderr
together) is captured, and a run printing more than :data:`FLOOD_BYTES` is stopped.

Stopping the container, at its time limit or because the build died (``--die-with-parent``),
ends its process namespace, which kills every process the snippet started.

Run by an ordinary user, bwrap makes a user namespace for the container and the snippet
runs as that user.  Run as root, bwrap needs no user namespace; the snippet then runs as a
user id of its own (see :mod:`.sandbox_ids`), with every capability dropped.  Where bwrap
is missing or cannot start, :func:`unavailable` says why and nothing is run.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from . import sandbox_ids

SESSION = Path(__file__).parent / "session.py"

FLOOD_BYTES = 8 * 1024**2  # a run printing more than this is stopped
HEAD_BYTES = 16 * 1024  # of a long output, the start and the end are kept
TAIL_BYTES = 48 * 1024
FILE_BYTES = 256 * 1024**2  # the largest file a snippet may write
TEMP_BYTES = 512 * 1024**2  # the working folder, /tmp
SHM_BYTES = 64 * 1024**2  # /dev/shm, as in a default Docker container
TASKS = 512  # processes and threads a snippet may have at once

WORKDIR = "/tmp"
ENVIRONMENT = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": WORKDIR, "TMPDIR": WORKDIR, "USER": "sandbox",
               "LOGNAME": "sandbox", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}
#: Devices a snippet that needs an accelerator is given, with a read-only /sys.
ACCELERATORS = ("/dev/nvidia*", "/dev/nvidia-caps", "/dev/dri", "/dev/kfd", "/dev/accel*", "/dev/vfio", "/dev/neuron*")
ISOLATION = "own namespaces (no network, no other processes), host files hidden, no capabilities"


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
    isolation: str  # the protections it ran with, for the page
    sandbox_error: str = ""  # set when the sandbox itself failed: the snippet did not run

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


def _interpreter_folders() -> list[str]:
    """The folders the interpreter and its packages live in, as this process sees them."""
    folders = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))}
    return sorted(f for f in folders if f != "/usr" and not f.startswith("/usr/"))


def _mounts(accelerators: bool) -> list[str]:
    """bwrap options that build the container's file system."""
    shown = ["/usr", *_interpreter_folders()]
    files = [f for f in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime") if os.path.exists(f)]
    parents = sorted({str(p) for path in shown + files for p in Path(path).parents if str(p) != "/"})
    args: list[str] = []
    for folder in parents:  # bwrap would create them inaccessible to the snippet's user
        args += ["--perms", "0755", "--dir", folder]
    for path in shown + files:
        args += ["--ro-bind", path, path]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):  # /bin -> usr/bin where /usr is merged
        if os.path.islink(f"/{name}"):
            args += ["--symlink", os.readlink(f"/{name}"), f"/{name}"]
        elif os.path.isdir(f"/{name}"):
            args += ["--ro-bind", f"/{name}", f"/{name}"]
    args += ["--proc", "/proc", "--dev", "/dev",
             "--size", str(TEMP_BYTES), "--perms", "1777", "--tmpfs", WORKDIR,
             "--size", str(SHM_BYTES), "--perms", "1777", "--tmpfs", "/dev/shm",
             "--perms", "0755", "--dir", "/var", "--symlink", "../tmp", "/var/tmp"]
    if accelerators:
        args += ["--ro-bind", "/sys", "/sys"]
        for device in sorted({d for pattern in ACCELERATORS for d in glob.glob(pattern)}):
            args += ["--dev-bind", device, device]
    return args + ["--remount-ro", "/dev", "--remount-ro", "/"]


def _command(uid: int | None, limits: Limits, files: dict[str, int], argv: list[str], accelerators: bool,
             status_fd: int) -> list[str]:
    """The whole command line: bwrap, then (as root) the drop to ``uid``, the limits, Python."""
    args = [shutil.which("bwrap") or "bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--hostname", "sandbox", "--die-with-parent", "--new-session", "--json-status-fd", str(status_fd),
            "--clearenv"]
    for name, value in ENVIRONMENT.items():
        args += ["--setenv", name, value]
    if uid is None:  # an ordinary user: a user namespace, and none inside it
        args += ["--unshare-user", "--disable-userns"]
    else:  # root: keep only what setpriv needs to drop to the sandbox's user
        args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
    args += _mounts(accelerators)
    for name, fd in files.items():
        args += ["--perms", "0644", "--file", str(fd), f"{WORKDIR}/{name}"]
    args += ["--chdir", WORKDIR, "--"]
    if uid is not None:
        args += ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all",
                 "--bounding-set=-all", "--no-new-privs", "--"]
    args += ["prlimit", f"--as={limits.memory}", f"--nproc={TASKS}", f"--fsize={FILE_BYTES}", "--core=0", "--",
             sys.executable, "-I", "-u", *argv]
    return args


def _tools_missing() -> str | None:
    inside = ["prlimit"] + (["setpriv"] if os.geteuid() == 0 else [])  # run in the sandbox, from its PATH
    missing = [tool for tool in ["bwrap"] if shutil.which(tool) is None]
    missing += [tool for tool in inside if shutil.which(tool, path=ENVIRONMENT["PATH"]) is None]
    if not missing:
        return None
    return (f"the sandbox needs {', '.join(missing)}, not installed here "
            "(on Debian and Ubuntu: apt-get install bubblewrap util-linux)")


@functools.cache
def unavailable() -> str | None:
    """Why no snippet can run on this machine, or None: the tools are there and a sandbox starts."""
    missing = _tools_missing()
    if missing:
        return missing
    probe = run({}, ["-c", "print('sandbox ok')"], Limits(timeout=60, memory=1024**3))
    if probe.sandbox_error:
        return probe.sandbox_error
    if probe.returncode != 0 or probe.output != "sandbox ok\n":
        return f"the sandbox cannot start Python here: {probe.output.strip()[-300:] or f'exit status {probe.returncode}'}"
    return None


def _memfd(name: str, text: str) -> int:
    fd = os.memfd_create(name, 0)
    os.write(fd, text.encode("utf-8"))
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _exit_code(status: bytes) -> int | None:
    """The exit status bwrap reports, or None when the command never started."""
    for line in status.decode("utf-8", "replace").splitlines():
        try:
            report = json.loads(line)
        except ValueError:
            continue
        if isinstance(report, dict) and "exit-code" in report:
            return int(report["exit-code"])
    return None


def _signal_or_status(code: int) -> int:
    """bwrap reports death by signal N as 128 + N, as a shell does; give it back as -N."""
    if code > 128 and code - 128 in signal.valid_signals():
        return -(code - 128)
    return code


def run(files: dict[str, str], argv: list[str], limits: Limits, *, accelerators: bool = False) -> Outcome:
    """Write ``files`` into a fresh sandbox and run ``python -I -u *argv`` in it."""
    start = time.monotonic()
    try:
        with sandbox_ids.lease() if os.geteuid() == 0 else contextlib.nullcontext() as uid:
            return _run(uid, files, argv, limits, accelerators, start)
    except sandbox_ids.NoFreeId as exc:
        return Outcome(-signal.SIGKILL, "", False, False, 0, time.monotonic() - start, ISOLATION, sandbox_error=str(exc))


def _run(uid: int | None, files: dict[str, str], argv: list[str], limits: Limits, accelerators: bool,
         start: float) -> Outcome:
    fds = {name: _memfd(name, text) for name, text in files.items()}
    status_read, status_write = os.pipe()
    try:
        cmd = _command(uid, limits, fds, argv, accelerators, status_write)
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                env=ENVIRONMENT, cwd="/", pass_fds=[*fds.values(), status_write], process_group=0)
    finally:
        for fd in [*fds.values(), status_write]:
            os.close(fd)
    with os.fdopen(status_read, "rb") as status:
        flood = threading.Event()
        capture = _Capture(proc.stdout, flood.set)
        timed_out = False
        while proc.poll() is None:
            if flood.wait(0.05):
                break
            if time.monotonic() - start > limits.timeout:
                timed_out = True
                break
        proc.kill()  # the container's processes die with it
        proc.wait()
        capture.thread.join(timeout=10)  # end of output: every process of the container has exited
        code = _exit_code(status.read())
    duration = time.monotonic() - start
    ran = code is not None
    output = capture.text()
    error = "" if ran or timed_out or capture.flooded else f"the sandbox could not start: {output.strip()[-300:] or 'no message'}"
    return Outcome(_signal_or_status(code) if ran else -signal.SIGKILL, output, timed_out, capture.flooded,
                   capture.total, duration, ISOLATION + (", a user id of its own" if uid is not None else ""), error)
