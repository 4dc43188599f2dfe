"""Pastes in which every line matches a record: the lookup's time and memory stay small.

    python bench/every_line_matches.py [--runs N] [--run-bytes B] [--json]

Against the site's own records, three pastes whose every line is an error the catalogue knows:

- ``killed``: 200,000 lines of ``Killed`` (the same line again and again);
- ``e1000-same``: 10 MB of one full XLA E1000 line, repeated;
- ``e1000-distinct``: 10 MB of full E1000 lines, no two alike (their numbers differ), so that
  no line's work can be shared with another's.

Each is searched by the Python engine (in process), by a whole ``errorkb lookup --index``
process fed the paste on standard input (its peak memory from ``wait4``, beside a bare
``python -c pass`` fed the same text), and by the site's lookup worker in Chromium.  Then
``errorkb run`` passes ``--run-bytes`` of ``Killed`` lines through from a failing command (its
wall time and peak memory, beside ``cat`` of the same output).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chromium import chromium, serve
from lookup import HARNESS, SCRIPTS, STATIC, stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "ext"))

from errorkb.core.lookup import MAX_PASTE, build_index, lookup  # noqa: E402
from errorkb.tools.project import open_project  # noqa: E402

E1000 = ("jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of "
         "memory in memory space hbm. Used {used}G of 31.25G hbm. Exceeded hbm capacity by {excess}G.")
TEN_MB = 10_000_000  # within MAX_PASTE (10 MiB): each paste is searched whole


def pastes() -> dict[str, str]:
    """The three pastes, each within the lookup's limit on a paste."""
    same = E1000.format(used="63.80", excess="32.55")
    distinct = []
    size = i = 0
    while size < TEN_MB:
        line = E1000.format(used=f"{32 + i / 1000:.3f}", excess=f"{0.75 + i / 1000:.3f}")
        distinct.append(line)
        size += len(line) + 1
        i += 1
    out = {"killed": "\n".join(["Killed"] * 200_000),
           "e1000-same": "\n".join([same] * (TEN_MB // (len(same) + 1))),
           "e1000-distinct": "\n".join(distinct)}
    for name, text in out.items():
        assert len(text) <= MAX_PASTE, f"{name} must be searched whole"
    return out


#: Runs a command and writes its wall milliseconds and peak memory (kB) to the file named first.
#: The command is forked from this small interpreter, not from the benchmark, whose memory a
#: child counts as its own until it runs another program.
MEASURE = """import os, sys, time
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as out:
    out.write(f"{(time.perf_counter() - start) * 1000} {(usage.ru_utime + usage.ru_stime) * 1000} {usage.ru_maxrss}")
sys.exit(os.waitstatus_to_exitcode(status))
"""


def process(argv: list[str], stdin: bytes | None = None) -> dict[str, float]:
    """Wall and CPU milliseconds and peak memory (MB) of one process, ``stdin`` piped in, its output
    dropped."""
    with tempfile.NamedTemporaryFile("r") as measured:
        subprocess.run([sys.executable, "-c", MEASURE, measured.name, *argv], input=stdin,
                       stdin=None if stdin is not None else subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT / "ext")},
                       check=False)
        ms, cpu_ms, kb = measured.read().split()
    return {"ms": float(ms), "cpu_ms": float(cpu_ms), "peak_mb": int(kb) / 1024}


