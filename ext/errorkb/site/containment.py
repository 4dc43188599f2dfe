"""What a page may publish: files of the source folder only; in a record, no raw HTML, no link
that runs a script, and nothing read from a file or a URL.

Whatever path leads out of the source folder (a page that is a symbolic link, an included
file, an image or a download, symbolic links followed) is refused, and so is a page, image or
download that is not a regular file (a FIFO, a device: reading it would never end).  In a
record's page, any raw output (an HTML block or an inline tag in the prose, the ``raw``
directive, raw HTML in an ``eval-rst`` block) is refused unless ``errorkb_allow_raw_html`` is
set, and so is any link or image whose URL has a scheme outside ``errorkb_url_schemes``
(``javascript:``, ``data:``).  Each refusal is an error at the file and line it comes from,
and what was refused is left out of the page (a refused link keeps its text), so even a build
without ``-W`` publishes none of it.

A record is parsed with docutils' ``file_insertion_enabled`` off, so that no directive reads a
file or a URL for it (``include``, ``literalinclude``, ``csv-table`` and ``raw`` with ``:file:``
or ``:url:``): each says so at its line instead.
"""

from __future__ import annotations

import functools
from pathlib import Path
from urllib.parse import urlsplit

from docutils import nodes
from myst_parser.parsers.sphinx_ import MystParser
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging

from ..core.reading import not_a_file
from .config import settings

logger = logging.getLogger(__name__)

ALLOW_RAW = "set errorkb_allow_raw_html = True in conf.py to publish it"
WIDEN_SCHEMES = "errorkb_url_schemes in conf.py lists them"


@functools.lru_cache(maxsize=4096)
def _resolved(path: str) -> Path:
    return Path(path).resolve()


def _inside(path: str | Path, srcdir: Path) -> bool:
    """Whether ``path``, links followed, is in ``srcdir``; resolved once per path, since every
    node read from a file asks about that file."""
    return _resolved(str(path)).is_relative_to(_resolved(str(srcdir)))


def _refuse(message: str, location: object) -> None:
    logger.error(message, location=location, type="errorkb", subtype="containment")


