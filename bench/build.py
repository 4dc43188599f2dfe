"""Build-time benchmark: errorkb against plain Sphinx on the same generated content.

    python bench/build.py [--records N [N ...]] [--repeat R] [--jobs J | --serial-only] [--workdir DIR]
                          [--snippets] [--theme T] [--json]
    python bench/build.py --scale N [--jobs J] [--timeout S] [--pastes P] [--workdir DIR] [--json]

For each N of ``--records`` (default 1,000 and 10,000), generates N records twice
(``bench/gen_records.py``): as an errorkb site and as its plain MyST twin.  Then, R times,
alternating which goes first: a full serial build of each, an incremental rebuild of each after
editing one record, and a full build of each with ``-j J`` (default ``auto``; ``--serial-only``
leaves these out, for catalogues so large that one build takes many minutes).  Each build is a fresh ``sphinx-build`` process; its wall time
and its peak memory (the largest max RSS of the process and its workers, from ``wait4``)
are recorded, and CPU time (user + system, workers included) as a figure that other load
on the machine disturbs less.  Prints the medians of each kind of build, and each ratio as the
median of the repetitions' ratios (a repetition builds both sides back to back, so a machine
that drifts slower or faster over the run does not skew it); with ``--json`` the last line is
one JSON object, every build's figures included (``runs``):

``overhead_ratio``     errorkb full build / plain full build (serial, wall time; ``_cpu``: CPU time)
``memory_ratio``       errorkb full build's peak memory / plain full build's
``incremental_ratio``  errorkb one-record rebuild / errorkb full build
``parallel_speedup``   errorkb serial full build / errorkb ``-j J`` full build (null with ``--serial-only``),
                       beside ``parallel_speedup_plain``, plain Sphinx's own

It ends with the targets of the build (issue #30), each measured ratio beside its target, and
the size of the record pages that the smallest and the largest catalogue share (the same
records: the generator gives the first N of a larger catalogue).

``--scale N`` generates one errorkb site of N records (no twin, no rebuild).  First its records
are loaded and checked without Sphinx and their lookup index written as the build writes it:
its size (raw and gzipped) and the browser's lookup time (``bench/lookup.py``'s Chromium
harness, pastes made of the records' own examples).  Then one build, serial unless ``--jobs``:
its wall and CPU time and peak memory.  A build still running after ``--timeout`` seconds is
stopped, and the last progress line Sphinx printed says how far it got.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_records import generate, write_site

SITES = ("errorkb", "plain")
#: Issue #30's targets for the build: (result key, at most / at least, bound).
TARGETS = (
    ("overhead_ratio", "at most", 1.15),
    ("overhead_ratio_cpu", "at most", 1.15),
    ("memory_ratio", "at most", 1.25),
    ("parallel_speedup", "at least", "parallel_speedup_plain"),
)
#: A record page at the largest catalogue against the same page at the smallest.
PAGE_SIZE_TARGET = 1.2
#: Record pages whose sizes are kept, the first of every catalogue (the same records at every size).
SHARED_PAGES = 100


def sphinx_build(site: Path, *extra: str, timeout: float | None = None, quiet: bool = True) -> dict[str, Any]:
    """Run one sphinx-build on ``site``; return its wall time, CPU time and peak RSS (and, when it
    ran past ``timeout`` seconds and was stopped, ``timed_out`` and the last progress line)."""
    cmd = [sys.executable, "-m", "sphinx", *(["-q"] if quiet else []), "-b", "html",
           "-d", str(site / "_build" / "doctrees"), *extra, str(site), str(site / "_build" / "html")]
    log = site.parent / f"{site.name}.log"
    with log.open("w") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        timer = threading.Timer(timeout, os.killpg, (proc.pid, signal.SIGKILL)) if timeout else None
        if timer:
            timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        if timer:
            timer.cancel()
    figures = {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "peak_rss_mb": usage.ru_maxrss / 1024}
    if timeout and os.WIFSIGNALED(status) and wall >= timeout:
        return {**figures, "timed_out": True, "reached": last_progress(log)}
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"sphinx-build failed on {site} (exit {proc.returncode}); see {log}:\n"
                         + log.read_text()[-3000:])
    return figures


def last_progress(log: Path) -> str:
    """The last line Sphinx wrote, progress bars included (they end with a carriage return)."""
    lines = [line.strip() for line in log.read_text(errors="replace").replace("\r", "\n").splitlines()]
    return next((line for line in reversed(lines) if line), "")


def full_build(site: Path, *extra: str) -> dict[str, Any]:
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
    html = sites["errorkb"] / "_build" / "html"
    pages = {f"{r.source}/{r.id}": (html / "errors" / r.source / f"{r.id}.html").stat().st_size
             for r in generated[:SHARED_PAGES]}

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
        "record_page_bytes": pages,
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


def against_targets(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each target of the build at each catalogue size, and the record pages' growth."""
    rows: list[dict[str, Any]] = []
    for result in results:
        for key, sense, bound in TARGETS:
            value = result[key]
            limit = result[bound] if isinstance(bound, str) else bound
            met = None if value is None or limit is None else (
                value <= limit if sense == "at most" else value >= limit)
            rows.append({"records": result["records"], "ratio": key, "measured": value,
                         "target": f"{sense} {limit}", "met": met})
    small, large = results[0], results[-1]
    if large["records"] != small["records"]:
        before, after = small["record_page_bytes"], large["record_page_bytes"]
        shared = [page for page in before if page in after]
        growth = [after[p] / before[p] for p in shared]
        for name, value in (("first record page", growth[0]), ("median record page", statistics.median(growth))):
            rows.append({"records": f"{small['records']} to {large['records']}", "ratio": f"{name} size",
                         "measured": round(value, 3), "target": f"at most {PAGE_SIZE_TARGET}",
                         "met": value <= PAGE_SIZE_TARGET})
    return rows


