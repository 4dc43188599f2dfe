"""What this machine offers a snippet: Python packages, programs, and the hardware its site's profile probes.

Packages are looked for where the snippet's Python looks (:func:`.sandbox.package_folders`), and
programs on the sandbox's ``PATH``, their version read as usual: the first version number that
``PROGRAM --version`` prints, run in the sandbox.  ``unmet`` says why a snippet cannot run here
(or None); ``fingerprint`` is what a cached result depends on; ``where`` describes, for a badge,
what a snippet ran on.
"""

from __future__ import annotations

import functools
import platform
import re
import shutil
import sys
from importlib import metadata

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from . import sandbox
from .hardware import Machine, Profile
from .spec import Snippet

_VERSION = re.compile(r"(?<![\w.])v?([0-9]+(?:\.[0-9]+)+)")


@functools.cache
def machine(profile: Profile) -> Machine:
    """What this machine has, as ``profile`` sees it: probed once per process."""
    return profile.probe()


@functools.cache
def _distributions() -> dict[str, str]:
    """Name -> version of every distribution a snippet's Python can import, read once per process."""
    found: dict[str, str] = {}
    for dist in metadata.distributions(path=sandbox.package_folders()):
        name = dist.metadata["Name"]
        if name:
            found.setdefault(canonicalize_name(name), dist.version)
    return found


def installed_version(name: str) -> str | None:
    return _distributions().get(canonicalize_name(name))


def program_path(name: str) -> str | None:
    """The program ``name`` on the sandbox's PATH (whose folders the sandbox shows as the host has them)."""
    return shutil.which(name, path=sandbox.PATH)


@functools.cache
def program_version(name: str) -> str:
    """The version ``name --version`` prints, run in the sandbox, or why it cannot be read."""
    path = program_path(name)
    if path is None:
        return f"no program {name} on the sandbox's PATH"
    why = sandbox.unavailable()
    if why:
        return why
    outcome = sandbox.run({}, [path, "--version"], sandbox.Limits(timeout=30, memory=4 * 1024**3))
    found = _VERSION.search(outcome.output)
    return found.group(1) if found and outcome.returncode == 0 else \
        f"'{name} --version' printed no version ({outcome.output.strip()[:80] or f'exit status {outcome.returncode}'})"


def _readable(version: str) -> bool:
    try:
        Version(version)
    except InvalidVersion:
        return False
    return True


def _package_gap(text: str) -> str | None:
    req = Requirement(text)
    version = installed_version(req.name)
    if version is None:
        return f"needs {text} ({req.name} is not installed)"
    if req.specifier and not req.specifier.contains(version, prereleases=True):
        return f"needs {text} (found {req.name} {version})"
    return None


def _program_gap(text: str) -> str | None:
    req = Requirement(text)
    if program_path(req.name) is None:
        return f"needs {text} (no program {req.name} on the sandbox's PATH)"
    if not req.specifier:
        return None
    version = program_version(req.name)
    if not _readable(version):
        return f"needs {text} (cannot read its version: {version})"
    if not req.specifier.contains(version, prereleases=True):
        return f"needs {text} (found {req.name} {version})"
    return None


def unmet(snippet: Snippet, hw: Machine) -> str | None:
    """Why the snippet cannot run here, or None when everything it needs is present."""
    gaps = [*map(_package_gap, snippet.packages), *map(_program_gap, snippet.programs),
            *(hw.gap(n) for n in snippet.hardware)]
    return "; ".join(g for g in gaps if g) or None


def package_versions(snippet: Snippet) -> dict[str, str]:
    """Versions of the required packages and of the packages they depend on directly."""
    versions: dict[str, str] = {}
    for text in snippet.packages:
        name = Requirement(text).name
        versions[name] = installed_version(name) or "missing"
        try:
            requires = metadata.requires(name) or ()
        except metadata.PackageNotFoundError:
            requires = ()
        for dep in requires:
            dep_req = Requirement(dep)
            if dep_req.marker is None:  # extras and platform-specific dependencies are left out
                versions.setdefault(dep_req.name, installed_version(dep_req.name) or "missing")
    return dict(sorted(versions.items()))


def program_versions(snippet: Snippet) -> dict[str, str]:
    """The version of each program the snippet requires (the first that ``--version`` printed)."""
    names = [Requirement(text).name for text in snippet.programs]
    return {name: program_version(name) for name in names}


def fingerprint(snippet: Snippet, hw: Machine) -> dict[str, object]:
    """Everything besides the snippet's text that its result depends on."""
    return {
        "python": sys.version,
        "platform": platform.platform(),
        "packages": package_versions(snippet),
        "programs": program_versions(snippet),
        "device": hw.describe(snippet.hardware),
    }


def where(snippet: Snippet, hw: Machine) -> str:
    """``Python 3.11.7, jax 0.10.2 on CPU (x86_64)``: what a passing badge says it ran on."""
    named = [Requirement(t).name for t in snippet.packages]
    versions = package_versions(snippet)
    programs = program_versions(snippet)
    first = f"Python {platform.python_version()}" if snippet.language.name == "python" else snippet.language.name
    parts = [first, *(f"{n} {versions[n]}" for n in named), *(f"{n} {v}" for n, v in programs.items())]
    return f"{', '.join(parts)} on {hw.describe(snippet.hardware)}"
