"""Run a snippet in a sandbox made with bubblewrap: nothing of the host but what its programs need.

Each run is a ``bwrap`` container with its own namespaces (user, processes, network, IPC, host
name), in which the only host files are, read-only, ``/usr``, the loader's cache and the
interpreter's folders (the virtual environment and the Python it was made from, and the user's
site-packages where the build's Python reads them), wherever they live: under ``/tmp`` too, as
they are shown after the container's own ``/tmp`` is made.  The working folder, ``HOME`` and
``TMPDIR`` are ``/tmp``, an in-memory folder of :data:`TEMP_BYTES` (``/var/tmp`` leads there;
``/dev/shm`` is one of :data:`SHM_BYTES`), which disappears with the container.  ``PATH`` is the
interpreter's folder, then the system's.  The snippet runs with no capabilities and no way to
gain any (``no_new_privs``, no user namespace of its own), under ``RLIMIT_AS`` (memory),
``RLIMIT_NPROC`` (processes and threads), ``RLIMIT_FSIZE`` (largest file) and no core dumps;
its output (stdout and stderr together) is captured, and a run printing more than
:data:`FLOOD_BYTES` is stopped.

Stopping the container ends its process namespace, which kills every process the snippet
started.  It is stopped at the time limit, and when the build dies: bwrap's parent-death
signal, and, for a build that dies before bwrap has armed it, :mod:`.launch`, which starts
the snippet inside and watches a pipe that only the build holds open.

Run by an ordinary user, the snippet runs as that user.  Run as root, the build first drops
to a user id of its own (see :mod:`.sandbox_ids`) and runs the same container as that user,
from a mount namespace where the interpreter's folders are reachable even when they live in
a folder only root may enter.  Where a tool is missing or the container cannot start,
:func:`unavailable` says why and nothing is run.
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
import site
import stat
import subprocess
import sys
import sysconfig
import threading
import time
from collections.abc import Callable
from io import BufferedReader
from pathlib import Path
from shlex import quote
from typing import cast

from ..core.languages import FILE, PYTHON as PYTHON_PLACEHOLDER
from . import sandbox_ids

LAUNCHER = Path(__file__).parent / "launch.py"
SESSION = Path(__file__).parent / "session.py"

FLOOD_BYTES = 8 * 1024**2  # a run printing more than this is stopped
HEAD_BYTES = 16 * 1024  # of a long output, the start and the end are kept
TAIL_BYTES = 48 * 1024
FILE_BYTES = 256 * 1024**2  # the largest file a snippet may write
TEMP_BYTES = 512 * 1024**2  # the working folder, /tmp
SHM_BYTES = 64 * 1024**2  # /dev/shm, as in a default Docker container
TASKS = 512  # processes and threads a snippet may have at once

WORKDIR = "/tmp"
#: The build's Python as a snippet runs it: environment variables ignored, no folder of its
#: own added to ``sys.path``, output unbuffered; the user's site-packages are read where the
#: build reads them (see :func:`_user_site`).
PYTHON = (sys.executable, "-E", "-P", "-u")
#: Where programs are looked for: the interpreter's folder first (its ``python``, ``pip``), then the system's.
PATH = os.pathsep.join(dict.fromkeys([os.path.dirname(sys.executable), "/usr/local/bin", "/usr/bin", "/bin"]))
ENVIRONMENT = {"PATH": PATH, "HOME": WORKDIR, "TMPDIR": WORKDIR, "USER": "sandbox",
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

    def __init__(self, stream: BufferedReader, on_flood: Callable[[], None]) -> None:
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
    """Where the interpreter and its packages live, as this process sees them: shown read-only."""
    interpreter = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))}
    return sorted(f for f in interpreter if f != "/usr" and not f.startswith("/usr/"))


def _shown_folders() -> list[str]:
    """The host's folders the container shows, read-only, at their own paths: /usr and the interpreter's."""
    return ["/usr", *_interpreter_folders()]


def _user_site() -> tuple[str, str] | None:
    """The user's site-packages, where the build's Python reads them, and the place in the container
    where the snippet's Python (``HOME`` being ``/tmp``) reads its own; None when not in use."""
    folder = site.getusersitepackages() if site.ENABLE_USER_SITE else None
    if not folder or folder not in sys.path or not os.path.isdir(folder):
        return None
    inside = sysconfig.get_path("purelib", f"{os.name}_user", vars={"userbase": os.path.join(WORKDIR, ".local")})
    return folder, inside


def package_folders() -> list[str]:
    """The folders of ``sys.path`` that a snippet's Python reads too: those in the interpreter's folders,
    and the user's site-packages; not the source tree or others named by ``PYTHONPATH``."""
    shown = [Path(f) for f in _interpreter_folders()] + [Path("/usr")]
    user = _user_site()
    return [p for p in sys.path if p and (any(Path(p).is_relative_to(f) for f in shown) or (user and p == user[0]))]


