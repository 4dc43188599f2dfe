"""Coverage of the vendors' code catalogues a site follows (``errorkb_code_catalogues``).

Generated at ``html-collect-pages`` from the loaded records, like the index pages
(:mod:`.indexes`), so they cannot drift from them:

- ``coverage/index``: every catalogue with how many of its codes have a record, and the records
  whose check is due again (``errorkb_checked_max_age``, ``errorkb_current_releases``);
- ``coverage/<catalogue>``: each code with the vendor's meaning and its record, if any;
- ``coverage/<catalogue>/<code>``: for a code without a record, what the vendor says, and how
  to add its record.

Their bodies are the templates ``errorkb-coverage.html``, ``errorkb-coverage-catalogue.html`` and
``errorkb-coverage-code.html``, which a site may override.  A catalogue file with a problem is a
warning naming its file and line.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging

from ..core.code_catalogues import CodeCatalogue, code_slug, coverage, load_code_catalogues
from ..core.freshness import reasons_to_recheck
from .config import settings
from .domain import err_domain
from .indexes import BUILDERS

logger = logging.getLogger(__name__)

OVERVIEW = "coverage/index"


def catalogue_page(catalogue: CodeCatalogue) -> str:
    return f"coverage/{catalogue.name}"


def code_page(catalogue: CodeCatalogue, code: str) -> str:
    return f"coverage/{catalogue.name}/{code_slug(code)}"


@functools.lru_cache(maxsize=4)
def _loaded(declared: tuple[tuple[str, str], ...], srcdir: str, stamp: tuple[float, ...]) -> tuple[list[CodeCatalogue], list]:
    return load_code_catalogues(dict(declared), Path(srcdir))


def catalogues(app: Sphinx) -> list[CodeCatalogue]:
    """The site's catalogues, read once per change of their files."""
    declared = settings(app.config).code_catalogues
    stamps = tuple(_mtime(Path(app.srcdir) / file) for file in declared.values())
    return _loaded(tuple(declared.items()), str(app.srcdir), stamps)[0]


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return -1.0


def check_catalogues(app: Sphinx, env: Any) -> None:
    """``env-check-consistency``: a problem in a catalogue file is a warning at its file and line."""
    declared = settings(app.config).code_catalogues
    stamps = tuple(_mtime(Path(app.srcdir) / file) for file in declared.values())
    for problem in _loaded(tuple(declared.items()), str(app.srcdir), stamps)[1]:
        logger.warning(problem.message, location=f"{Path(app.srcdir) / problem.path}:{problem.line}",
                       type="errorkb", subtype="code_catalogue")


def _record_url(app: Sphinx, pagename: str, record: Any) -> str:
    return app.builder.get_relative_uri(pagename, f"{settings(app.config).records_dir}/{record.docname}")


def overview(app: Sphinx, found: list[CodeCatalogue]) -> tuple[str, dict[str, Any], str]:
    options = settings(app.config)
    records = err_domain(app.env).catalogue.records.values()
    rows = []
    for catalogue in found:
        covered = coverage(catalogue, records)
        rows.append({"title": catalogue.title, "vendor": catalogue.vendor, "codes": len(covered),
                     "with_record": sum(record is not None for _, record in covered),
                     "url": app.builder.get_relative_uri(OVERVIEW, catalogue_page(catalogue))})
    recheck = []
    if options.checked_max_age or options.current_releases:
        for record in sorted(records, key=lambda r: r.id):
            reasons = reasons_to_recheck(record, options.checked_max_age, options.current_releases)
            if reasons:
                recheck.append({"id": record.id, "title": record.title, "reasons": reasons,
                                "url": _record_url(app, OVERVIEW, record)})
    body = app.builder.templates.render("errorkb-coverage.html", {"catalogues": rows, "recheck": recheck,
                                                                  "tracks_checks": bool(options.current_releases or
                                                                                        options.checked_max_age)})
    return OVERVIEW, {"title": "Coverage of the vendors' code catalogues", "body": body,
                      "errorkb_description": f"{app.config.project}: which of the vendors' error codes have a page."}, \
        "page.html"


def by_catalogue(app: Sphinx, catalogue: CodeCatalogue) -> Iterator[tuple[str, dict[str, Any], str]]:
    records = err_domain(app.env).catalogue.records.values()
    pagename = catalogue_page(catalogue)
    rows = []
    for code, record in coverage(catalogue, records):
        row = {"code": code.code, "meaning": code.meaning, "vendor_url": code.url}
        if record is not None:
            row |= {"record": record.title, "url": _record_url(app, pagename, record)}
        else:
            row |= {"record": None, "url": app.builder.get_relative_uri(pagename, code_page(catalogue, code.code))}
            yield code_without_record(app, catalogue, code)
        rows.append(row)
    covered = sum(row["record"] is not None for row in rows)
    body = app.builder.templates.render("errorkb-coverage-catalogue.html", {
        "title": catalogue.title, "vendor": catalogue.vendor, "vendor_url": catalogue.url, "codes": rows,
        "with_record": covered, "overview": app.builder.get_relative_uri(pagename, OVERVIEW)})
    yield pagename, {"title": catalogue.title, "body": body, "errorkb_description":
                     f"{catalogue.title}: {covered} of {len(rows)} codes have a page on {app.config.project}."}, "page.html"


def code_without_record(app: Sphinx, catalogue: CodeCatalogue, code: Any) -> tuple[str, dict[str, Any], str]:
    pagename = code_page(catalogue, code.code)
    body = app.builder.templates.render("errorkb-coverage-code.html", {
        "code": code.code, "meaning": code.meaning, "vendor_url": code.url or catalogue.url, "vendor": catalogue.vendor,
        "catalogue": catalogue.title, "catalogue_url": app.builder.get_relative_uri(pagename, catalogue_page(catalogue)),
        "repository": settings(app.config).repository_url.rstrip("/")})
    return pagename, {"title": f"{code.code}: no page yet", "body": body, "errorkb_description":
                      f"{code.code} ({catalogue.vendor}): {code.meaning}"}, "page.html"


def generated_pages(app: Sphinx) -> Iterator[tuple[str, dict[str, Any], str]]:
    """``html-collect-pages``: the overview, a page per catalogue and one per code without a record."""
    if app.builder.name not in BUILDERS or not settings(app.config).code_catalogues:
        return
    found = catalogues(app)
    yield overview(app, found)
    for catalogue in found:
        yield from by_catalogue(app, catalogue)


def page_names(app: Sphinx) -> list[str]:
    """Every coverage page, for the sitemap."""
    if not settings(app.config).code_catalogues:
        return []
    records = err_domain(app.env).catalogue.records.values()
    return [OVERVIEW] + [page for c in catalogues(app) for page in
                         [catalogue_page(c)] + [code_page(c, code.code) for code, rec in coverage(c, records) if rec is None]]


def link_in_context(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """``html-page-context``: where the coverage overview is, for the sidebar (``errorkb-sources.html``)."""
    if app.builder.name in BUILDERS and settings(app.config).code_catalogues:
        context["errorkb_coverage"] = app.builder.get_relative_uri(pagename, OVERVIEW)


def setup_coverage(app: Sphinx) -> None:
    app.connect("env-check-consistency", check_catalogues)
    app.connect("html-collect-pages", generated_pages)
    app.connect("html-page-context", link_in_context)
