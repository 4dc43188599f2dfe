"""The extension's typed ``errorkb_*`` options, declared once and registered in ``setup``."""

from __future__ import annotations

import dataclasses
from typing import Any

from sphinx.application import Sphinx


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
    Option("errorkb_repository_url", "", (str,),
           "The site's GitHub repository (https://github.com/OWNER/REPO): a paste that matches nothing is offered "
           "its missing-error issue form (.github/ISSUE_TEMPLATE/missing-error.yml), prefilled; empty: no such link.",
           "html"),
)


def setup_config(app: Sphinx) -> None:
    for option in OPTIONS:
        app.add_config_value(option.name, option.default, option.rebuild, types=option.types, description=option.doc)