def _shown_files() -> list[str]:
    """The host's files the container shows, read-only: the loader's, the time zone, and the links
    through which Debian's alternatives name programs (``/usr/bin/awk`` -> ``/etc/alternatives/awk``)."""
    return [f for f in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime", "/etc/alternatives") if os.path.exists(f)]


def _mounts(accelerators: bool) -> list[str]:
    """bwrap options that build the container's file system.

    Its own ``/tmp`` and ``/dev/shm`` come first and the host's folders after, so that an
    interpreter living in a temporary folder (a clone or a CI cache under ``/tmp``) is shown
    inside the container's ``/tmp`` instead of hidden by it."""
    user = _user_site()
    binds = [(path, path) for path in _shown_folders() + _shown_files()] + ([user] if user else [])
    args = ["--proc", "/proc", "--dev", "/dev",
            "--size", str(TEMP_BYTES), "--perms", "1777", "--tmpfs", WORKDIR,
            "--size", str(SHM_BYTES), "--perms", "1777", "--tmpfs", "/dev/shm",
            "--perms", "0755", "--dir", "/var", "--symlink", "../tmp", "/var/tmp"]
    parents = sorted({str(p) for _, inside in binds for p in Path(inside).parents if str(p) != "/"})
    for folder in parents:  # bwrap would create them inaccessible to the snippet's user
        args += ["--perms", "0755", "--dir", folder]
    for path, inside in binds:
        args += ["--ro-bind", path, inside]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):  # /bin -> usr/bin where /usr is merged
        if os.path.islink(f"/{name}"):
            args += ["--symlink", os.readlink(f"/{name}"), f"/{name}"]
        elif os.path.isdir(f"/{name}"):
            args += ["--ro-bind", f"/{name}", f"/{name}"]
    if accelerators:
        args += ["--ro-bind", "/sys", "/sys"]
        for device in sorted({d for pattern in ACCELERATORS for d in glob.glob(pattern)}):
            args += ["--dev-bind", device, device]
    return args + ["--remount-ro", "/dev", "--remount-ro", "/"]


def _reached() -> list[Path]:
    """The host's folders the container binds, which the snippet's user must be able to reach."""
    user = _user_site()
    return [Path(f) for f in _shown_folders()] + ([Path(user[0])] if user else [])


def _closed_to_others(folder: Path) -> bool:
    return not folder.stat().st_mode & stat.S_IXOTH


def openings(folders: list[Path]) -> list[str]:
    """Shell commands, for a private mount namespace of root's, that let other users reach ``folders``.

    The highest folder above them that others may not enter (pyenv's under /root) is covered
    with an empty in-memory folder they may, into which ``folders`` are mounted back, by way
    of :data:`~.sandbox_ids.LEASES`, covered first.
    """
    covered: dict[Path, list[Path]] = {}
    for path in folders:
        closed = next((p for p in reversed(path.parents) if p != Path("/") and _closed_to_others(p)), None)
        if closed is not None:
            covered.setdefault(closed, []).append(path)
    if not covered:
        return []
    stage = sandbox_ids.LEASES
    commands = [f"mkdir -p -m 0700 {quote(str(stage))}", f"mount -t tmpfs -o mode=0700 tmpfs {quote(str(stage))}"]
    for n, (closed, inside) in enumerate(covered.items()):
        staged = [stage / f"{n}-{i}" for i in range(len(inside))]
        commands += [f"mkdir {quote(str(s))} && mount --bind {quote(str(p))} {quote(str(s))}" for p, s in zip(inside, staged)]
        commands.append(f"mount -t tmpfs -o mode=0755 tmpfs {quote(str(closed))}")
        commands += [f"mkdir -p {quote(str(p))} && mount --bind {quote(str(s))} {quote(str(p))}" for p, s in zip(inside, staged)]
    return commands


def command(template: tuple[str, ...], file: str) -> list[str]:
    """A language's command line for the snippet's ``file``: ``{file}`` is its name, and ``{python}``
    the build's Python as a snippet runs it (:data:`PYTHON`)."""
    argv: list[str] = []
    for part in template:
        if part == PYTHON_PLACEHOLDER:
            argv += PYTHON
        else:
            argv.append(part.replace(FILE, file).replace(PYTHON_PLACEHOLDER, " ".join(map(quote, PYTHON))))
    return argv


