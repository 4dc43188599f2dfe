"""``errorkb run`` around real failing programs: the record shown, the exit status, the output
passed through byte for byte and in order, signals, and output too large or binary to keep."""

from __future__ import annotations

import fcntl
import hashlib
import os
import select
import shutil
import signal
import subprocess
import sys
import termios
import textwrap
import time
from pathlib import Path

import pytest

from conftest import ROOT

WRAPPER = [sys.executable, "-m", "errorkb.tools.cli", "--root", str(ROOT), "run", "--"]

# Leaves about 64 MiB of address space above what the interpreter (and NumPy) already use.
LIMIT_MEMORY = """\
import resource
def limit_memory(extra=64 << 20):
    with open("/proc/self/status") as status:
        size = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize"))
    resource.setrlimit(resource.RLIMIT_AS, (size + extra, size + extra))
"""


def program(tmp_path: Path, name: str, code: str) -> Path:
    path = tmp_path / name
    path.write_text(LIMIT_MEMORY + textwrap.dedent(code), encoding="utf-8")
    return path


def run(argv: list[str], merged: bool = False) -> subprocess.CompletedProcess[bytes]:
    """Run ``argv``; ``merged``: its standard error goes to the same pipe as its output."""
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT if merged else subprocess.PIPE,
                          timeout=120, cwd=ROOT)


def test_a_numpy_memoryerror_names_the_record_with_its_values_and_keeps_output_and_status(tmp_path: Path):
    script = program(tmp_path, "train.py", """\
        import sys
        import numpy as np
        print("loading the data")
        print("epoch 1 of 2", file=sys.stderr)
        limit_memory()
        activations = np.ones((1 << 30,))
    """)
    direct = run([sys.executable, str(script)])
    wrapped = run([*WRAPPER, sys.executable, str(script)])
    assert direct.returncode == wrapped.returncode == 1
    assert wrapped.stdout == direct.stdout == b"loading the data\n"
    assert wrapped.stderr.startswith(direct.stderr)
    block = wrapped.stderr[len(direct.stderr):].decode()
    assert direct.stderr.decode().rstrip().endswith("data type float64")
    assert block.startswith("errorkb: ")
    assert "exited with status 1\n" in block
    assert "errorkb: python-memoryerror: " in block
    assert "Requested: 8.00 GiB (8,589,934,592 bytes)" in block
    assert "  fix 1: " in block


def test_one_channel_for_both_streams_keeps_the_order_of_their_lines(tmp_path: Path):
    script = program(tmp_path, "steps.py", """\
        import sys
        for step in range(3):
            print(f"step {step}", flush=True)
            print(f"warning {step}", file=sys.stderr, flush=True)
        print("buffered")
        limit_memory()
        hold = []
        while True:
            hold.append(bytearray(1 << 20))
    """)
    direct = run([sys.executable, str(script)], merged=True)
    wrapped = run([*WRAPPER, sys.executable, str(script)], merged=True)
    assert direct.returncode == wrapped.returncode == 1
    assert direct.stdout.startswith(b"step 0\nwarning 0\nstep 1\nwarning 1\nstep 2\nwarning 2\nbuffered\nTraceback")
    assert wrapped.stdout.startswith(direct.stdout)
    assert b"errorkb: python-memoryerror: " in wrapped.stdout[len(direct.stdout):]


