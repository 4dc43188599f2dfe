"""The ``errorkb_*`` options in the build: registered, validated once at ``config-inited``, read
through :func:`settings`.  Their declaration and the typed :class:`Settings` are in
:mod:`errorkb.core.settings`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.settings import OPTIONS, Settings, settings_from
from ..examples.hardware import load_profile

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config


def settings(config: Config) -> Settings:
    """The site's :class:`Settings`, made once from its configuration."""
    made = config.__dict__.get("_errorkb_settings")  # '_': not pickled with the environment
    if made is None:
        made = settings_from({option.name: getattr(config, option.name) for option in OPTIONS})
        config._errorkb_settings = made
    return made


def check_config(app: Sphinx, config: Config) -> None:
    """``config-inited``: validate the options once; a bad value stops the build with one line naming it."""
    from sphinx.util import logging

    config.__dict__.pop("_errorkb_settings", None)
    try:
        load_profile(settings(config).hardware)
    except ValueError as exc:
        logging.getLogger(__name__).error("conf.py: %s", exc, type="errorkb", subtype="config")
        raise SystemExit(2) from None


def setup_config(app: Sphinx) -> None:
    for option in OPTIONS:
        app.add_config_value(option.name, option.default, option.rebuild, types=option.types, description=option.doc)
    app.connect("config-inited", check_config)