def _command(uid: int | None, limits: Limits, files: dict[str, int], argv: list[str], accelerators: bool,
             lifeline: int, report: int) -> list[str]:
    """The whole command line: (as root) the drop to ``uid``, bwrap, the launcher, the snippet's ``argv``."""
    bwrap = [shutil.which("bwrap") or "bwrap", "--unshare-user", "--disable-userns", "--unshare-pid",
             "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--hostname", "sandbox",
             "--die-with-parent", "--new-session", "--clearenv"]
    for name, value in ENVIRONMENT.items():
        bwrap += ["--setenv", name, value]
    bwrap += _mounts(accelerators)
    for name, fd in files.items():
        bwrap += ["--perms", "0644", "--file", str(fd), f"{WORKDIR}/{name}"]
    rlimits = {"RLIMIT_AS": limits.memory, "RLIMIT_NPROC": TASKS, "RLIMIT_FSIZE": FILE_BYTES, "RLIMIT_CORE": 0}
    bwrap += ["--chdir", WORKDIR, "--", sys.executable, "-I", "-S", "-c", LAUNCHER.read_text(encoding="utf-8"),
              str(lifeline), str(report), json.dumps(rlimits), *argv]
    if uid is None:  # an ordinary user: bwrap makes a user namespace
        return bwrap
    switch = [shutil.which("setpriv") or "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
              "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]
    opened = openings(_reached())
    if not opened:
        return switch + bwrap
    script = " && ".join(opened) + ' && exec "$@"'
    return [shutil.which("unshare") or "unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c", script,
            "sh", *switch, *bwrap]


def _tools_missing() -> str | None:
    needed = ["bwrap"]
    if os.geteuid() == 0:
        needed += ["setpriv"] + (["unshare", "mount"] if openings(_reached()) else [])
    missing = [tool for tool in needed if shutil.which(tool) is None]
    if not missing:
        return None
    return (f"the sandbox needs {', '.join(missing)}, missing on this machine "
            "(on Debian and Ubuntu: apt-get install bubblewrap util-linux)")


def unavailable() -> str | None:
    """Why no snippet can run on this machine, or None: the tools are there and a sandbox starts."""
    try:
        return _verdict()
    except sandbox_ids.NoFreeId as exc:  # every id taken at this moment: probe again next time
        return str(exc)


@functools.cache
def _verdict() -> str | None:
    missing = _tools_missing()
    if missing:
        return missing
    with _lease() as uid:
        probe = _run(uid, {}, [*PYTHON, "-c", "print('sandbox ok')"], Limits(timeout=60, memory=1024**3), False)
    if probe.sandbox_error:
        return probe.sandbox_error
    if probe.returncode != 0 or probe.output != "sandbox ok\n":
        return f"the sandbox cannot start Python here: {probe.output.strip()[-300:] or f'exit status {probe.returncode}'}"
    return None


def _lease() -> contextlib.AbstractContextManager[int | None]:
    """A sandbox user id for a root build (see :mod:`.sandbox_ids`); none for an ordinary user."""
    return sandbox_ids.lease() if os.geteuid() == 0 else contextlib.nullcontext()


def _memfd(name: str, text: str) -> int:
    fd = os.memfd_create(name, 0)
    os.write(fd, text.encode("utf-8"))
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _reported_status(report: bytes) -> int | None:
    """The snippet's exit status (negative: killed by that signal), or None when it never started."""
    lines = report.decode("ascii", "replace").splitlines()
    if "started" not in lines:
        return None
    status = next((line.split()[1] for line in lines if line.startswith("status ")), None)
    # No status after a start: the launcher was killed with the rest of the container.
    return os.waitstatus_to_exitcode(int(status)) if status else -signal.SIGKILL


def run(files: dict[str, str], argv: list[str], limits: Limits, *, accelerators: bool = False) -> Outcome:
    """Write ``files`` into a fresh sandbox's working folder and run ``argv`` there (a program's
    name is looked for on :data:`PATH`)."""
    try:
        with _lease() as uid:
            return _run(uid, files, argv, limits, accelerators)
    except sandbox_ids.NoFreeId as exc:
        return Outcome(-signal.SIGKILL, "", False, False, 0.0, ISOLATION, sandbox_error=str(exc))


def _run(uid: int | None, files: dict[str, str], argv: list[str], limits: Limits, accelerators: bool) -> Outcome:
    start = time.monotonic()
    fds = {name: _memfd(name, text) for name, text in files.items()}
    lifeline, alive = os.pipe()  # the build holds ``alive`` until the run ends
    report_read, report = os.pipe()
    try:
        cmd = _command(uid, limits, fds, argv, accelerators, lifeline, report)
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                env=ENVIRONMENT, cwd="/", pass_fds=[*fds.values(), lifeline, report], process_group=0)
    except OSError:
        os.close(alive)
        os.close(report_read)
        raise
    finally:
        for fd in [*fds.values(), lifeline, report]:
            os.close(fd)
    with os.fdopen(alive, "wb"), os.fdopen(report_read, "rb") as reported:
        capture = _Capture(cast(BufferedReader, proc.stdout), proc.kill)
        try:
            proc.wait(timeout=max(0.0, limits.timeout - (time.monotonic() - start)))
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out = True
        proc.kill()  # the container's processes die with it
        proc.wait()
        capture.thread.join(timeout=10)  # end of output: every process of the container has exited
        code = _reported_status(reported.read())
    duration = time.monotonic() - start
    output = capture.text()
    error = "" if code is not None or timed_out or capture.flooded else \
        f"the sandbox could not start: {output.strip()[-300:] or 'no message'}"
    return Outcome(-signal.SIGKILL if code is None else code, output, timed_out, capture.flooded,
                   duration, ISOLATION + (", a user id of its own" if uid is not None else ""), error)
