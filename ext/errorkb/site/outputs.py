"""Outputs for machines and search engines, written with the HTML site.

* ``errors.json``: every record, structured, with ``schema_version`` (see :data:`SCHEMA_VERSION`);
* ``llms.txt``: the site's map for language models (https://llmstxt.org);
* Open Graph tags on every page, and a meta description on generated pages;
* ``sitemap.xml``: every page, with absolute URLs;
* ``404.html``: a themed "page not found", written by sphinx-notfound-page with errorkb's
  ``errorkb-404.html`` as its body;
* a redirect page for each alias and code of a record, at ``errors/<source>/<alias>.html``,
  pointing at the record's stable URL ``errors/<source>/<id>.html`` (``<alias>/`` and ``<id>/``
  with ``dirhtml``); a code that cannot be a file name as written gets a slug of it
  (``HTTP 413`` -> ``HTTP-413.html``), and a record with ``redirects: false`` gets none.

Pages and redirects come from templates a site can override (``errorkb-404.html``,
``errorkb-redirect.html``).

Absolute URLs come from ``errorkb_base_url``, or else ``html_baseurl`` (which Sphinx also uses for
canonical links; ``errorkb_base_url`` fills it in when it is empty).  Without either, the site
still builds: ``errors.json`` and ``llms.txt`` use URLs relative to the site's root, no
``og:url`` is written, and ``sitemap.xml`` is left out, since a sitemap needs absolute URLs.
"""

from __future__ import annotations

import html
import json
import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.util import logging

from ..core.records import Record, redirect_pages
from .config import settings
from .coverage import page_names as coverage_pages
from .domain import err_domain, link_text
from .indexes import BUILDERS, page_names

logger = logging.getLogger(__name__)

#: Raised when a field of ``errors.json`` changes meaning or goes away; new fields keep it.
SCHEMA_VERSION = 3


def base_url(app: Sphinx) -> str:
    """The site's public URL ending in '/', or '' when none is configured."""
    url = settings(app.config).base_url or app.config.html_baseurl
    return url.rstrip("/") + "/" if url else ""


def share_base_url(app: Sphinx, config: Config) -> None:
    """``config-inited``: ``errorkb_base_url`` also gives Sphinx's canonical links."""
    if settings(config).base_url and not config.html_baseurl:
        config.html_baseurl = settings(config).base_url


def _url(app: Sphinx, pagename: str) -> str:
    """A page's URL: absolute with a base URL, else relative to the site's root."""
    return base_url(app) + app.builder.get_target_uri(pagename)


def _enabled(app: Sphinx) -> bool:
    return app.builder.name in BUILDERS


# ---------------------------------------------------------------------------------------------
# errors.json and llms.txt


def errors_json(app: Sphinx) -> dict[str, Any]:
    domain = err_domain(app.env)
    referrers = domain.backlinks
    related = domain.related
    errors = []
    for record in domain.published():
        data = record.as_json(settings(app.config).schema)
        data["related"] = related[record.id]
        data["url"] = _url(app, domain.docname_of(record))
        data["referenced_by"] = [
            {"title": _title(app, d), "url": _url(app, d)} for d in sorted(referrers.get(record.id, ()))
        ]
        errors.append(data)
    return {
        "schema_version": SCHEMA_VERSION,
        "project": app.config.project,
        "base_url": base_url(app) or None,
        "errors": errors,
    }


def _title(app: Sphinx, docname: str) -> str:
    title = app.env.titles.get(docname)
    return title.astext() if title is not None else docname


def _md_link(text: str) -> str:
    return re.sub(r"([\[\]\\])", r"\\\1", text)


def llms_txt(app: Sphinx) -> str:
    domain = err_domain(app.env)
    records = domain.published()
    record_docs = {domain.docname_of(r) for r in records}
    guides = sorted((d for d in app.env.all_docs if d not in record_docs and d != app.config.root_doc),
                    key=lambda d: _title(app, d))
    lines = [
        f"# {app.config.project}",
        "",
        f"> {' '.join(settings(app.config).llms_summary.split())}",
        "",
        f"Every record is also available as structured data in [errors.json]({base_url(app)}errors.json).",
        "",
        "## Errors",
        "",
    ]
    for record in records:
        text = _md_link(link_text(app.config, record.code, record.title))
        lines.append(f"- [{text}]({_url(app, domain.docname_of(record))}): {record.summary}")
    if guides:
        lines += ["", "## Guides", ""]
        lines += [f"- [{_md_link(_title(app, d))}]({_url(app, d)})" for d in guides]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# Tags in each page's head