def bench_paste(name: str, text: str, index, index_path: Path, page, runs: int) -> dict:
    lines = text.count("\n") + 1
    samples, cpu = [], []
    for _ in range(runs):
        t, c = time.perf_counter(), time.process_time()
        result = lookup(index, text)
        samples.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
    assert result.exact, f"{name}: an exact answer"
    data = text.encode("utf-8")
    cli = [process([sys.executable, "-m", "errorkb.tools.cli", "lookup", "--index", str(index_path)], data)
           for _ in range(runs)]
    bare = [process([sys.executable, "-c", "pass"], data) for _ in range(runs)]
    times = [page.evaluate("q => window.search(q)", text) for _ in range(runs)]
    assert all(t["exact"] for t in times), f"{name}: the browser answers exactly too"
    return {"lines": lines, "megabytes": round(len(data) / 1e6, 2), "first_answer": result.matches[0].record["id"],
            "python": {**stats(samples), "cpu_p50_ms": stats(cpu)["p50_ms"]},
            "cli": {**stats([c["ms"] for c in cli]), "cpu_p50_ms": stats([c["cpu_ms"] for c in cli])["p50_ms"],
                    "peak_mb": round(max(c["peak_mb"] for c in cli), 1),
                    "bare_python_p50_ms": stats([b["ms"] for b in bare])["p50_ms"],
                    "bare_python_peak_mb": round(max(b["peak_mb"] for b in bare), 1)},
            "chromium_worker": stats([t["ms"] for t in times])}


def bench_run(total_bytes: int) -> dict:
    """``errorkb run`` on a command that prints ``total_bytes`` of ``Killed`` lines and fails."""
    script = (f"import sys; line = b'Killed\\n' * 8192; n = {total_bytes} // len(line)\n"
              "for _ in range(n): sys.stdout.buffer.write(line)\nsys.exit(1)")
    producer = [sys.executable, "-c", script]
    run = process([sys.executable, "-m", "errorkb.tools.cli", "--root", str(ROOT), "run", "--", *producer])
    alone = process(producer)
    return {"bytes": total_bytes, "run": {k: round(v, 1) for k, v in run.items()},
            "command_alone": {k: round(v, 1) for k, v in alone.items()}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="searches of each paste per engine (default: 5)")
    parser.add_argument("--run-bytes", type=int, default=2 * 10**9, help="output of the failing command (default: 2 GB)")
    parser.add_argument("--json", action="store_true", help="end with one JSON object")
    args = parser.parse_args(argv)
    catalogue, problems = open_project(ROOT).load()
    if problems:
        raise SystemExit(f"bench: the records have problems: {problems[0]}")
    index = build_index(catalogue)
    results: dict = {"templates": len(index.entries)}
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp)
        (site / "_static").mkdir()
        index_path = site / "_static" / "errorkb-lookup-index.json"
        index_path.write_text(json.dumps(index.to_json()), encoding="utf-8")
        for name in SCRIPTS:
            (site / "_static" / name).write_bytes((STATIC / name).read_bytes())
        (site / "bench.html").write_text(HARNESS, encoding="utf-8")
        with serve(site) as base, chromium() as page:
            page.goto(base + "bench.html")
            page.evaluate("() => window.search('warm up')")
            for name, text in pastes().items():
                results[name] = r = bench_paste(name, text, index, index_path, page, args.runs)
                print(f"{name}: {r['lines']:,} lines, {r['megabytes']} MB, answered {r['first_answer']}: "
                      f"Python p50 {r['python']['p50_ms']:.0f} ms (CPU {r['python']['cpu_p50_ms']:.0f}); errorkb lookup "
                      f"p50 {r['cli']['p50_ms']:.0f} ms (CPU {r['cli']['cpu_p50_ms']:.0f}), "
                      f"peak {r['cli']['peak_mb']:.0f} MB (bare python {r['cli']['bare_python_p50_ms']:.0f} ms, "
                      f"{r['cli']['bare_python_peak_mb']:.0f} MB); Chromium worker p50 "
                      f"{r['chromium_worker']['p50_ms']:.0f} ms", flush=True)
    results["run"] = r = bench_run(args.run_bytes)
    print(f"errorkb run, {r['bytes'] / 1e9:.1f} GB of output from a failing command: {r['run']['ms'] / 1000:.1f} s "
          f"(CPU {r['run']['cpu_ms'] / 1000:.1f} s), "
          f"peak {r['run']['peak_mb']:.0f} MB (the command alone {r['command_alone']['ms'] / 1000:.1f} s, CPU "
          f"{r['command_alone']['cpu_ms'] / 1000:.1f} s, "
          f"{r['command_alone']['peak_mb']:.0f} MB)")
    if args.json:
        print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
