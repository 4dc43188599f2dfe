"""Pausing Python's garbage collector around the extension's bulk work.

Loading the records, building the lookup index and the catalogue table each create tens of
thousands of objects that are either kept for the whole build or freed as soon as the step
ends, and no reference cycles.  An automatic collection during such a step sweeps the whole
heap of the build, millions of objects by the time pages are written, and allocating that
many objects sets off one collection after another; paused, the step sweeps nothing.
Sphinx's own work runs with the collector as it found it.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Run the body without automatic collections; restore the collector's state after."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