def report_targets(rows: list[dict[str, Any]]) -> str:
    lines = ["against the targets:"]
    for row in rows:
        verdict = {True: "met", False: "NOT met", None: "not measured"}[row["met"]]
        lines.append(f"  {row['records']!s:>15} records  {row['ratio']:<24} {row['measured']!s:>7}  "
                     f"({row['target']}): {verdict}")
    return "\n".join(lines)


def scale(workdir: Path, records: int, jobs: str | None, timeout: float, seed: int, runs: int) -> dict[str, Any]:
    """One errorkb build of ``records`` generated records, its lookup index and the browser's lookup.

    The index is made from the records first, as the build makes it, so that its size and the
    browser's times are measured whether or not the build ends within ``timeout``."""
    load_before = os.getloadavg()
    generated = generate(records, seed)
    site = workdir / "errorkb"
    write_site(generated, site)
    examples = [example for record in generated for message in record.messages for example in message.examples]
    result: dict[str, Any] = {"records": records, "jobs": jobs, "machine": machine()}
    result.update(lookup_at_scale(site, workdir / "lookup", pastes_of(examples, seed, runs)))
    del generated, examples
    shutil.rmtree(site / "_build", ignore_errors=True)
    result["build"] = build = sphinx_build(site, *(["-j", jobs] if jobs else []), timeout=timeout, quiet=False)
    built = site / "_build" / "html" / "_static" / "errorkb-lookup-index.json"
    if not build.get("timed_out") and built.exists():
        result["built_index_bytes"] = built.stat().st_size
    result["load_average"] = {"before": [round(x, 2) for x in load_before],
                              "after": [round(x, 2) for x in os.getloadavg()]}
    return result


def pastes_of(examples: list[str], seed: int, runs: int) -> dict[str, list[str]]:
    from lookup import pastes

    return pastes(examples, random.Random(seed), runs)


