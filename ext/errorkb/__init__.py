"""errorkb: a Sphinx extension that turns error records into a cross-linked knowledge base."""

from __future__ import annotations

# The command line and the Python hook (in every interpreter, through sitecustomize) import this
# package: it imports nothing at run time, not even ``typing``.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType
    from typing import Any

    from sphinx.application import Sphinx

__version__ = "0.1.0"

#: Modules that moved into the layers (``core``, ``site``, ``tools``), by their old names: importing
#: ``errorkb.records`` still works, with a DeprecationWarning, until the next release.
MOVED = {
    **dict.fromkeys(("records", "schema", "markdown", "templates", "matcher", "lookup", "diagnoses",
                     "gc_pause", "record_cache"), "core"),
    **dict.fromkeys(("domain", "pages", "catalogue", "indexes", "links", "outputs", "search", "containment",
                     "reference", "badges", "design", "diagnoses_table", "config"), "site"),
    **dict.fromkeys(("cli", "scaffold", "lint", "project", "answers", "run", "mcp_server"), "tools"),
}


class _MovedModules:
    """Finds ``errorkb.<old name>`` and gives the module at its new place."""

    @staticmethod
    def find_spec(name: str, path: Sequence[str] | None = None, target: ModuleType | None = None) -> ModuleSpec | None:
        old = name.partition("errorkb.")[2] if name.startswith("errorkb.") else ""
        if old not in MOVED:
            return None
        from importlib.machinery import ModuleSpec

        # A loader by its methods: importlib.abc, whose Loader typeshed asks for, is slow to import.
        return ModuleSpec(name, _MovedModules(), origin=f"errorkb.{MOVED[old]}.{old}")  # type: ignore[arg-type]

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        import importlib
        import warnings

        new = str(spec.origin)
        warnings.warn(f"{spec.name} is now {new}; the old name goes in the next release", DeprecationWarning, stacklevel=2)
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        pass


import sys as _sys  # noqa: E402  (loaded by every interpreter already)

if not any(isinstance(f, _MovedModules) for f in _sys.meta_path):
    _sys.meta_path.append(_MovedModules())


def setup(app: Sphinx) -> dict[str, Any]:
    from pathlib import Path

    from .examples.build import setup_examples
    from .site.accessibility import setup_accessibility
    from .site.badges import setup_badges
    from .site.catalogue import setup_catalogue
    from .site.config import setup_config
    from .site.containment import setup_containment
    from .site.contribute import setup_contribute
    from .site.coverage import setup_coverage
    from .site.domain import STATE_VERSION, load_records
    from .site.indexes import setup_indexes
    from .site.links import setup_links
    from .site.outputs import setup_outputs
    from .site.pages import setup_pages
    from .site.reference import setup_reference
    from .site.search import setup_search

    app.setup_extension("myst_parser")
    app.setup_extension("sphinx_design")
    setup_config(app)
    setup_containment(app)
    app.setup_extension("errorkb.site.domain")
    app.connect("builder-inited", load_records)
    setup_pages(app)
    setup_catalogue(app)
    setup_indexes(app)
    setup_coverage(app)
    setup_links(app)
    setup_outputs(app)
    setup_reference(app)
    setup_search(app)
    setup_contribute(app)
    setup_examples(app)
    setup_accessibility(app)
    setup_badges(app)
    here = Path(__file__).parent / "site"
    app.connect("config-inited", lambda app, config: config.html_static_path.append(str(here / "static")))
    app.connect("config-inited", lambda app, config: config.templates_path.append(str(here / "layouts")))
    app.add_css_file("errorkb.css")
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True, "env_version": STATE_VERSION}


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext errorkb``: the matching record's block under a cell's error."""
    from .tools.hook import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    from .tools.hook import unload_ipython_extension as unload

    unload(ipython)
