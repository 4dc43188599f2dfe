"""What a snippet may require beyond Python packages: the hardware a site names, and what a machine has.

The engine knows no hardware.  A site that runs snippets needing devices names a *profile* with
``errorkb_hardware`` (``"package.module"`` whose ``PROFILE`` it is, or ``"package.module:NAME"``);
errorkb ships one for accelerators, :mod:`errorkb.examples.accelerators`.  A profile reads the
words of ``:requires:`` that name hardware (:meth:`Profile.need`), and probes the machine once
(:meth:`Profile.probe`) for a :class:`Machine` that says what a need lacks and what a snippet ran on.
Without a profile every word of ``:requires:`` is a Python package.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import platform
from typing import Protocol, cast


@dataclasses.dataclass(frozen=True)
class HardwareNeed:
    """One need of a snippet, as its profile read it: a name, and a minimum for a threshold."""

    name: str
    minimum: int | None = None
    text: str = ""  # as the profile writes it back: ``gpu-memory>=40G``

    def __str__(self) -> str:
        return self.text or self.name


class Machine(Protocol):
    def gap(self, need: HardwareNeed) -> str | None:
        """Why this machine cannot meet ``need`` (``needs a TPU``), or None."""

    def describe(self, needs: tuple[HardwareNeed, ...]) -> str:
        """What a snippet with these needs runs on here (``GPU (NVIDIA H100)``); part of its cache key."""


class Profile(Protocol):
    #: The hardware words it reads, for messages: ``cuda, gpu, gpu-memory>=40G``.
    syntax: str

    def need(self, item: str) -> HardwareNeed | None:
        """The need one item of ``:requires:`` names; None when it names no hardware (a package, then).

        Raises ValueError, with what to write instead, for an item that names hardware wrongly."""

    def probe(self) -> Machine:
        """What this machine has (called once per process and cached by the caller)."""

    def __hash__(self) -> int:
        """Profiles are hashable: what one probes is cached per profile."""


class _Plain:
    """The machine as a site without a profile sees it: its processor only."""

    def gap(self, need: HardwareNeed) -> str | None:
        return f"needs {need}"

    def describe(self, needs: tuple[HardwareNeed, ...]) -> str:
        return f"CPU ({platform.machine()})"


class NoHardware:
    """The profile of a site that names none."""

    syntax = ""

    def need(self, item: str) -> HardwareNeed | None:
        return None

    def probe(self) -> Machine:
        return _Plain()


NO_HARDWARE: Profile = NoHardware()


@functools.cache
def load_profile(name: str) -> Profile:
    """The profile ``errorkb_hardware`` names (none for ''); ValueError says what is wrong."""
    if not name:
        return NO_HARDWARE
    module_name, _, attribute = name.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"errorkb_hardware = {name!r}: cannot import {module_name!r} ({exc})") from None
    profile = getattr(module, attribute or "PROFILE", None)
    if not all(hasattr(profile, a) for a in ("syntax", "need", "probe")):
        raise ValueError(f"errorkb_hardware = {name!r}: no hardware profile there "
                         f"(an object with syntax, need() and probe(), named {attribute or 'PROFILE'})")
    return cast("Profile", profile)