def test_a_process_killed_by_sigkill_is_the_oom_killer_record_with_status_137(tmp_path: Path):
    script = program(tmp_path, "killed.py", """\
        import os, signal, sys
        sys.stdout.write("\\x1b[32mtraining\\x1b[0m\\n")
        sys.stdout.flush()
        for done in range(0, 101, 50):
            sys.stderr.write(f"\\r{done:3d}%|{'#' * (done // 10):10}|")
            sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    done = run([*WRAPPER, sys.executable, str(script)])
    assert done.returncode == 137
    assert done.stdout == b"\x1b[32mtraining\x1b[0m\n"
    progress = b"\r  0%|          |\r 50%|#####     |\r100%|##########|"
    assert done.stderr.startswith(progress + b"\nerrorkb: ")  # the block starts on a line of its own
    block = done.stderr[len(progress):].decode()
    assert "was killed by SIGKILL (Killed); exit status 137" in block
    assert "errorkb: host-oom-killed: " in block


def _memory_cgroup(name: str) -> Path:
    """A memory cgroup limited to 64 MiB without swap, or a skip where this machine allows none."""
    for parent, limit, swap in [(Path("/sys/fs/cgroup/memory"), "memory.limit_in_bytes", "memory.memsw.limit_in_bytes"),
                                (Path("/sys/fs/cgroup"), "memory.max", "memory.swap.max")]:
        group = parent / name
        try:
            group.mkdir()
        except OSError:
            continue
        try:
            (group / limit).write_text(str(64 << 20))
            if (group / swap).exists():
                (group / swap).write_text(str(64 << 20) if swap.startswith("memory.memsw") else "0")
            return group
        except OSError:
            group.rmdir()
    pytest.skip("no memory cgroup can be created here (needs root and a writable cgroup file system)")


def test_a_process_the_kernel_kills_under_a_cgroup_memory_limit(tmp_path: Path):
    group = _memory_cgroup(f"errorkb-test-{os.getpid()}")
    script = program(tmp_path, "hog.py", """\
        import sys
        print("loading", flush=True)
        blocks = []
        while True:
            blocks.append(bytearray(16 << 20))  # zero-filled: every page is touched
            print(f"{len(blocks) * 16} MiB", end="\\r", file=sys.stderr, flush=True)
    """)
    try:
        done = run([*WRAPPER, "sh", "-c", f'echo $$ > {group}/cgroup.procs && exec "$0" "$1"', sys.executable, str(script)])
    finally:
        for _ in range(50):  # the killed process leaves the group a moment after its parent sees it die
            try:
                group.rmdir()
                break
            except OSError:
                time.sleep(0.1)
    assert done.returncode == 137, done.stderr
    assert done.stdout == b"loading\n"
    assert b"16 MiB\r32 MiB\r" in done.stderr
    assert b"errorkb: host-oom-killed: " in done.stderr


def test_a_dataloader_that_fills_shared_memory_is_the_shm_record(tmp_path: Path):
    """/dev/shm is a 1 MiB tmpfs in a private mount namespace; a worker's batch does not fit."""
    pytest.importorskip("torch")
    unshare = shutil.which("unshare")
    probe = [unshare or "unshare", "--user", "--map-root-user", "--mount", "sh", "-c", "mount -t tmpfs -o size=1m tmpfs /dev/shm"]
    if unshare is None or subprocess.run(probe, capture_output=True, timeout=30).returncode != 0:
        pytest.skip("cannot mount a small /dev/shm in a private mount namespace here (unshare)")
    script = program(tmp_path, "loader.py", """\
        import torch
        from torch.utils.data import DataLoader, Dataset

        class Images(Dataset):
            def __len__(self):
                return 8

            def __getitem__(self, i):
                return torch.ones(1024, 1024)  # 4 MiB a sample

        print("epoch 1", flush=True)
        for batch in DataLoader(Images(), batch_size=2, num_workers=1):
            print("batch", tuple(batch.shape), flush=True)
    """)
    inner = " ".join(f"'{part}'" for part in [*WRAPPER, sys.executable, str(script)])
    done = run([*probe[:-1], f"mount -t tmpfs -o size=1m tmpfs /dev/shm && exec {inner}"])
    assert done.returncode == 1, done.stderr
    assert done.stdout == b"epoch 1\n"
    assert b"DataLoader worker" in done.stderr
    assert b"errorkb: torch-dataloader-shm: " in done.stderr


def test_a_command_that_succeeds_gets_nothing_added(tmp_path: Path):
    done = run([*WRAPPER, sys.executable, "-c", "import sys; print('fine'); print('note', file=sys.stderr)"])
    assert (done.returncode, done.stdout, done.stderr) == (0, b"fine\n", b"note\n")


def test_output_a_background_process_keeps_open_does_not_hold_the_wrapper():
    done = subprocess.run([*WRAPPER, "sh", "-c", "sleep 20 & echo started; exit 2"], capture_output=True, timeout=15,
                          cwd=ROOT)
    assert (done.returncode, done.stdout) == (2, b"started\n")


def test_a_failure_with_no_known_error_says_so_in_one_line():
    done = run([*WRAPPER, sys.executable, "-c", "raise SystemExit(3)"])
    assert done.returncode == 3
    assert done.stderr.decode().splitlines()[-1].endswith("exited with status 3; no known error in its output")


@pytest.mark.parametrize(("command", "status", "message"), [
    (["no-such-command-anywhere"], 127, "errorkb run: no-such-command-anywhere: command not found"),
    ([str(ROOT / "README.md")], 126, "permission denied"),
    ([], 2, "give the command to run"),
])
def test_a_command_that_cannot_run(command: list[str], status: int, message: str):
    done = run([*WRAPPER, *command])
    assert done.returncode == status
    assert message in done.stderr.decode()
    assert "Traceback" not in done.stderr.decode()


# Runs a command and prints the peak memory of it and its descendants (KiB) as its last line of
# standard error: a launcher of its own, so that the memory of the test process is not counted.
PEAK_MEMORY = """\
import resource, subprocess, sys
status = subprocess.run(sys.argv[1:]).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)
sys.exit(status)
"""


def test_gigabytes_of_binary_output_pass_through_in_bounded_memory(tmp_path: Path):
    mib = 256
    script = program(tmp_path, "dump.py", f"""\
        import os
        block = bytes(range(256)) * 4096
        for _ in range({mib}):
            os.write(1, block)
        raise MemoryError
    """)
    proc = subprocess.Popen([sys.executable, "-c", PEAK_MEMORY, *WRAPPER, sys.executable, str(script)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    assert proc.stdout is not None and proc.stderr is not None
    digest, size = hashlib.sha256(), 0
    while chunk := proc.stdout.read(1 << 20):
        digest.update(chunk)
        size += len(chunk)
    stderr = proc.stderr.read()
    assert proc.wait(timeout=120) == 1
    assert (size, digest.hexdigest()) == (mib << 20, hashlib.sha256(bytes(range(256)) * 4096 * mib).hexdigest())
    assert b"errorkb: python-memoryerror: " in stderr
    peak_kib = int(stderr.split()[-1])
    assert peak_kib < 128 * 1024, f"peak memory {peak_kib} KiB for {mib} MiB of output"


def _in_terminal(argv: list[str]) -> tuple[subprocess.Popen[bytes], int]:
    """Start ``argv`` in a new session whose controlling terminal is a fresh pty; return the
    process and the pty's master end."""
    master, slave = os.openpty()

    def take_terminal() -> None:
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
                            preexec_fn=take_terminal, cwd=ROOT)
    os.close(slave)
    return proc, master


def _read_until(master: int, proc: subprocess.Popen[bytes], stop: bytes | None = None, timeout: float = 60) -> bytes:
    """What the terminal shows until ``stop`` appears, or until the process ends and it is drained."""
    seen = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if stop is not None and stop in seen:
            return seen
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO: no process holds the terminal any more
                return seen
            seen += data
        elif proc.poll() is not None:
            return seen
    raise AssertionError(f"timed out; the terminal showed {seen!r}")


def test_in_a_terminal_the_command_gets_one_and_keeps_order_colours_and_status():
    code = textwrap.dedent("""\
        import sys
        for i in range(3):
            print("out", i, sys.stdout.isatty(), sys.stderr.isatty())
            print("err", i, file=sys.stderr)
        print("\\x1b[31m50%\\x1b[0m", end="\\r", flush=True)
        raise MemoryError
    """)
    proc, master = _in_terminal([*WRAPPER, sys.executable, "-c", code])
    try:
        shown = _read_until(master, proc).replace(b"\r\n", b"\n")
    finally:
        os.close(master)
    assert proc.wait(timeout=60) == 1
    lines = shown.decode().split("\n")
    assert lines[:6] == ["out 0 True True", "err 0", "out 1 True True", "err 1", "out 2 True True", "err 2"]
    assert lines[6] == "\x1b[31m50%\x1b[0m\rTraceback (most recent call last):"
    assert "errorkb: python-memoryerror: " in shown.decode()


CTRL_C_PROGRAM = "import time\nprint('ready', flush=True)\ntime.sleep(60)\n"


def test_ctrl_c_at_the_terminal_stops_the_command_and_the_wrapper_as_it_does():
    proc, master = _in_terminal([*WRAPPER, sys.executable, "-c", CTRL_C_PROGRAM])
    try:
        _read_until(master, proc, b"ready")
        os.write(master, b"\x03")
        shown = _read_until(master, proc)
    finally:
        os.close(master)
    assert proc.wait(timeout=60) == -signal.SIGINT
    assert b"KeyboardInterrupt" in shown
    assert b"errorkb:" not in shown


def test_an_interrupt_sent_to_the_wrapper_alone_is_passed_to_the_command():
    proc = subprocess.Popen([*WRAPPER, sys.executable, "-c", CTRL_C_PROGRAM], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True, cwd=ROOT)
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline() == b"ready\n"
    proc.send_signal(signal.SIGINT)
    stderr = proc.stderr.read()
    assert proc.wait(timeout=60) == -signal.SIGINT
    assert b"KeyboardInterrupt" in stderr
    assert b"errorkb:" not in stderr
