"""Build-time benchmark: errorkb against plain Sphinx on the same generated content.

    python bench/build.py [--records N] [--repeat R] [--jobs J | --serial-only] [--workdir DIR] [--snippets] [--theme T] [--json]

Generates N records twice (``bench/gen_records.py``): as an errorkb site and as its plain
MyST twin.  Then, R times, alternating which goes first: a full serial build of each, an
incremental rebuild of each after editing one record, and a full build of each with
``-j J`` (default ``auto``; ``--serial-only`` leaves these out, for catalogues so large that
one build takes many minutes).  Each build is a fresh ``sphinx-build`` process; its wall time
and its peak memory (the largest max RSS of the process and its workers, from ``wait4``)
are recorded, and CPU time (user + system, workers included) as a figure that other load
on the machine disturbs less.  Prints the medians of each kind of build, and each ratio as the
median of the repetitions' ratios (a repetition builds both sides back to back, so a machine
that drifts slower or faster over the run does not skew it); with ``--json`` the last line is
one JSON object, every build's figures included (``runs``):

``overhead_ratio``     errorkb full build / plain full build (serial, wall time)
``incremental_ratio``  errorkb one-record rebuild / errorkb full build
``parallel_speedup``   errorkb serial full build / errorkb ``-j J`` full build (null with ``--serial-only``)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_records import generate, write_site

SITES = ("errorkb", "plain")


def sphinx_build(site: Path, *extra: str) -> dict[str, float]:
    """Run one sphinx-build on ``site``; return its wall time, CPU time and peak RSS."""
    cmd = [sys.executable, "-m", "sphinx", "-q", "-b", "html", "-d", str(site / "_build" / "doctrees"),
           *extra, str(site), str(site / "_build" / "html")]
    log = site.parent / f"{site.name}.log"
    with log.open("w") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"sphinx-build failed on {site} (exit {proc.returncode}); see {log}:\n"
                         + log.read_text()[-3000:])
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "peak_rss_mb": usage.ru_maxrss / 1024}


def full_build(site: Path, *extra: str) -> dict[str, float]:
    shutil.rmtree(site / "_build", ignore_errors=True)
    return sphinx_build(site, *extra)


def edit_one_record(site: Path, rep: int) -> None:
    """Change one record's prose, as an author fixing a sentence would."""
    page = sorted((site / "errors").glob("*/*.md"))[0]
    text = page.read_text(encoding="utf-8")
    page.write_text(text.rstrip("\n") + f"\n\nEdited in repetition {rep}.\n", encoding="utf-8")


def measure(workdir: Path, records: int, repeat: int, jobs: str | None, seed: int,
            snippets: bool = False, theme: str = "basic") -> dict[str, Any]:
    """``jobs`` None: serial builds only."""
    load_before = os.getloadavg()
    generated = generate(records, seed)
    sites = {name: workdir / name for name in SITES}
    write_site(generated, sites["errorkb"], snippets=snippets, theme=theme)
    write_site(generated, sites["plain"], plain=True, snippets=snippets, theme=theme)
    kinds = ("full", "incremental", "parallel") if jobs else ("full", "incremental")
    runs: dict[str, list[dict[str, float]]] = {f"{kind}_{name}": [] for kind in kinds for name in SITES}
    for rep in range(repeat):
        order = SITES if rep % 2 == 0 else SITES[::-1]
        for name in order:
            runs[f"full_{name}"].append(full_build(sites[name]))
            edit_one_record(sites[name], rep)
            runs[f"incremental_{name}"].append(sphinx_build(sites[name]))
        if jobs:
            for name in order:
                runs[f"parallel_{name}"].append(full_build(sites[name], "-j", jobs))
        print(f"repetition {rep + 1}/{repeat}: " + ", ".join(
            f"{key} {values[-1]['wall_s']:.1f}s" for key, values in runs.items()), flush=True)

    medians = {key: {m: round(statistics.median(r[m] for r in values), 3) for m in values[0]}
               for key, values in runs.items()}

    def ratio(a: str, b: str, metric: str = "wall_s") -> float | None:
        """The median of the repetitions' ratios: each repetition builds both sides back to back,
        so a machine that slows down or speeds up over the run changes both sides of each ratio."""
        if a not in runs or b not in runs:
            return None
        return round(statistics.median(x[metric] / y[metric] for x, y in zip(runs[a], runs[b])), 3)

    return {
        "records": records,
        "repeat": repeat,
        "jobs": jobs,
        "theme": theme,
        "overhead_ratio": ratio("full_errorkb", "full_plain"),
        "overhead_ratio_cpu": ratio("full_errorkb", "full_plain", "cpu_s"),
        "memory_ratio": ratio("full_errorkb", "full_plain", "peak_rss_mb"),
        "incremental_ratio": ratio("incremental_errorkb", "full_errorkb"),
        "incremental_ratio_plain": ratio("incremental_plain", "full_plain"),
        "parallel_speedup": ratio("full_errorkb", "parallel_errorkb"),
        "parallel_speedup_plain": ratio("full_plain", "parallel_plain"),
        "medians": medians,
        "runs": runs,
        "machine": machine(),
        # other work on the machine slows wall times; CPU times are less affected
        "load_average": {"before": [round(x, 2) for x in load_before], "after": [round(x, 2) for x in os.getloadavg()]},
    }


def machine() -> dict[str, Any]:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return {"cpus": os.cpu_count(), "cpu_model": model or platform.processor(),
            "memory_gib": round(memory, 1), "python": platform.python_version(),
            "sphinx": _version("sphinx"), "myst_parser": _version("myst_parser")}


def _version(module: str) -> str:
    from importlib.metadata import version
    return version(module.replace("_", "-"))


def report(result: dict[str, Any]) -> str:
    medians = result["medians"]
    lines = [f"{result['records']} records, {result['repeat']} repetitions, medians "
             f"(wall s / CPU s / peak RSS MB):"]
    for key, m in medians.items():
        lines.append(f"  {key:<24} {m['wall_s']:8.2f} {m['cpu_s']:8.2f} {m['peak_rss_mb']:8.0f}")
    lines.append(f"overhead_ratio {result['overhead_ratio']} (CPU {result['overhead_ratio_cpu']}, "
                 f"memory {result['memory_ratio']}); incremental_ratio {result['incremental_ratio']} "
                 f"(plain {result['incremental_ratio_plain']}); parallel_speedup {result['parallel_speedup']} "
                 f"(plain {result['parallel_speedup_plain']})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=100, help="number of records (default 100)")
    parser.add_argument("--repeat", type=int, default=3, help="repetitions (default 3)")
    parser.add_argument("--jobs", default="auto", help="-j value for the parallel builds (default auto)")
    parser.add_argument("--serial-only", action="store_true", help="leave out the parallel builds")
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--workdir", type=Path, help="where to generate and build (default: a temporary folder)")
    parser.add_argument("--snippets", action="store_true", help="give each record a {snippet} block")
    parser.add_argument("--theme", default="basic", choices=["basic", "furo"], help="HTML theme of both sites")
    parser.add_argument("--json", action="store_true", help="end with one line of JSON")
    args = parser.parse_args(argv)
    jobs = None if args.serial_only else args.jobs
    if args.workdir:
        args.workdir.mkdir(parents=True, exist_ok=True)
        result = measure(args.workdir, args.records, args.repeat, jobs, args.seed, args.snippets, args.theme)
    else:
        with tempfile.TemporaryDirectory(prefix="errorkb-bench-") as tmp:
            result = measure(Path(tmp), args.records, args.repeat, jobs, args.seed, args.snippets, args.theme)
    print(report(result))
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
