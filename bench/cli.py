"""The answer under a failure: whole processes of ``errorkb lookup``, the Python hook and
``errorkb run``, each against a bare interpreter start timed alternately with it.

    python bench/cli.py [--runs N] [--uncached-runs N] [--records N] [--json]

Two catalogues: this site's records, and ``--records`` generated ones (``gen_records.py``,
1,000 by default).  For each, one paste that a record answers exactly (its first example):

- ``lookup``: ``errorkb lookup`` with the paste on standard input, as ``python train.py 2>&1 |
  errorkb lookup`` runs it (the console script's own two lines, then the command);
- ``hook``: ``python -m errorkb.hook fail.py``, a script whose uncaught exception is the paste:
  the traceback, then the record's block;
- ``run``: ``errorkb run -- sh -c ...``, a command that prints the paste and exits 1: its
  output passed through, then the block;
- ``bare``: ``python -c pass``, the interpreter's own start;
- ``lookup_uncached``: ``errorkb lookup`` with no cache to keep the compiled catalogue in, so
  that it loads every record, as each run did before there was one (in the first
  ``--uncached-runs`` rounds only: it is slow).

Each round runs them in turn (the order rotates), ``--runs`` rounds; a ratio is a command's
median over the bare start's median, of wall-clock and of CPU time (user + system).
Every answer is checked: the expected record must be named.  The compiled catalogue lives in a
cache folder of the run's own, filled by a first, timed run of each catalogue (which compiles
it from the records, as a first run does); modules are byte-compiled first, as an installed
package's are.  The machine's load average is recorded before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "ext"))

import gen_records  # noqa: E402

CLI = "import sys; from errorkb.tools.cli import main; sys.exit(main())"
TARGETS = {"site": 8.0, "generated": 10.0}


def child_env(cache: Path | str, site: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "ERRORKB_BASE_URL")}
    env.update(PYTHONPATH=str(ROOT / "ext"), XDG_CACHE_HOME=str(cache), ERRORKB_ROOT=str(site))
    return env


def commands(site: Path, script: Path, paste: str) -> dict[str, list[str]]:
    shell = 'printf "%s\\n" "$0" >&2; exit 1'
    return {
        "bare": [sys.executable, "-c", "pass"],
        "lookup": [sys.executable, "-c", CLI, "--root", str(site), "lookup"],
        "hook": [sys.executable, "-m", "errorkb.hook", str(script)],
        "run": [sys.executable, "-c", CLI, "--root", str(site), "run", "--", "sh", "-c", shell, paste],
    }


def run_one(cmd: list[str], paste: str, env: dict[str, str], cwd: Path) -> tuple[float, float, str]:
    """Wall-clock and CPU (user + system) seconds of one whole process, and its output."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                            cwd=cwd)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(paste.encode())
    proc.stdin.close()
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, out.decode(errors="replace")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def bench_catalogue(name: str, site: Path, record: str, paste: str, runs: int, uncached_runs: int, work: Path) -> dict:
    cache = work / f"cache-{name}"
    script = work / f"fail-{name}.py"
    script.write_text(f"raise RuntimeError({paste!r})\n", encoding="utf-8")
    envs = {"cached": child_env(cache, site), "uncached": child_env("/dev/null", site)}  # no folder can be made there
    cmds = {**commands(site, script, paste), "lookup_uncached": commands(site, script, paste)["lookup"]}
    first, _, out = run_one(cmds["lookup"], paste, envs["cached"], work)  # compiles the catalogue and caches it
    assert record in out, f"{name}: the first lookup does not name {record}:\n{out}"
    walls: dict[str, list[float]] = {k: [] for k in cmds}
    cpus: dict[str, list[float]] = {k: [] for k in cmds}
    for i in range(runs):
        names = [k for k in cmds if k != "lookup_uncached" or i < uncached_runs]
        for k in names[i % len(names):] + names[:i % len(names)]:
            env = envs["uncached" if k == "lookup_uncached" else "cached"]
            wall, cpu, out = run_one(cmds[k], paste, env, work)
            if k != "bare":
                assert record in out, f"{name}: {k} does not name {record}:\n{out}"
            walls[k].append(wall)
            cpus[k].append(cpu)
    bare_wall, bare_cpu = statistics.median(walls["bare"]), statistics.median(cpus["bare"])
    result: dict = {"records": len(list((site / "errors").glob("*/*.md"))), "first_lookup_s": round(first, 3),
                    "bare_p50_ms": round(bare_wall * 1000, 1), "bare_cpu_p50_ms": round(bare_cpu * 1000, 1)}
    for k in list(cmds)[1:]:
        result[k] = {"p50_ms": round(statistics.median(walls[k]) * 1000, 1),
                     "p95_ms": round(percentile(walls[k], 0.95) * 1000, 1),
                     "ratio": round(statistics.median(walls[k]) / bare_wall, 2),
                     "cpu_ratio": round(statistics.median(cpus[k]) / bare_cpu, 2), "runs": len(walls[k])}
        if k != "lookup_uncached":
            result[k]["target"] = TARGETS[name]
    return result


def first_example(path: Path) -> str:
    """The first example of a record file (a quoted YAML string, or a plain one)."""
    import yaml

    front = path.read_text(encoding="utf-8").split("---\n")[1]
    example = yaml.safe_load(front)["messages"][0]["examples"][0]
    return example if isinstance(example, str) else example["text"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=21, help="rounds of the processes (default: 21)")
    parser.add_argument("--uncached-runs", type=int, default=5, help="rounds with a lookup without cache (default: 5)")
    parser.add_argument("--records", type=int, default=1000, help="records of the generated catalogue (default: 1,000)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "ext" / "errorkb")], check=True,
                   env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"})
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="errorkb-bench-cli-") as tmp:
        work = Path(tmp)
        generated = work / "generated"
        gen_records.write_site(gen_records.generate(args.records), generated)
        own = ROOT / "errors/pytorch/torch-cuda-oom.md"
        gen_first = sorted((generated / "errors").glob("*/*.md"))[0]
        results = {
            "site": bench_catalogue("site", ROOT, "torch-cuda-oom", first_example(own), args.runs, args.uncached_runs,
                                    work),
            "generated": bench_catalogue("generated", generated, gen_first.stem, first_example(gen_first), args.runs,
                                         args.uncached_runs, work),
        }
    results["load_average"] = {"before": [round(x, 2) for x in load_before],
                               "after": [round(x, 2) for x in os.getloadavg()]}
    results["runs"] = args.runs
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for name in ("site", "generated"):
        r = results[name]
        print(f"{name}: {r['records']} records; bare python {r['bare_p50_ms']} ms (CPU {r['bare_cpu_p50_ms']} ms); "
              f"first lookup (compiles) {r['first_lookup_s']} s")
        for k in ("lookup", "hook", "run", "lookup_uncached"):
            m = r[k]
            verdict = f"  target {m['target']}x: {'met' if m['ratio'] <= m['target'] else 'NOT met'}" if "target" in m else ""
            print(f"  {k:15s} p50 {m['p50_ms']:7.1f} ms  p95 {m['p95_ms']:7.1f} ms  {m['ratio']:6.2f}x bare "
                  f"(CPU {m['cpu_ratio']:6.2f}x){verdict}")
    print(f"load average before {results['load_average']['before']}, after {results['load_average']['after']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
