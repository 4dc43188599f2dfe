"""Run one snippet and decide whether it did what its page claims.

The claims mean the same in every language.  ``reproduces`` passes when the snippet fails and a
line of its output (or two adjacent lines joined, for a wrapped message) matches one of its
record's message templates; those lines are kept, as the message it reproduced.  ``fixes``
passes when it exits with status 0.  ``shows`` passes when its session prints what the page
shows: a doctest session in Python; in another language a transcript, whose prompted lines run
as one program and whose other lines are what it must print (``...`` matches anything, numbers
may differ by ``:tolerance:``).  Nothing here imports Sphinx.
"""

from __future__ import annotations

import dataclasses
import doctest
from typing import Any

from ..core import matcher
from ..core.templates import compile_template
from . import sandbox
from .session import TolerantChecker
from .spec import Snippet

PASSED, FAILED, NOT_RUN = "passed", "failed", "not run"
MATCHED_SHOWN = 5  # lines kept of those that matched the record's templates


@dataclasses.dataclass(frozen=True)
class Result:
    """A snippet's status, why, and what it printed."""

    status: str  # PASSED, FAILED or NOT_RUN
    reason: str  # for PASSED: where it ran; otherwise: why it failed or did not run
    output: str = ""
    isolation: str = ""  # the sandbox's protections, for the page
    duration: float = 0.0
    transient: bool = False  # caused by the machine or the sandbox, not the snippet: never cached
    matched: tuple[str, ...] = ()  # of a passed ``reproduces``: the lines its record's templates matched

    @property
    def by_error(self) -> bool:
        """Not run because something went wrong (the sandbox), not for want of a requirement."""
        return self.status == NOT_RUN and self.transient

    def as_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Result:
        return cls(**{**data, "matched": tuple(data.get("matched", ()))})


@dataclasses.dataclass(frozen=True)
class Transcript:
    """A session in a language other than Python: the commands after its prompts, and what they print."""

    program: str
    expected: str


def transcript(snippet: Snippet) -> Transcript:
    prompt, continuation = snippet.language.prompt, snippet.language.continuation
    commands: list[str] = []
    expected: list[str] = []
    in_command = False
    for line in snippet.code.splitlines():
        if line.startswith(prompt) or line == prompt.rstrip():
            commands.append(line[len(prompt):])
            in_command = True
        elif in_command and continuation and (line.startswith(continuation) or line == continuation.rstrip()):
            commands.append(line[len(continuation):])
        else:
            expected.append(line)
            in_command = False
    return Transcript("\n".join(commands) + "\n", "\n".join(expected).strip("\n") + "\n" if expected else "")


def sandbox_run(snippet: Snippet) -> sandbox.Outcome:
    """Run the snippet's code (or its session) in the sandbox, as its language runs it."""
    limits = sandbox.Limits(timeout=snippet.timeout, memory=snippet.memory)
    accelerators = bool(snippet.hardware)
    if snippet.kind == "shows" and snippet.language.doctest:
        files = {"session.txt": snippet.code, "session.py": sandbox.SESSION.read_text(encoding="utf-8")}
        command = [*sandbox.PYTHON, "session.py", "session.txt", *([str(snippet.tolerance)] if snippet.tolerance else [])]
        return sandbox.run(files, command, limits, accelerators=accelerators)
    name = "snippet" + snippet.language.suffix
    program = transcript(snippet).program if snippet.kind == "shows" else snippet.code
    return sandbox.run({name: program}, sandbox.command(snippet.language.command, name), limits, accelerators=accelerators)


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
        killed_for_memory = outcome.signal_name in ("SIGKILL", "SIGSEGV", "SIGABRT")
        hint = f" (it may have run out of its {_size(snippet.memory)} memory limit)" if killed_for_memory else ""
        return f"killed by {outcome.signal_name}{hint}"
    return None


def matching_lines(templates: tuple[str, ...], output: str) -> tuple[str, ...]:
    """The lines (or pairs of adjacent lines) of ``output`` matched by a template, in order, found
    as the lookup finds them (``matcher.find``)."""
    found = matcher.find(matcher.Filed([compile_template(t) for t in templates]), output.splitlines())
    lines = dict.fromkeys(hit[2].strip() for _, hit in sorted(found, key=lambda f: f[1][0]))
    return tuple(lines)[:MATCHED_SHOWN]


def _differs(expected: str, got: str, tolerance: float | None) -> bool:
    return not TolerantChecker(tolerance).check_output(expected, got, doctest.ELLIPSIS)


def verdict(snippet: Snippet, outcome: sandbox.Outcome, where: str) -> Result:
    """Compare what happened with what the snippet claims."""
    def result(status: str, reason: str, transient: bool = False, matched: tuple[str, ...] = (),
               output: str = outcome.output) -> Result:
        return Result(status, reason, output, outcome.isolation, round(outcome.duration, 2), transient, matched)

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
        matched = matching_lines(snippet.templates, outcome.output)
        if not matched:
            return result(FAILED, f"failed (exit status {outcome.returncode}), but printed none of this page's messages")
        return result(PASSED, where, matched=matched)
    if snippet.kind == "shows" and not snippet.language.doctest:
        expected = transcript(snippet).expected
        if _differs(expected, outcome.output, snippet.tolerance):
            return result(FAILED, "its output differs from the session shown",
                          output=f"Expected:\n{expected}Got:\n{outcome.output}")
        return result(PASSED, where)
    if outcome.returncode != 0:
        what = "its output differs from the session shown" if snippet.kind == "shows" else "it should run cleanly"
        return result(FAILED, f"exit status {outcome.returncode}: {what}")
    return result(PASSED, where)


def run_one(snippet: Snippet, where: str) -> Result:
    return verdict(snippet, sandbox_run(snippet), where)
