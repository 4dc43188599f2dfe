"""Programs the lookup tests need from the system (node, Chromium), installed with apt-get when
missing.  Where one cannot be had, the test is skipped, except under CI (``CI`` set), where it fails."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest


def require(program: str, package: str) -> str:
    """The path of ``program``, installing Debian's ``package`` first when it is missing."""
    found = shutil.which(program)
    if found is None and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True, timeout=600)
        subprocess.run(["apt-get", "install", "-y", "-qq", package], env=env, capture_output=True, timeout=900)
        found = shutil.which(program)
    if found is None:
        unavailable(f"{program} is not installed and could not be installed (apt-get install {package})")
    return found  # type: ignore[return-value]


def unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; these tests may not be skipped in CI")
    pytest.skip(reason)
