"""The ``errorkb_*`` options in the build: registered from their one declaration
(:mod:`errorkb.core.settings`), validated once at ``config-inited``, read through :func:`settings`.

A bad value stops the build with Sphinx's ``ConfigError``, after one line that names the option
at its line of ``conf.py``; a process that embeds Sphinx gets the exception, not an exit."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx.errors import ConfigError
from sphinx.util import logging

from ..core.settings import OPTIONS, Settings, SettingsError, line_of, settings_from
from ..examples.hardware import load_profile

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config

logger = logging.getLogger(__name__)


def settings(config: Config) -> Settings:
    """The site's :class:`Settings`, made once from its configuration."""
    made = config.__dict__.get("_errorkb_settings")  # '_': not pickled with the environment
    if made is None:
        made = settings_from({option.name: getattr(config, option.name) for option in OPTIONS})
        config._errorkb_settings = made
    return made


def check_config(app: Sphinx, config: Config) -> None:
    """``config-inited``: validate the options once; a bad one is a ``ConfigError`` naming it."""
    config.__dict__.pop("_errorkb_settings", None)
    try:
        load_profile(settings(config).hardware)
    except SettingsError as exc:
        raise _refused(app, exc.option, str(exc)) from None
    except ValueError as exc:  # the hardware profile
        raise _refused(app, "errorkb_hardware", str(exc)) from None


def _refused(app: Sphinx, option: str, message: str) -> ConfigError:
    """Log the one line that matters, at the option's line of conf.py, and the error to raise."""
    conf = Path(app.confdir) / "conf.py" if app.confdir else None
    line = line_of(conf, option) if conf else None
    logger.error(message, location=f"{conf}:{line}" if line else conf, type="errorkb", subtype="config")
    return ConfigError(message)


def setup_config(app: Sphinx) -> None:
    any_type: Any = Any  # every value is checked by the settings' own validation, before Sphinx's
    for option in OPTIONS:
        app.add_config_value(option.name, option.default, option.rebuild, types=any_type, description=option.doc)
    app.connect("config-inited", check_config)
