"""The compiled catalogue (:mod:`.compiled`) kept between runs, and when it is stale.

One file per site, in ``$XDG_CACHE_HOME/errorkb`` (``~/.cache/errorkb``), named after the
site's folder, its ``conf.py``, the records folder asked for and this installation of errorkb.
Its first line is what a lookup reads: what the file was made from and the compiled index; its
second line holds the records' details, read only by ``explain`` and the MCP server.

The file answers only while everything it was made from is as it was: this errorkb (its
version and every module of the package), the Python running it, the site's ``conf.py`` and
every Markdown file under the records folder.  Each of those files is stamped with its size,
modification time and inode, and a digest of its bytes: a file whose stamp changed is hashed,
and counts as unchanged (its stamp renewed) when its bytes are; a file modified less than
:data:`RACE` before it was stamped is hashed on every run, as a change in the same tick of the
file system's clock may keep its stamp.  A file that is not a regular one, or larger than the
site's largest record (which the records' loader refuses unread), is judged by its stamp.
Otherwise the records are compiled again and the file is written anew, whole or not at all.  A
file that cannot be read is compiled again; one that cannot be written leaves the answer to
come from the records, more slowly.

``conf.py`` is not run to check the file, so a setting it reads from the environment is read
again when ``conf.py`` changes; ``ERRORKB_BASE_URL`` is read on every run.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import time
import zlib
from typing import Any

from .. import __version__
from ..core.gc_pause import gc_paused
from .compiled import Compiled, compile_project
from .project import site_of

FORMAT = 1
#: A file modified this close (in nanoseconds) to the moment it was stamped is always hashed.
RACE = 3_000_000_000
#: The folder of errorkb's own code, whose modules are stamped.
PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

Stamps = dict[str, list[Any]]  # path -> [size, modification time in ns, inode, digest]


def cache_dir() -> str:
    return os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "errorkb")


def compiled_site(root: str | os.PathLike[str] | None = None, conf: str | os.PathLike[str] | None = None,
                  records: str | None = None) -> Compiled:
    """The compiled catalogue of the site :func:`~.project.site_of` finds, with ``records``
    overriding its records folder: the cached one while it is current, else compiled from the
    records and cached.  Raises :class:`~.project.ProjectError` for a site that cannot be used."""
    folder, conf = site_of(root, conf)
    where = {"folder": os.path.abspath(folder), "conf": os.path.abspath(conf) if conf else None, "records": records,
             "errorkb": PACKAGE, "version": __version__, "python": sys.version}
    path = os.path.join(cache_dir(), _file_name(where))
    return _read(path, where) or _compile(path, where, folder, conf, records)


def _file_name(where: dict[str, Any]) -> str:
    name = "".join(c if c.isalnum() or c in "-_" else "-" for c in os.path.basename(where["folder"]))[:40]
    return f"{name}-{zlib.crc32(json.dumps(where, sort_keys=True).encode('utf-8', 'surrogatepass')):08x}.json"


def _sources(where: dict[str, Any], records_folder: str) -> list[str]:
    """The files a compiled catalogue is made from: errorkb's modules, the site's conf.py, and
    every Markdown file the records' loader may read or report."""
    return [*_modules(), *([where["conf"]] if where["conf"] else []), *_markdown_under(records_folder)]


