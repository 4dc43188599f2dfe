"""errorkb: a Sphinx extension that turns error records into a cross-linked knowledge base."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # `errorkb lookup` imports this package: it must not pay for Sphinx
    from sphinx.application import Sphinx

__version__ = "0.1.0"

STATIC = Path(__file__).parent / "static"


def setup(app: Sphinx) -> dict[str, Any]:
    from .catalogue import setup_catalogue
    from .config import setup_config
    from .containment import setup_containment
    from .examples import setup_examples
    from .indexes import setup_indexes
    from .links import setup_links
    from .outputs import setup_outputs
    from .pages import setup_pages
    from .reference import setup_reference
    from .search import setup_search

    app.setup_extension("myst_parser")
    setup_config(app)
    setup_containment(app)
    app.setup_extension("errorkb.domain")
    setup_pages(app)
    setup_catalogue(app)
    setup_indexes(app)
    setup_links(app)
    setup_outputs(app)
    setup_reference(app)
    setup_search(app)
    setup_examples(app)
    app.connect("config-inited", lambda app, config: config.html_static_path.append(str(STATIC)))
    app.add_css_file("errorkb.css")
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True, "env_version": 3}
