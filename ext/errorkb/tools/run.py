"""``errorkb run -- CMD ARGS...``: run a command, pass its output through, explain its failure.

Each output stream of the command goes where the wrapper's own goes, unchanged and as it comes:

- When the wrapper's stream is a terminal, the command writes to a pseudo-terminal of its own
  with the terminal's settings and size, so it keeps its colours, progress bars and line
  buffering; output processing is off, so its bytes arrive as written.  Elsewhere it writes to
  a pipe, and behaves as it does when redirected.
- When standard output and error are one file (one terminal, or ``2>&1``), both streams share
  one channel, so their lines keep their exact order; otherwise each keeps its own order.

Standard input is the wrapper's own.  The last :data:`~errorkb.lookup.MAX_PASTE` bytes of
output are kept (memory stays bounded whatever the command prints); when the command fails
they are searched, with the shell's word for a fatal signal ("Killed") added, and the matching
record is shown on standard error.  The wrapper exits with the command's status, ``128 + N``
for a signal N, as shells report it.

Signals: SIGTERM and SIGHUP sent to the wrapper are passed to the command; so are SIGINT and
SIGQUIT, except when the terminal sends them to the whole foreground process group (Ctrl-C),
which holds the command already.  A command stopped that way ends the wrapper by the same
signal, with no block: it was asked to stop.
"""

from __future__ import annotations

import errno
import fcntl
import os
import select
import shlex
import signal
import subprocess
import sys
import termios
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..core.lookup import MAX_PASTE, looks_binary

if TYPE_CHECKING:
    from signal import _HANDLER as Handler

CHUNK = 1 << 16
#: Seconds between checks that the command is still alive while its output is quiet.
POLL = 0.25
#: After the command exits, output still open (held by a process it started) is read until
#: it stays quiet this long.
LINGER = 0.5
FORWARDED = (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP)
FROM_TERMINAL = (signal.SIGINT, signal.SIGQUIT)

#: ``explain(output, headline)`` gives the block to print under a failure, or None.
Explainer = Callable[[str, str], "str | None"]


@dataclass
class Channel:
    """Where one or both of the command's streams are read, and the wrapper's fd they go to."""

    read_fd: int
    child_fd: int
    out_fd: int
    pty: bool


@dataclass
class Tail:
    """The last ``limit`` bytes written, whatever the total."""

    limit: int = MAX_PASTE
    kept: bytearray = field(default_factory=bytearray)
    cut: bool = False

    def add(self, chunk: bytes) -> None:
        self.kept += chunk[-self.limit:]
        if len(self.kept) > self.limit:
            del self.kept[:len(self.kept) - self.limit]
            self.cut = True

    def text(self) -> str:
        """The kept output as text: a line cut at the start, and lines of binary data, left out."""
        text = self.kept.decode("utf-8", "replace")
        lines = text.split("\n")[1 if self.cut else 0:]
        return "\n".join(line for line in lines if not looks_binary(line))


def _same_file(a: int, b: int) -> bool:
    try:
        sa, sb = os.fstat(a), os.fstat(b)
    except OSError:
        return False
    return (sa.st_dev, sa.st_ino, sa.st_rdev) == (sb.st_dev, sb.st_ino, sb.st_rdev)


def _pty_like(terminal: int) -> tuple[int, int]:
    """A pseudo-terminal with ``terminal``'s settings and size, output processing off."""
    master, slave = os.openpty()
    attrs = termios.tcgetattr(terminal)
    attrs[1] &= ~termios.OPOST
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    _copy_size(terminal, slave)
    return master, slave


def _copy_size(terminal: int, pty: int) -> None:
    """Give ``pty`` the window size of ``terminal``; either end of a pty takes it."""
    try:
        fcntl.ioctl(pty, termios.TIOCSWINSZ, fcntl.ioctl(terminal, termios.TIOCGWINSZ, b"\0" * 8))
    except OSError:
        pass


def open_channels() -> list[Channel]:
    """One channel per destination: a pty for a terminal, else a pipe."""
    targets = [1] if _same_file(1, 2) else [1, 2]
    channels = []
    for out in targets:
        pty = os.isatty(out)
        read, child = _pty_like(out) if pty else os.pipe()
        channels.append(Channel(read, child, out, pty))
    return channels


def _terminal_signals_group() -> bool:
    """True when Ctrl-C at a terminal reaches this process group (and so the command too)."""
    try:
        fd = os.open("/dev/tty", os.O_RDONLY | os.O_NOCTTY)
    except OSError:
        return False
    try:
        return os.tcgetpgrp(fd) == os.getpgrp()
    except OSError:
        return False
    finally:
        os.close(fd)


