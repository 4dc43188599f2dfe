"""Snippet cache benchmark: a no-change ``make doctest`` against a cold one, on this site.

    python bench/snippet_cache.py [--repeat R] [--json]

Runs the command behind ``make doctest`` (``sphinx-build -b examples``) on the site of this
checkout, with a build folder of its own (the checkout's ``_build`` is left alone), R times:
cold, from an empty build folder (no environment, no cached results, so every snippet runs),
then again with nothing changed.  Side by side, the same pair for ``sphinx-build -b dummy``
with ``errorkb_run_examples`` off, which reads the same pages and runs no snippet: its
no-change run is the floor that Sphinx's own start-up and environment check set.  Prints
medians of wall time; with ``--json`` the last line is one JSON object with
``nochange_ratio`` (no-change over cold ``make doctest``) and ``nochange_over_floor``
(no-change ``make doctest`` over no-change ``-b dummy``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def sphinx(builder: str, build: Path) -> float:
    """Wall seconds of one ``sphinx-build -b builder`` of the site into ``build``."""
    cmd = [sys.executable, "-m", "sphinx", "-q", "-b", builder, "-d", str(build / "doctrees"),
           # other builders run the snippets too unless told not to; -b examples always runs them
           "-D", "errorkb_run_examples=0", str(ROOT), str(build / builder)]
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed (exit {done.returncode}):\n{(done.stdout + done.stderr)[-3000:]}")
    return elapsed


def summary(build: Path) -> str:
    lines = (build / "examples" / "output.txt").read_text(encoding="utf-8").splitlines()
    return lines[-1] if lines else ""


def measure(workdir: Path, repeat: int) -> dict[str, Any]:
    runs: dict[str, list[float]] = {k: [] for k in ("cold_examples", "nochange_examples", "cold_dummy", "nochange_dummy")}
    summaries = []
    for rep in range(repeat):
        for builder in ("examples", "dummy") if rep % 2 == 0 else ("dummy", "examples"):
            build = workdir / builder
            shutil.rmtree(build, ignore_errors=True)
            runs[f"cold_{builder}"].append(sphinx(builder, build))
            if builder == "examples":
                summaries.append(summary(build))
            runs[f"nochange_{builder}"].append(sphinx(builder, build))
            if builder == "examples" and summary(build) != summaries[-1]:
                raise SystemExit(f"the no-change run reported {summary(build)!r}, the cold one {summaries[-1]!r}")
        print(f"repetition {rep + 1}/{repeat}: " + ", ".join(f"{k} {v[-1]:.2f}s" for k, v in runs.items()), flush=True)
    medians = {k: round(statistics.median(v), 3) for k, v in runs.items()}
    return {
        "repeat": repeat,
        "snippets": summaries[-1],
        "medians_s": medians,
        "nochange_ratio": round(medians["nochange_examples"] / medians["cold_examples"], 3),
        "nochange_over_floor": round(medians["nochange_examples"] / medians["nochange_dummy"], 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="repetitions (default 3)")
    parser.add_argument("--json", action="store_true", help="end with one line of JSON")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="errorkb-doctest-") as tmp:
        result = measure(Path(tmp), args.repeat)
    m = result["medians_s"]
    print(f"{result['snippets']}; medians of {args.repeat} (wall s): make doctest cold {m['cold_examples']:.2f}, "
          f"no change {m['nochange_examples']:.2f}; -b dummy cold {m['cold_dummy']:.2f}, no change {m['nochange_dummy']:.2f}")
    print(f"nochange_ratio {result['nochange_ratio']} (no-change make doctest / cold); "
          f"nochange_over_floor {result['nochange_over_floor']} (/ no-change -b dummy)")
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
