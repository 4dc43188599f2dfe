"""A site as the tools that run without Sphinx see it: its folder, its settings, its records.

The command line, the pytest plugin and the answers behind ``errorkb run``, the hook and the MCP
server find the site's ``conf.py`` (given, or in the working folder or a parent) and read the
same ``errorkb_*`` options the build reads (:func:`errorkb.core.settings.settings_from`), so a check
passes or fails as the build would.  Nothing here imports Sphinx.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from ..core.settings import Settings, SettingsError, line_of, settings_from, site_options
from ..core.records import Catalogue, Problem, load_catalogue, record_files

CONF = "conf.py"
#: Sphinx's own options that the tools read too: which pages a site has, and its public URL.
SPHINX_OPTIONS = ("include_patterns", "exclude_patterns", "html_baseurl")


class ProjectError(Exception):
    """The site cannot be used: no records folder, a bad option; the message says which."""


@dataclasses.dataclass(frozen=True)
class Project:
    root: Path  # the source folder: where conf.py is
    settings: Settings
    conf: Path | None  # the conf.py read, if any
    include_patterns: tuple[str, ...] = ("**",)
    exclude_patterns: tuple[str, ...] = ()
    html_baseurl: str = ""

    @property
    def records(self) -> Path:
        return self.root / self.settings.records_dir

    def load(self) -> tuple[Catalogue, list[Problem]]:
        """Every record, and every problem found, as the build loads them."""
        return load_catalogue(self.records, schema=self.settings.schema, root=self.root,
                              max_bytes=self.settings.max_record_size)

    def require_records(self) -> None:
        """Raise :class:`ProjectError` when the records folder is missing or holds no record."""
        where = self.records.relative_to(self.root) if self.records.is_relative_to(self.root) else self.records
        if not self.records.is_dir():
            raise ProjectError(f"no records folder {where}/ in {self.root} "
                               f"(errorkb_records_dir{f' in {self.conf}' if self.conf else ''})")
        if not record_files(self.records):
            raise ProjectError(f"no record in {where}/: records are {where}/<source>/<id>.md")


def find_conf(start: Path) -> Path | None:
    """The ``conf.py`` in ``start`` or the nearest of its parents, if any."""
    for folder in (start, *start.parents):
        if (folder / CONF).is_file():
            return folder / CONF
    return None


def open_project(root: Path | None = None, *, conf: Path | None = None, records: str | None = None) -> Project:
    """The site whose ``conf.py`` is ``conf``, else in ``root``, else found from the working folder upward.

    Without any ``conf.py`` the folder (``root`` or the working one) is a site with the default
    settings.  ``records`` overrides ``errorkb_records_dir``.  :class:`ProjectError` names a bad option.
    """
    if conf is None:
        conf = (root / CONF if (root / CONF).is_file() else None) if root is not None else find_conf(Path.cwd())
    values: dict = {}
    if conf is not None:
        try:
            values = site_options(conf, extra=SPHINX_OPTIONS)
        except Exception as exc:  # the site's own code failed: say where, as Sphinx would
            raise ProjectError(f"{conf}: cannot run it: {type(exc).__name__}: {exc}") from None
    sphinx = {key: values.pop(key) for key in SPHINX_OPTIONS if key in values}
    for key in ("include_patterns", "exclude_patterns"):
        if key in sphinx:
            sphinx[key] = tuple(sphinx[key])
    if records is not None:
        values["errorkb_records_dir"] = records
    try:
        site = settings_from(values)
    except SettingsError as exc:
        line = line_of(conf, exc.option) if conf is not None else None
        raise ProjectError(f"{conf or CONF}{f':{line}' if line else ''}: {exc}") from None
    folder = conf.parent if conf is not None else (root if root is not None else Path.cwd())
    return Project(folder, site, conf, **sphinx)