class Wrapper:
    """Runs one command; :meth:`run` returns its exit status as a shell reports it."""

    def __init__(self, argv: list[str], explain: Explainer):
        self.argv = argv
        self.explain = explain
        self.tail = Tail()
        self.received: list[int] = []
        self.proc: subprocess.Popen[bytes] | None = None
        self.last_byte = b"\n"
        self.terminal_signals = _terminal_signals_group()

    # -- signals ------------------------------------------------------------------------------

    def _on_signal(self, signum: int, frame: object) -> None:
        self.received.append(signum)
        self._pass_on(signum)

    def _pass_on(self, signum: int) -> None:
        if signum in FROM_TERMINAL and self.terminal_signals:
            return
        if self.proc is not None and self.proc.returncode is None:
            try:
                os.kill(self.proc.pid, signum)
            except ProcessLookupError:
                pass

    def _install_handlers(self, channels: list[Channel]) -> dict[int, Handler]:
        previous: dict[int, Handler] = {}
        for sig in FORWARDED:
            if signal.getsignal(sig) != signal.SIG_IGN:  # ignored stays ignored, for the command too
                previous[sig] = signal.signal(sig, self._on_signal)
        ptys = [c for c in channels if c.pty]
        if ptys:  # the terminal was resized: so is the command's
            def resize(*_: object) -> None:
                for c in ptys:
                    _copy_size(c.out_fd, c.read_fd)

            previous[signal.SIGWINCH] = signal.signal(signal.SIGWINCH, resize)
        return previous

    # -- output -------------------------------------------------------------------------------

    def _write(self, fd: int, data: bytes) -> bool:
        """Write all of ``data``; False when the destination is gone (closed pipe)."""
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(fd, view):]
            except BlockingIOError:
                select.select([], [fd], [])
            except OSError as exc:
                if exc.errno in (errno.EPIPE, errno.EBADF, errno.EIO):
                    return False
                raise
        self.last_byte = data[-1:]
        return True

    def _pump(self, channels: list[Channel], proc: subprocess.Popen[bytes]) -> None:
        """Copy every channel to its destination until each ends, or the command has exited
        and what is left open stays quiet for :data:`LINGER` seconds."""
        open_ = {c.read_fd: c for c in channels}
        while open_:
            exited = proc.poll() is not None
            ready, _, _ = select.select(list(open_), [], [], LINGER if exited else POLL)
            if not ready and exited:
                break
            for fd in ready:
                try:
                    data = os.read(fd, CHUNK)
                except OSError as exc:  # EIO: the pty's last writer has gone
                    if exc.errno != errno.EIO:
                        raise
                    data = b""
                if data:
                    self.tail.add(data)
                if not data or not self._write(open_[fd].out_fd, data):
                    os.close(fd)
                    del open_[fd]
        for fd in open_:
            os.close(fd)

    # -- the run ------------------------------------------------------------------------------

    def run(self) -> int:
        channels = open_channels()
        previous = self._install_handlers(channels)
        try:
            try:
                self.proc = subprocess.Popen(self.argv, stdout=channels[0].child_fd, stderr=channels[-1].child_fd)
            except (OSError, ValueError) as exc:
                for c in channels:
                    os.close(c.read_fd)
                return self._not_started(exc)
            finally:
                for c in channels:
                    os.close(c.child_fd)
            for sig in list(self.received):  # arrived while the command was starting
                self._pass_on(sig)
            self._pump(channels, self.proc)
            status = self.proc.wait()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        return self._finish(status)

    def _not_started(self, exc: OSError | ValueError) -> int:
        name = self.argv[0]
        if isinstance(exc, FileNotFoundError):
            print(f"errorkb run: {name}: command not found", file=sys.stderr)
            return 127
        reason = "permission denied" if isinstance(exc, PermissionError) else getattr(exc, "strerror", None) or str(exc)
        print(f"errorkb run: {name}: cannot run it: {reason}", file=sys.stderr)
        return 126

    def _finish(self, status: int) -> int:
        if status < 0:
            sig = -status
            if sig in self.received:  # asked to stop: end the same way, as shells expect
                signal.signal(sig, signal.SIG_DFL)
                os.kill(os.getpid(), sig)
            code = 128 + sig
            if sig == signal.SIGPIPE:  # its reader went away, as in `errorkb run -- cmd | head`
                return code
            headline = f"errorkb: {self._shown()} was killed by {_signal_name(sig)}; exit status {code}"
        elif status and not self.received:
            code = status
            headline = f"errorkb: {self._shown()} exited with status {code}"
        else:
            return status
        output = self.tail.text()
        died_of = code - 128 if 128 < code < 128 + signal.NSIG else 0
        if died_of:  # what a shell prints under it: "Killed", "Bus error" ...
            output += "\n" + (signal.strsignal(died_of) or "")
        try:
            block = self.explain(output, headline)
        except KeyboardInterrupt:
            return code
        except Exception as exc:  # the command's status matters more than the explanation
            block = f"{headline}\nerrorkb: could not search its output: {exc}\n"
        if block is None:
            block = f"{headline}; no known error in its output\n"
        sys.stderr.write(("" if self.last_byte == b"\n" else "\n") + block)
        sys.stderr.flush()
        return code

    def _shown(self) -> str:
        text = " ".join(shlex.join(self.argv).split())  # one line, whatever the arguments hold
        return text if len(text) <= 60 else text[:57] + "..."


def _signal_name(sig: int) -> str:
    """``SIGKILL (Killed)``; ``signal 40`` for a number without a name."""
    try:
        name = signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"
    return f"{name} ({signal.strsignal(sig)})"


def run(argv: list[str], explain: Explainer) -> int:
    """Run ``argv`` as described above; return the status to exit with."""
    return Wrapper(argv, explain).run()


def explain_from_records(root: str | None, records: str | None) -> Explainer:
    """The block from the records found as :func:`errorkb.answers.find_project` says, loaded
    only when a command has failed."""
    def explain(output: str, headline: str) -> str | None:
        from .answers import Answers

        try:
            answers = Answers.load(root, records)
        except LookupError as exc:
            return f"{headline}\nerrorkb: {exc}\n"
        return answers.block(output, headline)

    return explain