def drop_pages_not_to_read(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    """``env-before-read-docs``: a page whose file is not a regular file, or leads out of the
    source folder, is not read."""
    srcdir = Path(env.srcdir)
    for docname in sorted(env.found_docs):
        path = env.doc2path(docname)
        shown = Path(path).relative_to(srcdir).as_posix()
        kind = not_a_file(Path(path))
        if kind is not None:
            _refuse(f"{shown} is {kind}, not a file; it is not read", (docname, 1))
        elif not _inside(path, srcdir):
            _refuse(f"{shown} is a symbolic link to a file outside the source folder; it is not published", (docname, 1))
        else:
            continue
        env.found_docs.discard(docname)
        if docname in docnames:
            docnames.remove(docname)


def _local(uri: str) -> bool:
    return bool(uri) and "://" not in uri and not uri.startswith(("data:", "mailto:"))


#: What a browser strips from both ends of a URL before reading it (WHATWG: C0 control or space).
_C0_OR_SPACE = "".join(map(chr, range(0x21)))


@functools.lru_cache(maxsize=4096)
def _scheme(url: str) -> str | None:
    """The scheme of ``url`` as a browser reads it (case, surrounding controls, tabs and newlines
    ignored); "" for a relative URL, None for one that cannot be parsed."""
    try:
        return urlsplit(url.strip(_C0_OR_SPACE)).scheme.lower()
    except ValueError:
        return None


def _unsafe_url(node: nodes.Element, schemes: frozenset[str]) -> str | None:
    """The URL of a link or an image in ``node`` whose scheme is not among ``schemes``, if any."""
    for attribute in ("refuri", "uri"):
        url = node.get(attribute)
        if isinstance(url, str) and (scheme := _scheme(url)) != "" and scheme not in schemes:
            return url
    return None


def _line_naming(env: BuildEnvironment, docname: str, name: str) -> int | None:
    """The first line of the page that names ``name`` (the directive that included it)."""
    try:
        lines = Path(env.doc2path(docname)).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    return next((n for n, line in enumerate(lines, 1) if name in line), None)


def _outside_source(node: nodes.Element, srcdir: Path) -> str | None:
    """The file outside the source folder that ``node`` was read from, if it was."""
    source = node.get("source") if isinstance(node, nodes.literal_block) else None  # literalinclude
    if not source and (node.parent is None or node.source != node.parent.source):  # include
        source = node.source
    if source and Path(source).is_absolute() and not _inside(source, srcdir):
        return source
    return None


def _why_refused(app: Sphinx, docname: str, node: nodes.Element, srcdir: Path,
                 record: bool) -> tuple[str, object] | None:
    """Why ``node`` (of a record's page where ``record``) may not be published, and where to say
    so; None when it may."""
    env = app.env
    source = _outside_source(node, srcdir)
    if source:
        return (f"includes {source}, a file outside the source folder; it is not published",
                (docname, _line_naming(env, docname, Path(source).name)))
    uri = node.get("uri") if isinstance(node, nodes.image) else \
        node.get("reftarget") if isinstance(node, addnodes.download_reference) else None
    if uri and _local(uri):
        path = env.relfn2path(uri, docname)[1]
        if not _inside(path, srcdir):
            return f"{uri} leads outside the source folder; it is not published", node
        kind = not_a_file(Path(path))
        if kind is not None:
            return f"{uri} is {kind}, not a file; it is not published", node
    if not record:
        return None
    site = settings(app.config)
    if isinstance(node, nodes.raw) and not site.allow_raw_html:
        what = "raw HTML" if node.get("format") == "html" else f"raw {node.get('format')} output"
        return f"{what} is not allowed in a record ({ALLOW_RAW})", node
    url = _unsafe_url(node, site.url_schemes)
    if url is not None:
        where = next(node.findall(nodes.image), node)  # an image's link is at the image's line
        return (f"{url[:80]!r}: a record may link only to URLs of the schemes {', '.join(sorted(site.url_schemes))} "
                f"or relative ones ({WIDEN_SCHEMES})", where)
    if isinstance(node, nodes.meta) and node.get("http-equiv"):
        return ("a record may not set the page's HTTP headers (meta http-equiv); it is not published",
                (docname, _line_naming(env, docname, "http-equiv")))
    return None


def check_doctree(app: Sphinx, doctree: nodes.document) -> None:
    """``doctree-read``, before Sphinx collects images and downloads: remove what may not be published."""
    docname = app.env.docname
    srcdir = Path(app.env.srcdir)
    record = settings(app.config).is_record_page(docname)
    todo: list[nodes.Node] = list(reversed(doctree.children))  # a stack, so in document order
    while todo:
        node = todo.pop()
        if not isinstance(node, nodes.Element):
            continue
        refusal = _why_refused(app, docname, node, srcdir, record)
        if refusal is None:
            todo.extend(reversed(node.children))
            continue
        _refuse(*refusal)
        parent = node.parent
        if isinstance(node, nodes.reference) and node.children:  # a refused link keeps what it showed
            kept = list(node.children)
            node.replace_self(kept)
            todo.extend(reversed(kept))
            continue
        parent.remove(node)
        while isinstance(parent, nodes.reference) and not parent.children:  # an image's link, left empty
            parent, empty = parent.parent, parent
            parent.remove(empty)


class RecordParser(MystParser):
    """MyST's parser, with file and URL access turned off while it parses a record."""

    def parse(self, inputstring: str, document: nodes.document) -> None:
        env = document.settings.env
        if settings(env.config).is_record_page(env.docname):
            document.settings.file_insertion_enabled = False
        super().parse(inputstring, document)


def setup_containment(app: Sphinx) -> None:
    app.connect("builder-inited", lambda app: _resolved.cache_clear())  # a file may have become a link
    app.add_source_parser(RecordParser, override=True)
    app.connect("env-before-read-docs", drop_pages_not_to_read)
    app.connect("doctree-read", check_doctree, priority=400)
