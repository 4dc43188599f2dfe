"""Badges: the small coloured labels on record pages (source, platform, ...) and snippet statuses.

A badge is sphinx-design's badge (the classes its ``bdg-*`` roles give), so record pages,
guides and the theme share one look; ``errorkb-badge`` is kept for spacing and tests.
"""

from __future__ import annotations

from docutils import nodes

#: ``plain`` is an outlined, muted badge that follows the theme's light or dark background.
COLOURS = ("primary", "info", "secondary", "warning", "success", "danger", "plain")


def badge(text: str, colour: str) -> nodes.inline:
    if colour not in COLOURS:
        raise ValueError(f"unknown badge colour {colour!r}")
    look = ["sd-outline-muted", "sd-text-muted"] if colour == "plain" else [f"sd-bg-{colour}", f"sd-bg-text-{colour}"]
    return nodes.inline(text=text, classes=["errorkb-badge", f"errorkb-badge-{colour}", "sd-badge", *look])
