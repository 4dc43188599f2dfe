"""Reading what a site or a user hands over: regular files only, and never more than a limit.

A FIFO, a device or a socket (or a symbolic link to one) where a record, a page or an input
file is expected would block or never end: it is refused before a byte is read, and a file
or stream larger than its limit is refused after reading one byte past it.  Nothing here
imports Sphinx.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import IO, AnyStr

_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"))


class Refused(Exception):
    """A file or stream that is not read (not a regular file) or not read to its end (too large)."""


def _kind(mode: int) -> str | None:
    """What a file of ``mode`` is, when it is not a regular file."""
    return None if stat.S_ISREG(mode) else next((name for test, name in _KINDS if test(mode)), "not a regular file")


def not_a_file(path: Path) -> str | None:
    """Why ``path`` may not be read as a file (``"a FIFO"``, ``"a symbolic link to a character
    device"``), or None when it is a regular file or does not exist (reading it says so)."""
    try:
        kind = _kind(path.stat().st_mode)
    except OSError:
        return None
    if kind is None:
        return None
    return f"a symbolic link to {kind}" if path.is_symlink() else kind


def read_file(path: Path, limit: int) -> bytes:
    """The bytes of ``path``; :class:`Refused` when it is not a regular file or holds more than
    ``limit`` bytes, OSError when it cannot be read.  Opened without blocking, so a FIFO put in
    place after a check is refused too."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with open(fd, "rb") as f:
        kind = _kind(os.fstat(fd).st_mode)
        if kind is not None:
            raise Refused(f"it is {f'a symbolic link to {kind}' if os.path.islink(path) else kind}, not a file")
        return read_stream(f, limit)


def read_stream(stream: IO[AnyStr], limit: int) -> AnyStr:
    """At most ``limit`` bytes (characters, from a text stream) of ``stream``; :class:`Refused`
    when it holds more."""
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise Refused(f"it holds more than {limit:,} {'bytes' if isinstance(data, bytes) else 'characters'}")
    return data
