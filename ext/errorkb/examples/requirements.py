"""What this machine offers a snippet: Python packages, and the hardware its site's profile probes.

``unmet`` says why a snippet cannot run here (or None); ``fingerprint`` is what a cached
result depends on; ``where`` describes, for a badge, what a snippet ran on.
"""

from __future__ import annotations

import functools
import platform
import sys
from importlib import metadata

from packaging.requirements import Requirement

from .hardware import Machine, Profile
from .spec import Snippet


@functools.cache
def machine(profile: Profile) -> Machine:
    """What this machine has, as ``profile`` sees it: probed once per process."""
    return profile.probe()


def installed_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _package_gap(text: str) -> str | None:
    req = Requirement(text)
    version = installed_version(req.name)
    if version is None:
        return f"needs {text} ({req.name} is not installed)"
    if req.specifier and not req.specifier.contains(version, prereleases=True):
        return f"needs {text} (found {req.name} {version})"
    return None


def unmet(snippet: Snippet, hw: Machine) -> str | None:
    """Why the snippet cannot run here, or None when everything it needs is present."""
    gaps = [g for g in (*map(_package_gap, snippet.packages), *(hw.gap(n) for n in snippet.hardware)) if g]
    return "; ".join(gaps) or None


def package_versions(snippet: Snippet) -> dict[str, str]:
    """Versions of the required packages and of the packages they depend on directly."""
    versions: dict[str, str] = {}
    for text in snippet.packages:
        name = Requirement(text).name
        versions[name] = installed_version(name) or "missing"
        for dep in metadata.requires(name) or ():
            dep_req = Requirement(dep)
            if dep_req.marker is None:  # extras and platform-specific dependencies are left out
                versions.setdefault(dep_req.name, installed_version(dep_req.name) or "missing")
    return dict(sorted(versions.items()))


def fingerprint(snippet: Snippet, hw: Machine) -> dict[str, object]:
    """Everything besides the snippet's text that its result depends on."""
    return {
        "python": sys.version,
        "platform": platform.platform(),
        "packages": package_versions(snippet),
        "device": hw.describe(snippet.hardware),
    }


def where(snippet: Snippet, hw: Machine) -> str:
    """``Python 3.11.7, jax 0.10.2 on CPU (x86_64)``: what a passing badge says it ran on."""
    named = [Requirement(t).name for t in snippet.packages]
    versions = package_versions(snippet)
    parts = [f"Python {platform.python_version()}", *(f"{n} {versions[n]}" for n in named)]
    return f"{', '.join(parts)} on {hw.describe(snippet.hardware)}"
