"""Run one snippet and decide whether it did what its page claims.

``reproduces`` passes when the snippet fails and a line of its output (or two adjacent lines
joined, for a wrapped message) matches one of its record's message templates; ``fixes`` when it
exits with status 0; ``shows`` when its doctest session prints what the page shows.
Nothing here imports Sphinx.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..core import matcher
from ..core.templates import compile_template
from . import sandbox
from .spec import Snippet

PASSED, FAILED, NOT_RUN = "passed", "failed", "not run"


@dataclasses.dataclass(frozen=True)
class Result:
    """A snippet's status, why, and what it printed."""

    status: str  # PASSED, FAILED or NOT_RUN
    reason: str  # for PASSED: where it ran; otherwise: why it failed or did not run
    output: str = ""
    isolation: str = ""  # the sandbox's protections, for the page
    duration: float = 0.0
    transient: bool = False  # caused by the machine or the sandbox, not the snippet: never cached

    def as_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Result":
        return cls(**data)


def sandbox_run(snippet: Snippet) -> sandbox.Outcome:
    """Run the snippet's code (or its doctest session) in the sandbox."""
    limits = sandbox.Limits(timeout=snippet.timeout, memory=snippet.memory)
    accelerators = bool(snippet.hardware)
    if snippet.kind == "shows":
        files = {"session.txt": snippet.code, "session.py": sandbox.SESSION.read_text(encoding="utf-8")}
        argv = ["session.py", "session.txt", *([str(snippet.tolerance)] if snippet.tolerance else [])]
        return sandbox.run(files, argv, limits, accelerators=accelerators)
    return sandbox.run({"snippet.py": snippet.code}, ["snippet.py"], limits, accelerators=accelerators)


def _size(n: int) -> str:
    return f"{n / 1024**2:g} MiB" if n >= 1024**2 else f"{n} bytes"


def _stopped(snippet: Snippet, outcome: sandbox.Outcome) -> str | None:
    """Why the sandbox stopped the run, if it did."""
    if outcome.timed_out:
        return f"stopped: still running after the {snippet.timeout} s time limit"
    if outcome.flooded:
        return f"stopped: printed more than {_size(sandbox.FLOOD_BYTES)} of output"
    if outcome.signal_name == "SIGXFSZ":
        return f"stopped: wrote a file larger than {_size(sandbox.FILE_BYTES)}"
    if outcome.signal_name:
        hint = f" (it may have run out of its {_size(snippet.memory)} memory limit)" if outcome.signal_name in ("SIGKILL", "SIGSEGV", "SIGABRT") else ""
        return f"killed by {outcome.signal_name}{hint}"
    return None


def matching_line(templates: tuple[str, ...], output: str) -> str | None:
    """The first line (or pair of adjacent lines) of ``output`` matched by a template, found as
    the lookup finds it (``matcher.find``)."""
    found = matcher.find(matcher.Filed([compile_template(t) for t in templates]), output.splitlines())
    return found[0][1][2].strip() if found else None


def verdict(snippet: Snippet, outcome: sandbox.Outcome, where: str) -> Result:
    """Compare what happened with what the snippet claims."""
    def result(status: str, reason: str, transient: bool = False) -> Result:
        return Result(status, reason, outcome.output, outcome.isolation, round(outcome.duration, 2), transient)

    if outcome.sandbox_error:
        return result(NOT_RUN, outcome.sandbox_error, transient=True)
    stopped = _stopped(snippet, outcome)
    if stopped:
        # Time limits and SIGKILL (the sandbox sends it only at the time limit) depend on how
        # busy the machine is, or on its out-of-memory killer, as much as on the snippet.
        return result(FAILED, stopped, transient=outcome.timed_out or outcome.signal_name == "SIGKILL")
    if snippet.kind == "reproduces":
        if outcome.returncode == 0:
            return result(FAILED, "ran without error, but it claims to reproduce this page's error")
        if matching_line(snippet.templates, outcome.output) is None:
            return result(FAILED, f"failed (exit status {outcome.returncode}), but printed none of this page's messages")
        return result(PASSED, where)
    if outcome.returncode != 0:
        what = "its output differs from the session shown" if snippet.kind == "shows" else "it should run cleanly"
        return result(FAILED, f"exit status {outcome.returncode}: {what}")
    return result(PASSED, where)


def run_one(snippet: Snippet, where: str) -> Result:
    return verdict(snippet, sandbox_run(snippet), where)


