"""What every HTML page needs to be usable without a mouse or sight, whatever writes its parts.

At ``html-page-context``, in the page's body and in the navigation its theme asks for:

* a caption that Sphinx marks ``role="heading"`` (a toctree's caption) gets the level that role
  needs (``aria-level="2"``);
* a code block, which scrolls sideways when its lines are long, can take the keyboard's focus
  (``tabindex="0"``), so that it can be scrolled without a mouse.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from sphinx.application import Sphinx

_CAPTION = re.compile(r'(<p class="caption" role="heading")(?![^>]*aria-level)')
_CODE = re.compile(r'(<div class="highlight"><pre)(?=>)')


def accessible(html: str) -> str:
    """``html`` with captions given a heading level and code blocks made focusable."""
    return _CODE.sub(r'\1 tabindex="0"', _CAPTION.sub(r'\1 aria-level="2"', html))


def _wrapped(render: Callable[..., str]) -> Callable[..., str]:
    def render_accessible(*args: Any, **kwargs: Any) -> Any:
        out = render(*args, **kwargs)
        return accessible(out) if isinstance(out, str) else out  # a theme may ask for a parsed tree

    return render_accessible


def make_accessible(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """``html-page-context``: the body, and the theme's navigation when it asks for it."""
    if "body" in context:
        context["body"] = accessible(context["body"])
    for name in ("toctree", "generate_toctree_html"):
        if callable(context.get(name)):
            context[name] = _wrapped(context[name])
    for name in ("furo_navigation_tree",):
        if isinstance(context.get(name), str):
            context[name] = accessible(context[name])


def setup_accessibility(app: Sphinx) -> None:
    app.connect("html-page-context", make_accessible, priority=900)
