"""The extension's typed ``errorkb_*`` options, declared once and registered in ``setup``.

Tools that run without Sphinx (``errorkb check``, the pytest plugin) read the same options from
the site's ``conf.py`` with :func:`site_options`.  Nothing here imports Sphinx until ``setup``.
"""

from __future__ import annotations

import dataclasses
import runpy
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .records import MAX_RECORD_BYTES
from .templates import parse_size

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config


@dataclasses.dataclass(frozen=True)
class Ceilings:
    """The most a snippet of the site may ask for (``errorkb_max_timeout``, ``errorkb_max_memory``)."""

    timeout: int = 600
    memory: int = 4 * 1024**3  # JAX's CPU runtime needs about 2 GiB of address space to start


@dataclasses.dataclass(frozen=True)
class Option:
    name: str
    default: Any
    types: tuple[type, ...]
    doc: str
    rebuild: str = "env"


OPTIONS: tuple[Option, ...] = (
    Option("errorkb_records_dir", "errors", (str,), "Folder of the error records, relative to the source folder."),
    Option("errorkb_run_examples", True, (bool,),
           "Run the snippets during every build, so pages show real statuses (results are cached); "
           "False shows cached results only. ``-b examples`` always runs them.", ""),
    Option("errorkb_base_url", "", (str,), "Public URL of the site, used in absolute links (sitemap, Open Graph).", "html"),
    Option("errorkb_max_timeout", Ceilings.timeout, (int,), "The longest ``:timeout:`` a snippet may ask for, in seconds."),
    Option("errorkb_max_memory", f"{Ceilings.memory // 1024**3}G", (str,),
           "The most ``:memory:`` a snippet may ask for, as a size such as ``4G``."),
    Option("errorkb_max_record_size", f"{MAX_RECORD_BYTES // 1024}K", (str,),
           "The largest record file, as a size such as ``256K``; a larger one is refused before it is parsed."),
    Option("errorkb_allow_raw_html", False, (bool,),
           "Let records publish raw HTML (HTML blocks and inline tags in the prose, the ``raw`` directive); "
           "by default each is refused at its line."),
    Option("errorkb_repository_url", "", (str,),
           "The site's GitHub repository (https://github.com/OWNER/REPO): a paste that matches nothing is offered "
           "its missing-error issue form (.github/ISSUE_TEMPLATE/missing-error.yml), prefilled; empty: no such link.",
           "html"),
    Option("errorkb_llms_summary",
           "A knowledge base of error messages. Each error page gives the exact messages, the causes, "
           "the fixes to try in order, and how to tell which cause applies.", (str,),
           "What the site is about, in a sentence or two: the summary at the top of ``llms.txt``.", "html"),
    Option("errorkb_opensearch_description", "Find an error by its message", (str,),
           "What a browser's address bar says the site's search does (the OpenSearch description).", "html"),
    Option("errorkb_paste_placeholder", "Paste an error message or a log", (str,),
           "The text shown in an empty paste box (the ``errorkb-paste`` directive): an example of what to paste.",
           "html"),
)

DEFAULTS = {option.name: option.default for option in OPTIONS}


def size(values: dict[str, Any], name: str) -> int:
    """The size option ``name`` in bytes; raise ValueError naming it when it is not a size."""
    value = values.get(name, DEFAULTS[name])
    parsed = parse_size(value) if isinstance(value, str) else None
    if not parsed:
        raise ValueError(f"{name} = {value!r} is not a size such as {DEFAULTS[name]!r}")
    return int(parsed)


def ceilings(values: dict[str, Any]) -> Ceilings:
    """The snippet ceilings of a site, from its option values (missing ones take their defaults)."""
    timeout = values.get("errorkb_max_timeout", DEFAULTS["errorkb_max_timeout"])
    if not isinstance(timeout, int) or timeout < 1:
        raise ValueError(f"errorkb_max_timeout = {timeout!r} is not a whole number of seconds")
    return Ceilings(timeout=timeout, memory=size(values, "errorkb_max_memory"))


def option_values(config: Config) -> dict[str, Any]:
    return {option.name: getattr(config, option.name) for option in OPTIONS}


def site_options(root: Path) -> dict[str, Any]:
    """The ``errorkb_*`` options set in ``root/conf.py`` (none when there is no such file)."""
    conf = root / "conf.py"
    values = runpy.run_path(str(conf)) if conf.is_file() else {}
    return {name: value for name, value in values.items() if name in DEFAULTS}


def check_config(app: Sphinx, config: Config) -> None:
    """``config-inited``: a size or ceiling that cannot be read stops the build, naming the option."""
    from sphinx.errors import ConfigError

    try:
        ceilings(option_values(config))
        size(option_values(config), "errorkb_max_record_size")
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def setup_config(app: Sphinx) -> None:
    for option in OPTIONS:
        app.add_config_value(option.name, option.default, option.rebuild, types=option.types, description=option.doc)
    app.connect("config-inited", check_config)
