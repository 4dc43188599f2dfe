"""User ids for snippets of builds run as root: one per running snippet, across every build.

A snippet holds its id by an exclusive ``flock`` on ``<id>.lock`` in :data:`LEASES`, a folder
only root may enter; the kernel drops the lock when the holder exits, however it exits, so a
killed build never keeps an id.  Ids that name an account in the user database are skipped.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pwd
import stat
from collections.abc import Iterator
from pathlib import Path

# Between the ids systemd gives greeters (up to 60705) and dynamic users (from 61184).
FIRST = 60706  # snippets run as 60706, 60707, ...
COUNT = 256  # so at most this many at once on one machine
LEASES = Path("/run/errorkb-sandbox")


class NoFreeId(Exception):
    """No sandbox user id can be had; the message says why."""


def _private_folder() -> Path:
    try:
        LEASES.mkdir(mode=0o700, exist_ok=True)
        info = LEASES.lstat()
    except OSError as exc:
        raise NoFreeId(f"cannot make {LEASES}, where sandbox user ids are handed out: {exc.strerror}") from None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0 or info.st_mode & 0o077:
        raise NoFreeId(f"{LEASES}, where sandbox user ids are handed out, must be a folder only root may enter")
    return LEASES


def _taken(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


@contextlib.contextmanager
def lease() -> Iterator[int]:
    """Hold a user id no other snippet on this machine holds, until the block ends."""
    folder = _private_folder()
    for uid in range(FIRST, FIRST + COUNT):
        if _taken(uid):
            continue
        fd = os.open(folder / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        try:
            yield uid
        finally:
            os.close(fd)
        return
    raise NoFreeId(f"all {COUNT} sandbox user ids ({FIRST} to {FIRST + COUNT - 1}) are in use by running snippets")
