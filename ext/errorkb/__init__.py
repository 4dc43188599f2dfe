"""errorkb: a Sphinx extension that turns error records into a cross-linked knowledge base."""

from __future__ import annotations

# The command line and the Python hook (in every interpreter, through sitecustomize) import this
# package: it imports nothing at run time, not even ``typing``.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from sphinx.application import Sphinx

__version__ = "0.1.0"


def setup(app: Sphinx) -> dict[str, Any]:
    from pathlib import Path

    from .catalogue import setup_catalogue
    from .config import setup_config
    from .containment import setup_containment
    from .domain import load_records
    from .examples import setup_examples
    from .indexes import setup_indexes
    from .links import setup_links
    from .outputs import setup_outputs
    from .pages import setup_pages
    from .reference import setup_reference
    from .search import setup_search

    app.setup_extension("myst_parser")
    app.setup_extension("sphinx_design")
    setup_config(app)
    setup_containment(app)
    app.setup_extension("errorkb.domain")
    app.connect("builder-inited", load_records)
    setup_pages(app)
    setup_catalogue(app)
    setup_indexes(app)
    setup_links(app)
    setup_outputs(app)
    setup_reference(app)
    setup_search(app)
    setup_examples(app)
    here = Path(__file__).parent
    app.connect("config-inited", lambda app, config: config.html_static_path.append(str(here / "static")))
    app.connect("config-inited", lambda app, config: config.templates_path.append(str(here / "templates")))
    app.add_css_file("errorkb.css")
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True, "env_version": 4}


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext errorkb``: the matching record's block under a cell's error."""
    from .hook import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    from .hook import unload_ipython_extension as unload

    unload(ipython)
