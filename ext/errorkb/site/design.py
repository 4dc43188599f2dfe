"""sphinx-design components, built as its own nodes: rendered by its transforms, styled by its CSS.

* :func:`tab_set`: tabs of one sync group, so the reader's choice (of a framework, say) holds
  across the page and across pages (guides name the same group in their ``tab-set``).
* :func:`dropdown`: content folded behind a title.
"""

from __future__ import annotations

from docutils import nodes
from sphinx_design.shared import create_component


def dropdown(title: str, children: list[nodes.Node], classes: list[str] | None = None) -> nodes.container:
    """A closed dropdown with a plain-text title."""
    return create_component(
        "dropdown", opened=False, type="dropdown", has_title=True, icon=None, chevron=None,
        container_classes=["sd-mb-3", *(classes or [])], title_classes=[], body_classes=[],
        children=[nodes.rubric(title, title), *children],
    )


def tab_set(tabs: list[tuple[str, str, list[nodes.Node]]], sync_group: str,
            classes: list[str] | None = None) -> nodes.container:
    """Tabs of ``sync_group``, from (label, sync id, content) triples."""
    items = []
    for label, sync_id, content in tabs:
        title = nodes.rubric(label, label, classes=["sd-tab-label"], sync_id=sync_id, sync_group=sync_group)
        body = create_component("tab-content", classes=["sd-tab-content"], children=content)
        items.append(create_component("tab-item", classes=["sd-tab-item"], selected=False, children=[title, body]))
    return create_component("tab-set", classes=["sd-tab-set", *(classes or [])], children=items)