def add_tags(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """``html-page-context``: Open Graph tags everywhere; a description on generated pages."""
    if not _enabled(app):
        return
    record = err_domain(app.env).record_for(pagename)
    description: str | None
    if record is not None:
        title, description, kind = link_text(app.config, record.code, record.title), record.summary, "article"
    else:
        title = _title(app, pagename) if pagename in app.env.all_docs else html.unescape(context.get("title", ""))
        description, kind = context.get("errorkb_description"), "website"
    tags = {"og:title": title, "og:type": kind, "og:site_name": app.config.project}
    if description:
        tags["og:description"] = description
    if base_url(app) and pagename != app.config.notfound_pagename:
        tags["og:url"] = _url(app, pagename)
    meta = "".join(f'\n<meta property="{k}" content="{html.escape(v)}">' for k, v in tags.items())
    if record is None and description:
        meta += f'\n<meta name="description" content="{html.escape(description)}">'
    context["metatags"] = context.get("metatags", "") + meta


# ---------------------------------------------------------------------------------------------
# The 404 page, written by sphinx-notfound-page


def not_found_prefix(app: Sphinx, config: Config) -> None:
    """``config-inited``: unless the site sets ``notfound_urls_prefix``, the 404 page's links start
    at the path of the site's public URL, or at '/' (sphinx-notfound-page's own default is Read
    the Docs' ``/en/latest/``)."""
    if config.notfound_urls_prefix == config.values["notfound_urls_prefix"].default:
        url = settings(config).base_url or config.html_baseurl or os.environ.get("READTHEDOCS_CANONICAL_URL", "")
        config.notfound_urls_prefix = urlsplit(url).path.rstrip("/") + "/"


def not_found_body(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """``html-page-context``: the 404 page's body from the template ``errorkb-404.html``, unless the
    site gives its own (``notfound_context``).  Rendered with the page's context, whose ``pathto``
    sphinx-notfound-page has made absolute, so its links work at any address; under a sub-path
    the build did not know, a script finds the site's root and moves them there."""
    config = app.config
    if (_enabled(app) and pagename == config.notfound_pagename and doctree is None
            and config.notfound_context == config.values["notfound_context"].default):
        # The root's own address, which pathto() turns into '#' where it is empty (dirhtml).
        context["errorkb_home"] = config.notfound_urls_prefix + app.builder.get_target_uri(config.root_doc)
        context["errorkb_prefix"] = config.notfound_urls_prefix
        context["body"] = app.builder.templates.render("errorkb-404.html", context)


# ---------------------------------------------------------------------------------------------
# Redirects and the sitemap


def redirects(app: Sphinx, record: Record) -> dict[str, str]:
    """Page name of each redirect of ``record`` -> the code or alias it stands for."""
    folder = err_domain(app.env).docname_of(record).rsplit("/", 1)[0]
    return {f"{folder}/{page}": name for page, name in redirect_pages(record).items()}


def write_if_changed(path: Path, text: str) -> None:
    """Write ``text`` unless the file holds it already: a rebuild rewrites only what changed,
    which is cheaper than rewriting thousands of small files and keeps their times for deploys.

    Sphinx's ``FileAvoidWrite`` does the comparison too, but it makes no folder and its ``with``
    block swallows every exception, so a failed write would pass unnoticed."""
    try:
        if path.read_text(encoding="utf-8") == text:
            return
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (OSError, UnicodeDecodeError):
        pass
    path.write_text(text, encoding="utf-8")


def write_redirects(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """``html-page-context``: as a record's page is written, the redirect pages of its codes and
    aliases (in the process that writes the page, under ``-j``; a page not written again keeps its
    redirects)."""
    record = err_domain(app.env).record_for(pagename) if _enabled(app) else None
    if record is None:
        return
    base = base_url(app)
    canonical = base + app.builder.get_target_uri(pagename) if base else ""
    for redirect, name in redirects(app, record).items():
        if redirect in app.env.all_docs:
            continue
        target = app.builder.get_relative_uri(redirect, pagename)
        path = Path(app.outdir) / app.builder.get_outfilename(redirect)  # type: ignore[attr-defined]
        page = {"title": _title(app, pagename), "canonical": canonical or target, "target": target, "name": name}
        write_if_changed(path, app.builder.templates.render("errorkb-redirect.html", page))


def sitemap(app: Sphinx) -> str | None:
    base = base_url(app)
    if not base:
        return None
    pages = sorted(app.env.all_docs) + page_names(app, err_domain(app.env).catalogue) + coverage_pages(app)
    urls = "".join(f"  <url><loc>{html.escape(base + app.builder.get_target_uri(p))}</loc></url>\n" for p in pages)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' + urls + "</urlset>\n")


def write_outputs(app: Sphinx, exception: Exception | None) -> None:
    """``build-finished``: write the machine outputs next to the HTML."""
    if exception is not None or not _enabled(app):
        return
    outdir = Path(app.outdir)
    if Path(app.doctreedir).is_relative_to(outdir):
        logger.info("errorkb: the build's own files (doctrees, the records' and snippets' caches) are in %s, "
                    "inside the output folder: build with -d (sphinx-build -d _build/doctrees ...) or -M html "
                    "to keep them out of what you publish", Path(app.doctreedir))
    write_if_changed(outdir / "errors.json", json.dumps(errors_json(app), indent=1, ensure_ascii=False) + "\n")
    write_if_changed(outdir / "llms.txt", llms_txt(app))
    text = sitemap(app)
    if text is None:
        logger.info("errorkb: no sitemap.xml, as neither errorkb_base_url nor html_baseurl is set")
        (outdir / "sitemap.xml").unlink(missing_ok=True)
    else:
        write_if_changed(outdir / "sitemap.xml", text)


def setup_outputs(app: Sphinx) -> None:
    app.setup_extension("notfound.extension")
    app.connect("config-inited", share_base_url)
    app.connect("config-inited", not_found_prefix)
    app.connect("html-page-context", add_tags)
    app.connect("html-page-context", write_redirects)
    # After sphinx-notfound-page (400) has made the page's links absolute, and after the lookup
    # page's name is in the context (500).
    app.connect("html-page-context", not_found_body, priority=600)
    app.connect("build-finished", write_outputs)