def _read(path: str, where: dict[str, Any]) -> Compiled | None:
    """The catalogue cached at ``path`` if it was made for ``where`` and is current, else None."""
    now = time.time_ns()
    try:
        with open(path, "rb") as f, gc_paused():  # many objects, no cycles
            head = json.loads(f.readline())
        key = head["key"]
        if key["format"] != FORMAT or key["where"] != where:
            return None
        stamps = key["stamps"]
        if sorted(stamps) != sorted(_sources(where, head["records"])):
            return None
        renewed = _renewed(stamps, key["stamped_at"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if renewed is None:
        return None
    if renewed != stamps or any(_racy(stamp, key["stamped_at"]) for stamp in stamps.values()):
        key["stamps"], key["stamped_at"] = renewed, now  # the same bytes: their new stamps hold next time
        _rewrite_head(path, head)
    return Compiled(head, lambda: _read_details(path, head))


def _same_compile(line: bytes, head: dict[str, Any]) -> bool:
    key = json.loads(line)["key"]
    return key["where"] == head["key"]["where"] and key["compiled"] == head["key"]["compiled"]


def _read_details(path: str, head: dict[str, Any]) -> dict[str, Any]:
    """The details written with ``head``; compiled again if the file was replaced since."""
    try:
        with open(path, "rb") as f:
            if _same_compile(f.readline(), head):
                return json.loads(f.readline())
    except (OSError, ValueError, KeyError, TypeError):
        pass
    where = head["key"]["where"]
    return _compile(path, where, where["folder"], where["conf"], where["records"]).details


def _compile(path: str, where: dict[str, Any], folder: str, conf: str | None, records: str | None) -> Compiled:
    """Compile the site's records and cache them; stamped before they are read, so that a file
    changed while they are read is not taken for the one compiled."""
    from .project import open_project

    now = time.time_ns()
    stamps = _stamps([*_modules(), *([where["conf"]] if where["conf"] else [])])  # before conf.py runs
    project = open_project(folder, conf=conf, records=records)
    stamps |= _stamps(_markdown_under(str(project.records)), project.settings.max_record_size)
    head, details = compile_project(project)
    head = {"key": {"format": FORMAT, "where": where, "compiled": now, "stamped_at": now, "stamps": stamps}, **head}
    _write(path, [_line(head), _line(details)])
    return Compiled(head, lambda: details)


def _modules() -> list[str]:
    found = []
    for folder, dirs, files in os.walk(PACKAGE):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        found += [os.path.join(folder, name) for name in files if name.endswith(".py")]
    return found


def _markdown_under(folder: str) -> list[str]:
    """Every Markdown file under ``folder``, and in the source folders it links to: what the
    records' loader reads (``<source>/<id>.md``) or reports (any other place)."""
    found = []
    for parent, dirs, files in os.walk(folder):
        found += [os.path.join(parent, name) for name in files + dirs if name.endswith(".md")]
        if parent == folder:
            for name in dirs:
                linked = os.path.join(folder, name)
                if os.path.islink(linked):
                    found += [os.path.join(linked, e.name) for e in _entries(linked) if e.name.endswith(".md")]
    return found


def _entries(folder: str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except OSError:
        return []


def _stat(path: str) -> list[int | None]:
    try:
        st = os.stat(path)
    except OSError:
        return [None, None, None]
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _digest(path: str, limit: int | None = None) -> str | None:
    """The digest of a regular file's bytes; None for anything else, or a file larger than
    ``limit``, which the records' loader refuses unread (its stat alone matters)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a named pipe does not block
    except OSError:
        return None
    with open(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (limit is not None and st.st_size > limit):
            return None
        import hashlib

        return hashlib.file_digest(f, lambda: hashlib.blake2b(digest_size=16)).hexdigest()


def _stamps(paths: list[str], limit: int | None = None) -> Stamps:
    """Each file stamped: its size, modification time and inode, then the digest of its bytes
    (of those not larger than ``limit``)."""
    return {path: [*_stat(path), _digest(path, limit)] for path in paths}


def _racy(stamp: list[Any], stamped_at: int) -> bool:
    return stamp[1] is not None and stamp[1] > stamped_at - RACE


def _renewed(stamps: Stamps, stamped_at: int) -> Stamps | None:
    """``stamps`` as they are now; None when a file changed.  A file whose stamp is the same and was
    not racy keeps it; any other of the same size is hashed, and gets its new stamp if its bytes
    are the same (a file without a digest is judged by its stamp alone)."""
    renewed = {}
    for path, stamp in stamps.items():
        current = _stat(path)
        if current == stamp[:3] and (stamp[3] is None or not _racy(stamp, stamped_at)):
            renewed[path] = stamp
        elif stamp[3] is not None and current[0] == stamp[0] and _digest(path) == stamp[3]:
            renewed[path] = [*current, stamp[3]]
        else:
            return None
    return renewed


def _line(data: dict[str, Any]) -> bytes:
    """One line of JSON, in ASCII (no line end inside); a value JSON has no type for (a date that
    YAML read) as its text."""
    return json.dumps(data, separators=(",", ":"), default=str).encode() + b"\n"


def _write(path: str, lines: list[bytes]) -> None:
    """Write the file whole or not at all; a cache that cannot be written is passed over."""
    partial = f"{path}.{os.getpid()}"
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        with open(partial, "wb") as f:
            f.writelines(lines)
        os.replace(partial, path)
    except OSError:
        try:
            os.unlink(partial)
        except OSError:
            pass


def _rewrite_head(path: str, head: dict[str, Any]) -> None:
    """Write ``head`` with the details in the file, unless another run has compiled it since."""
    try:
        with open(path, "rb") as f:
            if not _same_compile(f.readline(), head):
                return
            details = f.read()
    except (OSError, ValueError, KeyError, TypeError):
        return
    _write(path, [_line(head), details])
