"""The matching record under an uncaught Python exception, in three set-ups.

- ``python -m errorkb.hook script.py ARGS`` (or ``-m module ARGS``) runs the program as
  ``python script.py ARGS`` does: the same ``sys.argv``, ``__main__`` and ``sys.path[0]``, the
  same traceback and exit status.
- ``import errorkb.hook; errorkb.hook.install()`` in a ``sitecustomize.py`` does the same for
  every program the interpreter runs.
- ``%load_ext errorkb`` in IPython or Jupyter adds it under a cell's error.

The traceback is printed first, by the hook that was there before, and is never changed; the
block follows when a record matches the exception's messages.  Records are loaded only then.
A process that has run out of memory may have no room left for that: :func:`install` maps an
address-space reserve (untouched, so it takes no memory), released before the records are
loaded; if loading or matching still fails, for whatever reason, the hook stays silent.
"""

from __future__ import annotations

import mmap
import os
import sys

TYPE_CHECKING = False  # the hook is imported by every interpreter it is installed in: no typing
if TYPE_CHECKING:
    from types import TracebackType
    from typing import Any

    from .answers import Answers

#: The module that ``python -m errorkb.hook`` runs, which hands over to this one.
PUBLIC_NAME = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "hook.py")
#: Bytes of address space kept back for loading the records after a MemoryError.
RESERVE = 64 << 20
USAGE = "usage: python -m errorkb.hook (SCRIPT | -m MODULE) [ARGS...]"

_reserve: mmap.mmap | None = None
_previous_hook: Any = None
_answers: Answers | None = None


def _hold_reserve() -> None:
    global _reserve
    if _reserve is None:
        try:
            _reserve = mmap.mmap(-1, RESERVE)
        except (OSError, ValueError):
            _reserve = None


def _release_reserve() -> None:
    global _reserve
    if _reserve is not None:
        _reserve.close()
        _reserve = None


def exception_text(exc: BaseException) -> str:
    """The messages of ``exc``, of the exceptions it was raised from or during, and of the
    members of exception groups: what a traceback shows but its frames, oldest first."""
    import traceback

    parts: list[str] = []
    seen: set[int] = set()
    pending = [exc]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        parts.append("".join(traceback.format_exception_only(type(current), current)))
        if isinstance(current, BaseExceptionGroup):
            pending += current.exceptions
        nested = current.__cause__ or (None if current.__suppress_context__ else current.__context__)
        if nested is not None:
            pending.append(nested)
    return "".join(reversed(parts))


def explain_exception(exc: BaseException) -> None:
    """Print the block of the record matching ``exc`` on standard error; silent on any failure."""
    global _answers
    if isinstance(exc, KeyboardInterrupt):
        return
    try:
        _release_reserve()
        if _answers is None:
            from .answers import Answers

            _answers = Answers.load()
        block = _answers.block(exception_text(exc))
        if block:
            sys.stderr.write(block)
            sys.stderr.flush()
    except (Exception, KeyboardInterrupt):  # MemoryError included: the traceback is already out
        pass
    finally:
        _hold_reserve()


def excepthook(etype: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
    (_previous_hook or sys.__excepthook__)(etype, value, tb)
    explain_exception(value)


def install() -> None:
    """Add the block under every uncaught exception of this interpreter; idempotent."""
    global _previous_hook
    if sys.excepthook is not excepthook:
        _previous_hook = sys.excepthook
        sys.excepthook = excepthook
    _hold_reserve()


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext errorkb``: the block under the error of a cell."""
    _hold_reserve()
    ipython.events.register("post_run_cell", _after_cell)


def unload_ipython_extension(ipython: Any) -> None:
    ipython.events.unregister("post_run_cell", _after_cell)


def _after_cell(result: Any) -> None:
    if result.error_in_exec is not None:
        explain_exception(result.error_in_exec)


def main(argv: list[str] | None = None) -> int:
    """Run a script or module as the interpreter would, with the hook installed."""
    import runpy

    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help") or args == ["-m"]:
        print(USAGE, file=sys.stderr)
        return 0 if args[:1] in (["-h"], ["--help"]) else 2
    if args[0] != "-m" and not os.path.exists(args[0]):
        print(f"{sys.executable}: can't open file {os.path.abspath(args[0])!r}: No such file or directory",
              file=sys.stderr)
        return 2
    install()
    sys.argv = args[1:] if args[0] == "-m" else args
    try:
        if args[0] == "-m":
            runpy.run_module(args[1], run_name="__main__", alter_sys=True)
        elif os.path.isfile(args[0]):
            _run_file(args[0])
        else:  # a folder or zip file with a __main__.py
            sys.path[0] = os.path.abspath(args[0])
            runpy.run_path(args[0], run_name="__main__")
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException as exc:
        own = {__file__, PUBLIC_NAME, runpy.__file__, "<frozen runpy>"}
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename in own:
            tb = tb.tb_next
        sys.excepthook(type(exc), exc.with_traceback(tb), tb)
        return 1
    return 0


def _run_file(path: str) -> None:
    """Run a script file as the module ``__main__``, which it stays, as ``python path`` does."""
    import builtins
    import importlib.machinery
    import types

    full = os.path.abspath(path)
    with open(full, "rb") as source:
        code = compile(source.read(), full, "exec")
    module = types.ModuleType("__main__")
    module.__file__ = full
    module.__loader__ = importlib.machinery.SourceFileLoader("__main__", full)
    module.__dict__["__builtins__"] = builtins
    sys.modules["__main__"] = module
    sys.path[0] = os.path.dirname(os.path.realpath(full))
    exec(code, module.__dict__)


if __name__ == "__main__":  # one module state: that of errorkb.hook, whatever runs it
    from errorkb.tools.hook import main as hook_main

    sys.exit(hook_main())
