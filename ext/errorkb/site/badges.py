"""Badges: the small coloured labels on record pages (source, platform, ...) and snippet statuses.

A badge is sphinx-design's badge (the classes its ``bdg-*`` roles give), so record pages,
guides and the theme share one look; ``errorkb-badge`` is kept for spacing and tests.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.writers.html5 import HTML5Translator

#: ``plain`` is an outlined, muted badge that follows the theme's light or dark background.
COLOURS = ("primary", "info", "secondary", "warning", "success", "danger", "plain")


class titled(nodes.inline):
    """An inline element with a tooltip (``title``), which docutils' own inline does not write."""


def visit_titled(translator: HTML5Translator, node: titled) -> None:
    translator.body.append(translator.starttag(node, "span", "", title=node["title"]))


def depart_titled(translator: HTML5Translator, node: titled) -> None:
    translator.body.append("</span>")


def setup_badges(app: Sphinx) -> None:
    app.add_node(titled, html=(visit_titled, depart_titled))


def badge(text: str, colour: str, kind: str = "") -> nodes.inline:
    """A badge; ``kind`` (``Source``, ``Platform`` ...) says what it is, to screen readers and in
    its tooltip, so that two badges of one text (a source and a framework) are told apart."""
    if colour not in COLOURS:
        raise ValueError(f"unknown badge colour {colour!r}")
    look = ["sd-outline-muted", "sd-text-muted"] if colour == "plain" else [f"sd-bg-{colour}", f"sd-bg-text-{colour}"]
    classes = ["errorkb-badge", f"errorkb-badge-{colour}", "sd-badge", *look]
    shown = titled(classes=classes, title=f"{kind}: {text}") if kind else nodes.inline(classes=classes)
    if kind:
        shown += nodes.inline(text=f"{kind}: ", classes=["errorkb-visually-hidden"])
    shown += nodes.Text(text)
    return shown
