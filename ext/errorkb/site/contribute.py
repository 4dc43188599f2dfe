"""How a reader adds an error to the site: the contributor's page (``contribute.html``), with the
site's repository (``errorkb_repository_url``) and the steps of a pull request, and, on each record
page, a link that edits the record's file in the repository.

The page's HTML comes from the template ``errorkb-contribute.html``, which a site overrides with
its own of the same name.  The edit link assumes the site's source folder is the repository's root.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

from .config import settings
from .indexes import BUILDERS
from .search import report_url

PAGE = "contribute"
TITLE = "Add an error to this site"


def repository(config: Any) -> str:
    """The site's repository, without a trailing slash; '' when the site names none."""
    return settings(config).repository_url.strip().rstrip("/")


def edit_link(config: Any, path: str) -> nodes.paragraph | None:
    """The line under a record page that edits its file ``path`` in the repository."""
    repo = repository(config)
    if not repo:
        return None
    para = nodes.paragraph(classes=["errorkb-edit"])
    para += nodes.Text("Something wrong or missing? ")
    url = f"{repo}/edit/HEAD/{path}"
    para += nodes.reference(url, "Edit this page", refuri=url)
    para += nodes.Text(" and send the change as a pull request.")
    return para


def collect_pages(app: Sphinx) -> Iterator[tuple[str, dict[str, Any], str]]:
    """``html-collect-pages``: the contributor's page, in the theme's page layout."""
    if app.builder.name in BUILDERS:
        repo = repository(app.config)
        yield PAGE, {"title": TITLE, "errorkb_repository": repo, "errorkb_report": report_url(repo) if repo else None,
                     "errorkb_description": f"How to add an error to {app.config.project}: clone, make new, "
                                            "make check, and a pull request."}, "page.html"


def page_context(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """``html-page-context``: the page's body; on every page, its name for templates (the sidebar)."""
    if app.builder.name not in BUILDERS:
        return
    context["errorkb_contribute"] = PAGE
    if pagename == PAGE and doctree is None:
        context["body"] = app.builder.templates.render("errorkb-contribute.html", context)


def setup_contribute(app: Sphinx) -> None:
    app.connect("html-collect-pages", collect_pages)
    app.connect("html-page-context", page_context)
