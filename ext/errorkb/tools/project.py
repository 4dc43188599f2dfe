"""A site as the tools that run without Sphinx see it: its folder, its settings, its records.

The command line, the pytest plugin and the answers behind ``errorkb run``, the hook and the MCP
server find the site's ``conf.py`` (given, or in the working folder or a parent) and read the
same ``errorkb_*`` options the build reads (:func:`errorkb.core.settings.settings_from`), so a check
passes or fails as the build would.  Nothing here imports Sphinx.  :func:`site_of` finds a site
with ``os.path`` alone, and the records' model is imported only when a site is opened, so that
the compiled catalogue (:mod:`.catalogue_cache`) is found and read without either.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from pathlib import Path

    from ..core.records import Catalogue, Problem
    from ..core.settings import Settings

CONF = "conf.py"
#: Sphinx's own options that the tools read too: which pages a site has, and its public URL.
SPHINX_OPTIONS = ("include_patterns", "exclude_patterns", "html_baseurl")


class ProjectError(Exception):
    """The site cannot be used: no records folder, a bad option; the message says which."""


class Project(NamedTuple):
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
        from ..core.records import load_catalogue

        return load_catalogue(self.records, schema=self.settings.schema, root=self.root,
                              max_bytes=self.settings.max_record_size)

    def require_records(self) -> None:
        """Raise :class:`ProjectError` when the records folder is missing or holds no record."""
        from ..core.records import record_files

        where = self.records.relative_to(self.root) if self.records.is_relative_to(self.root) else self.records
        if not self.records.is_dir():
            raise ProjectError(f"no records folder {where}/ in {self.root} "
                               f"(errorkb_records_dir{f' in {self.conf}' if self.conf else ''})")
        if not record_files(self.records):
            raise ProjectError(f"no record in {where}/: records are {where}/<source>/<id>.md")


def find_conf(start: str) -> str | None:
    """The ``conf.py`` in the folder ``start`` or the nearest of its parents, if any."""
    folder = os.path.abspath(start)
    while not os.path.isfile(os.path.join(folder, CONF)):
        if os.path.dirname(folder) == folder:
            return None
        folder = os.path.dirname(folder)
    return os.path.join(folder, CONF)


def site_of(root: str | os.PathLike[str] | None = None, conf: str | os.PathLike[str] | None = None
            ) -> tuple[str, str | None]:
    """The site's folder and its ``conf.py``: ``conf``, else the one in ``root``, else the one found
    from the working folder upward; without any, the folder is ``root`` or the working one."""
    if conf is None and root is not None:
        conf = os.path.join(root, CONF) if os.path.isfile(os.path.join(root, CONF)) else None
    elif conf is None:
        conf = find_conf(os.getcwd())
    if conf is not None:
        return os.path.dirname(conf) or os.curdir, os.fspath(conf)
    return (os.fspath(root) if root is not None else os.getcwd()), None


def open_project(root: str | os.PathLike[str] | None = None, *, conf: str | os.PathLike[str] | None = None,
                 records: str | None = None) -> Project:
    """The site :func:`site_of` finds, with the settings of its ``conf.py``.

    Without any ``conf.py`` the folder is a site with the default settings.  ``records``
    overrides ``errorkb_records_dir``.  :class:`ProjectError` names a bad option.
    """
    from pathlib import Path

    from ..core.settings import SettingsError, line_of, settings_from, site_options

    found, conf_file = site_of(root, conf)
    folder, conf = Path(found), Path(conf_file) if conf_file is not None else None
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
    return Project(folder, site, conf, **sphinx)