def lookup_at_scale(site: Path, folder: Path, cases: dict[str, list[str]]) -> dict[str, Any]:
    """The site's records loaded (and checked) without Sphinx, their lookup index written as the
    build writes it into ``folder/_static`` with the browser's scripts, and the browser's lookup."""
    from errorkb.core.lookup import build_index
    from errorkb.tools.project import open_project
    from lookup import SCRIPTS, STATIC, browser_lookup, gzipped

    start = time.process_time()
    catalogue, problems = open_project(site).load()
    loaded = time.process_time() - start
    if problems:
        raise SystemExit(f"bench: the generated records have problems: {problems[0]}")
    index = json.dumps(build_index(catalogue).to_json(), separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    del catalogue
    (folder / "_static").mkdir(parents=True, exist_ok=True)
    (folder / "_static" / "errorkb-lookup-index.json").write_bytes(index)
    for name in SCRIPTS:
        shutil.copy(STATIC / name, folder / "_static" / name)
    return {"records_load_cpu_s": round(loaded, 1), "lookup_index": {"bytes": len(index), "gzip_bytes": gzipped(index)},
            "browser": browser_lookup(folder, cases)}


def report_scale(result: dict[str, Any]) -> str:
    index, browser, build = result["lookup_index"], result["browser"], result["build"]
    lines = [f"{result['records']:,} records: loaded and checked without Sphinx in {result['records_load_cpu_s']} s CPU; "
             f"lookup index {index['bytes']:,} bytes, {index['gzip_bytes']:,} gzipped",
             f"  browser: first search {browser['chromium_first_search_ms']:.0f} ms" + "".join(
                 f"; {name} p50 {browser[f'chromium_{name}']['p50_ms']:.1f} ms, p95 {browser[f'chromium_{name}']['p95_ms']:.1f} ms"
                 f" (exact {browser[f'chromium_{name}']['exact']:.2f})" for name in ("1-line", "200-line")),
             f"  one errorkb build ({'-j ' + str(result['jobs']) if result['jobs'] else 'serial'}): "
             f"{build['wall_s']:.0f} s wall, {build['cpu_s']:.0f} s CPU, peak {build['peak_rss_mb']:,.0f} MB"]
    if build.get("timed_out"):
        lines.append(f"  stopped at the time limit; Sphinx had reached: {build['reached']}")
    lines.append(f"  load average {result['load_average']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, nargs="+", default=[1000, 10_000],
                        help="numbers of records, one comparison each (default 1000 10000)")
    parser.add_argument("--repeat", type=int, default=3, help="repetitions (default 3)")
    parser.add_argument("--jobs", help="-j value for the parallel builds (default auto); with --scale, "
                        "build with -j (default serial)")
    parser.add_argument("--serial-only", action="store_true", help="leave out the parallel builds")
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--workdir", type=Path, help="where to generate and build (default: a temporary folder)")
    parser.add_argument("--snippets", action="store_true", help="give each record a {snippet} block")
    parser.add_argument("--theme", default="basic", choices=["basic", "furo"], help="HTML theme of both sites")
    parser.add_argument("--scale", type=int, metavar="N", help="one errorkb build of N records, its lookup index and browser lookup")
    parser.add_argument("--timeout", type=float, default=1800, help="--scale: stop the build after this many seconds (default 1800)")
    parser.add_argument("--pastes", type=int, default=50, help="--scale: pastes per browser figure (default 50)")
    parser.add_argument("--json", action="store_true", help="end with one line of JSON")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="errorkb-bench-") as tmp:
        workdir = args.workdir or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        if args.scale:
            result: dict[str, Any] = scale(workdir, args.scale, args.jobs, args.timeout, args.seed, args.pastes)
            print(report_scale(result))
        else:
            jobs = None if args.serial_only else args.jobs or "auto"
            results = []
            for records in sorted(args.records):
                results.append(measure(workdir / str(records), records, args.repeat, jobs, args.seed, args.snippets,
                                       args.theme))
                print(report(results[-1]), flush=True)
            rows = against_targets(results)
            print(report_targets(rows))
            result = {"sizes": results, "targets": rows}
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
