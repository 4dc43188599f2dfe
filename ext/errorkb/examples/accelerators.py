"""A hardware profile for accelerators: NVIDIA and AMD GPUs, TPUs, AWS Neuron devices.

A site whose snippets need them sets ``errorkb_hardware = "errorkb.examples.accelerators"``;
``:requires:`` then reads ``cuda``, ``gpu``, ``tpu``, ``neuron``, ``gpu-memory>=40G`` and ``gpus>=4``.
"""

from __future__ import annotations

import dataclasses
import glob
import platform
import re
import shutil
import subprocess

from ..core.values import parse_size
from .hardware import HardwareNeed

NAMES = ("cuda", "gpu", "tpu", "neuron")
_THRESHOLD = re.compile(r"^(gpu-memory|gpus)\s*>=\s*(\S+)$")
_THRESHOLD_NAME = re.compile(r"^(gpu-memory|gpus)(?![\w-])")


@dataclasses.dataclass(frozen=True)
class Accelerators:
    """What a machine has: one (name, memory in bytes) per GPU, and the other devices."""

    gpus: tuple[tuple[str, int], ...] = ()
    cuda: bool = False
    tpu: bool = False
    neuron: bool = False

    def gap(self, need: HardwareNeed) -> str | None:
        if need.name == "cuda":
            return None if self.cuda else "needs a CUDA GPU"
        if need.name == "gpu":
            return None if self.gpus else "needs a GPU"
        if need.name == "tpu":
            return None if self.tpu else "needs a TPU"
        if need.name == "neuron":
            return None if self.neuron else "needs an AWS Neuron device"
        assert need.minimum is not None
        if need.name == "gpus":
            return None if len(self.gpus) >= need.minimum else f"needs {need.minimum} GPUs (found {len(self.gpus)})"
        largest = max((mem for _, mem in self.gpus), default=0)
        if largest >= need.minimum:
            return None
        return f"needs a GPU with {need.minimum / 1024**3:g} GiB of memory" + (
            f" (the largest here has {largest / 1024**3:.0f} GiB)" if self.gpus else "")

    def describe(self, needs: tuple[HardwareNeed, ...]) -> str:
        if self.gpus and any(n.name in ("cuda", "gpu", "gpu-memory", "gpus") for n in needs):
            names = sorted({name for name, _ in self.gpus})
            count = f"{len(self.gpus)}x " if len(self.gpus) > 1 else ""
            return f"GPU ({count}{', '.join(names)})"
        if self.tpu and any(n.name == "tpu" for n in needs):
            return "TPU"
        if self.neuron and any(n.name == "neuron" for n in needs):
            return "AWS Neuron"
        return f"CPU ({platform.machine()})"


class AcceleratorProfile:
    syntax = "cuda, gpu, tpu, neuron, gpu-memory>=40G, gpus>=4"

    def need(self, item: str) -> HardwareNeed | None:
        if item in NAMES:
            return HardwareNeed(item, text=item)
        m = _THRESHOLD.match(item)
        if m:
            name, value = m.groups()
            if name == "gpu-memory":
                size = parse_size(value)
                if not size:
                    raise ValueError(f"{item!r}: give the memory as a size such as 40G")
                return HardwareNeed(name, int(size), f"gpu-memory>={int(size) / 1024**3:g}G")
            if not value.isdigit() or int(value) < 1:
                raise ValueError(f"{item!r}: give the number of GPUs, e.g. gpus>=4")
            return HardwareNeed(name, int(value), f"gpus>={int(value)}")
        if _THRESHOLD_NAME.match(item):
            raise ValueError(f"{item!r}: hardware thresholds are written gpu-memory>=40G or gpus>=4")
        return None

    def probe(self) -> Accelerators:
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
        return Accelerators(
            gpus=tuple(gpus), cuda=cuda,
            tpu=bool(glob.glob("/dev/accel[0-9]*") or glob.glob("/dev/vfio/[0-9]*")),
            neuron=bool(glob.glob("/dev/neuron[0-9]*")),
        )


PROFILE = AcceleratorProfile()
