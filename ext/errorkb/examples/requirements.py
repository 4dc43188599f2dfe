"""What this machine offers a snippet: Python packages and accelerators.

``unmet`` says why a snippet cannot run here (or None); ``fingerprint`` is what a cached
result depends on; ``where`` describes, for a badge, what a snippet ran on.
"""

from __future__ import annotations

import dataclasses
import functools
import glob
import platform
import shutil
import subprocess
import sys
from importlib import metadata

from packaging.requirements import Requirement

from .spec import HardwareNeed, Snippet


@dataclasses.dataclass(frozen=True)
class Hardware:
    """The accelerators found: one (name, memory in bytes) per GPU, and other devices."""

    gpus: tuple[tuple[str, int], ...] = ()
    cuda: bool = False
    tpu: bool = False
    neuron: bool = False

    def describe(self, needs: tuple[HardwareNeed, ...]) -> str:
        """The device a snippet with these needs runs on."""
        if self.gpus and any(n.name in ("cuda", "gpu", "gpu-memory", "gpus") for n in needs):
            names = sorted({name for name, _ in self.gpus})
            count = f"{len(self.gpus)}x " if len(self.gpus) > 1 else ""
            return f"GPU ({count}{', '.join(names)})"
        if self.tpu and any(n.name == "tpu" for n in needs):
            return "TPU"
        if self.neuron and any(n.name == "neuron" for n in needs):
            return "AWS Neuron"
        return f"CPU ({platform.machine()})"


@functools.cache
def probe_hardware() -> Hardware:
    """Look for NVIDIA GPUs (nvidia-smi), AMD GPUs (/dev/kfd), TPUs and Neuron devices."""
    gpus: list[tuple[str, int]] = []
    cuda = False
    smi = shutil.which("nvidia-smi")
    if smi:
        try:
            out = subprocess.run([smi, "--query-gpu=name,memory.total", "--format=csv,noheader,nounits"],
                                 capture_output=True, text=True, timeout=20).stdout
        except (OSError, subprocess.TimeoutExpired):
            out = ""
        for row in out.splitlines():
            name, _, mib = row.rpartition(",")
            if name and mib.strip().isdigit():
                gpus.append((name.strip(), int(mib) * 1024**2))
        cuda = bool(gpus)
    if not gpus and glob.glob("/dev/kfd"):
        gpus = [("AMD GPU", 0) for _ in glob.glob("/dev/dri/renderD*")] or [("AMD GPU", 0)]
    return Hardware(
        gpus=tuple(gpus), cuda=cuda,
        tpu=bool(glob.glob("/dev/accel[0-9]*") or glob.glob("/dev/vfio/[0-9]*")),
        neuron=bool(glob.glob("/dev/neuron[0-9]*")),
    )


def _hardware_gap(need: HardwareNeed, hw: Hardware) -> str | None:
    if need.name == "cuda":
        return None if hw.cuda else "needs a CUDA GPU"
    if need.name == "gpu":
        return None if hw.gpus else "needs a GPU"
    if need.name == "tpu":
        return None if hw.tpu else "needs a TPU"
    if need.name == "neuron":
        return None if hw.neuron else "needs an AWS Neuron device"
    assert need.minimum is not None
    if need.name == "gpus":
        return None if len(hw.gpus) >= need.minimum else f"needs {need.minimum} GPUs (found {len(hw.gpus)})"
    largest = max((mem for _, mem in hw.gpus), default=0)
    if largest >= need.minimum:
        return None
    return f"needs a GPU with {need.minimum / 1024**3:g} GiB of memory" + (
        f" (the largest here has {largest / 1024**3:.0f} GiB)" if hw.gpus else "")


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


def unmet(snippet: Snippet, hw: Hardware) -> str | None:
    """Why the snippet cannot run here, or None when everything it needs is present."""
    gaps = [g for g in (*map(_package_gap, snippet.packages), *(_hardware_gap(n, hw) for n in snippet.hardware)) if g]
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


def fingerprint(snippet: Snippet, hw: Hardware) -> dict[str, object]:
    """Everything besides the snippet's text that its result depends on."""
    return {
        "python": sys.version,
        "platform": platform.platform(),
        "packages": package_versions(snippet),
        "device": hw.describe(snippet.hardware),
    }


def where(snippet: Snippet, hw: Hardware) -> str:
    """``Python 3.11.7, jax 0.10.2 on CPU (x86_64)``: what a passing badge says it ran on."""
    named = [Requirement(t).name for t in snippet.packages]
    versions = package_versions(snippet)
    parts = [f"Python {platform.python_version()}", *(f"{n} {versions[n]}" for n in named)]
    return f"{', '.join(parts)} on {hw.describe(snippet.hardware)}"
