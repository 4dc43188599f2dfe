"""Badges: the small coloured labels on record pages (source, platform, ...) and snippet statuses.

A badge is an inline node with two classes; its look is in ``errorkb.css``, for any theme.
sphinx-design's badges look the same, but loading that extension for its CSS alone cost 5 to 6%
of a 1,000-record build: its post-transforms walk every page looking for its own components.
"""

from __future__ import annotations

from docutils import nodes

#: ``plain`` follows the theme's light or dark background; the others are fixed colours with
#: text that keeps a contrast of at least 4.5:1.
COLOURS = ("primary", "info", "secondary", "warning", "success", "danger", "plain")


def badge(text: str, colour: str) -> nodes.inline:
    if colour not in COLOURS:
        raise ValueError(f"unknown badge colour {colour!r}")
    return nodes.inline(text=text, classes=["errorkb-badge", f"errorkb-badge-{colour}"])
