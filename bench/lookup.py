"""Speed and size of the paste lookup with 1,000 and 10,000 synthetic templates, and the site's own.

    python bench/lookup.py [--runs N] [--cli-runs N] [--long-runs N] [--json]

For each catalogue size: the Python engine's time for a 1-line and a 200-line paste (p50, p95),
``errorkb lookup --index`` as a whole process with the paste piped in (start-up included, p50
and p95, and its ratio to a bare ``python -c pass`` timed alternately with it), the browser's
lookup in a Web Worker in headless Chromium (p50, p95 of the round trip), and the payload a
search downloads (see below).  Then a 200,000-line log (8.4 MB, the error on its last line) at
each size and against the site's own records (whose words, such as "memory" and "out", a
training log shares on many lines): the Python engine, the CLI as a whole process, and the
worker's own search time in Chromium beside the round trip (which adds handing it to the
worker).

The payload a search downloads:
the index and the three scripts, each raw and gzipped as a server sends it (all are fetched on
the first search, none before), and the gzipped size of each field of the index.  The templates
are generated here, one record each, with made-up words so that they are as distinct as real
messages; random syllables compress worse than real messages do, so the sizes err high.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "ext"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from chromium import chromium, serve  # noqa: E402
from errorkb.core.lookup import MAX_PASTE, build_index, lookup  # noqa: E402
from errorkb.core.records import Catalogue, Fix  # noqa: E402
from errorkb.core.templates import compile_template  # noqa: E402
from errorkb.tools.project import open_project  # noqa: E402

STATIC = ROOT / "ext" / "errorkb" / "site" / "static"
SCRIPTS = ("errorkb-lookup-core.js", "errorkb-lookup-worker.js", "errorkb-lookup-page.js")
SHAPES = [
    ("{w0}Error: {w1} {w2} failed to allocate {{requested:size}} on device {{gpu:int}} ({w3} {w4})",
     "{w0}Error: {w1} {w2} failed to allocate 2.50 GiB on device 3 ({w3} {w4})"),
    ("{w0} out of memory in {w1} {w2}: used {{used:size}} of {{capacity:size}} {w3} {w4}",
     "{w0} out of memory in {w1} {w2}: used 40.10G of 32.00G {w3} {w4}"),
    ("[{W0}] {w1} {w2} exceeds the {w3} limit of {{limit:size}} for {{chip:identifier}}",
     "[{W0}] {w1} {w2} exceeds the {w3} limit of 24.00GB for trn2"),
    ("{w0} {w1} could not reserve {{requested:size}}; {{free:size}} free in {w2} {w3}",
     "{w0} {w1} could not reserve 1.50G; 300.00M free in {w2} {w3}"),
]


def vocabulary(rng: random.Random, n: int) -> list[str]:
    syllables = ["ka", "lo", "mem", "tor", "vex", "qua", "zil", "pra", "dun", "rek", "sho", "bri", "gal", "nop", "tiv"]
    words: set[str] = set()
    while len(words) < n:
        words.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def synthetic(count: int, seed: int = 7) -> tuple[Catalogue, list[str]]:
    """``count`` records of one template each, and one example line per record."""
    rng = random.Random(seed)
    words = vocabulary(rng, max(2000, count))
    records, examples = {}, []
    for i in range(count):
        template, example = SHAPES[i % len(SHAPES)]
        fill = {f"w{k}": rng.choice(words) for k in range(5)}
        fill["W0"] = f"NCC_B{i:05d}"
        fill["w0"] = fill["w0"] + str(i)
        rid = f"bench-{i:05d}"
        compiled = compile_template(template.format(**fill))
        examples.append(example.format(**fill))
        records[rid] = SimpleNamespace(
            id=rid, code=f"B{i:05d}", codes=(f"B{i:05d}",), title=f"Synthetic error {i}", aliases=[], path=f"errors/bench/{rid}.md",
            templates=(compiled,),
            messages=[SimpleNamespace(examples=[SimpleNamespace(text=examples[-1])], summary_line=False)],
            fixes=(Fix("Use a smaller batch", "", 1), Fix("Free memory", "", 2)), costs=["", ""], diagnoses=[],
            readings=[], labels={})
    return Catalogue(records), examples  # type: ignore[arg-type]


def noise(rng: random.Random, n: int) -> list[str]:
    return [f"2024-05-01 12:{i // 60:02d}:{i % 60:02d}.{rng.randint(0, 999):03d} INFO step {i} loss={rng.random():.4f} "
            f"memory allocated {rng.randint(1, 80)}.{rng.randint(0, 99)}G of device out of {rng.randint(1, 99)} batches"
            for i in range(n)]


LONG_LOG_LINES = 200_000
LOG_WORDS = ["step", "loss", "lr", "grad", "norm", "tokens", "memory", "allocated", "device", "out", "of", "cuda",
             "tensor", "hbm", "usage", "batch", "eval", "saving"]


def long_log(rng: random.Random, error: str) -> str:
    """A 200,000-line training log, about 45 characters a line, with ``error`` on its last line."""
    lines = [f"12:{i // 60 % 60:02d}:{i % 60:02d} {rng.choice(('INFO', 'WARN'))} " + " ".join(rng.choices(LOG_WORDS, k=5))
             for i in range(LONG_LOG_LINES - 1)]
    text = "\n".join([*lines, error])
    assert len(text) < MAX_PASTE, "the log must be searched whole"
    return text


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def stats(samples: list[float]) -> dict[str, float]:
    return {"p50_ms": round(statistics.median(samples), 3), "p95_ms": round(percentile(samples, 0.95), 3)}


def pastes(examples: list[str], rng: random.Random, runs: int) -> dict[str, list[str]]:
    one = [rng.choice(examples) for _ in range(runs)]
    many = []
    for _ in range(runs):
        lines = noise(rng, 199)
        lines.insert(rng.randint(0, 199), rng.choice(examples))
        many.append("\n".join(lines))
    return {"1-line": one, "200-line": many}


def gzipped(data: bytes) -> int:
    """Bytes on the wire from a server that compresses (gzip -9), file by file."""
    return len(gzip.compress(data, 9))


def field_sizes(index: dict) -> dict[str, int]:
    """Gzipped bytes of each field of the index's record rows, each field compressed alone, and
    of the rest (the rules: expressions, limits, notices)."""
    names = ("id", "code", "title", "url", "fixes", "terms", "templates", "aliases", "diagnoses")
    columns: dict[str, Any] = {name: [row[i] for row in index["records"]] for i, name in enumerate(names)}
    columns["rules"] = {k: v for k, v in index.items() if k != "records"}
    return {name: gzipped(json.dumps(column, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
            for name, column in columns.items()}


def run_process(argv: list[str], stdin: str) -> float:
    """Milliseconds from starting ``argv`` to its exit, with ``stdin`` piped in as a user would."""
    start = time.perf_counter()
    done = subprocess.run(argv, input=stdin.encode("utf-8"), capture_output=True, cwd=ROOT,
                          env={"PYTHONPATH": str(ROOT / "ext"), "PATH": "/usr/bin:/bin"}, check=False)
    elapsed = (time.perf_counter() - start) * 1000
    if done.returncode not in (0, 1):  # 1: no exact match
        raise SystemExit(f"{' '.join(argv)} failed (exit {done.returncode}):\n{done.stderr.decode()[-2000:]}")
    return elapsed


def cli_process(index: Path, texts: list[str]) -> dict[str, float]:
    """``python train.py 2>&1 | errorkb lookup --index PATH`` as a whole process, start-up included.

    Each run alternates with a bare ``python -c pass`` fed the same text, so the ratio says how
    much errorkb adds to the interpreter's own start, measured side by side.
    """
    lookup_ms, bare_ms = [], []
    for text in texts:
        lookup_ms.append(run_process([sys.executable, "-m", "errorkb.tools.cli", "lookup", "--index", str(index)], text))
        bare_ms.append(run_process([sys.executable, "-c", "pass"], text))
    return {**stats(lookup_ms), "python_start_p50_ms": round(statistics.median(bare_ms), 3),
            "ratio_to_python_start": round(statistics.median(lookup_ms) / statistics.median(bare_ms), 2)}


def bench_long_log(index, site: Path, example: str, runs: int) -> dict:
    """The 200,000-line log with ``example`` last: Python engine, CLI process, Chromium worker."""
    text = long_log(random.Random(5), example)
    out: dict = {"lines": LONG_LOG_LINES, "characters": len(text)}
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        result = lookup(index, text)
        samples.append((time.perf_counter() - t) * 1000)
        assert result.exact and result.matches[0].line == LONG_LOG_LINES - 1, "the error on the last line is found"
    out["python"] = stats(samples)
    index_path = site / "_static" / "errorkb-lookup-index.json"
    out["cli"] = stats([run_process([sys.executable, "-m", "errorkb.tools.cli", "lookup", "--index", str(index_path)], text)
                        for _ in range(runs)])
    with serve(site) as base, chromium() as page:
        page.goto(base + "bench.html")
        page.evaluate("() => window.search('warm up')")
        times = [page.evaluate("q => window.search(q)", text) for _ in range(runs)]
    assert all(t["exact"] and t["line"] == LONG_LOG_LINES - 1 for t in times), "the browser finds it too"
    out["chromium_worker"] = stats([t["ms"] for t in times])
    out["chromium_roundtrip"] = stats([t["roundtrip"] for t in times])
    return out


def site_catalogue(workdir: Path, long_runs: int) -> dict:
    """The 200,000-line log against the site's own records, with one of their examples last."""
    catalogue, problems = open_project(ROOT).load()
    if problems:
        raise SystemExit(f"bench: the records have problems: {problems[0]}")
    index = build_index(catalogue)
    site = workdir / "site-errors"
    (site / "_static").mkdir(parents=True)
    (site / "_static" / "errorkb-lookup-index.json").write_text(json.dumps(index.to_json()), encoding="utf-8")
    for name in SCRIPTS:
        shutil.copy(STATIC / name, site / "_static" / name)
    (site / "bench.html").write_text(HARNESS, encoding="utf-8")
    example = "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 5.80 GiB total capacity; " \
              "4.36 GiB already allocated; 6.69 MiB free; 4.63 GiB reserved in total by PyTorch)"
    return {"templates": len(index.entries), "200000-line": bench_long_log(index, site, example, long_runs)}


def bench_size(count: int, runs: int, workdir: Path, cli_runs: int, long_runs: int) -> dict:
    rng = random.Random(count)
    catalogue, examples = synthetic(count)
    start = time.perf_counter()
    index = build_index(catalogue)
    built_ms = (time.perf_counter() - start) * 1000
    site = workdir / f"site-{count}"
    (site / "_static").mkdir(parents=True)
    data = json.dumps(index.to_json(), separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    (site / "_static" / "errorkb-lookup-index.json").write_bytes(data)
    for name in SCRIPTS:
        shutil.copy(STATIC / name, site / "_static" / name)
    parts = {"errorkb-lookup-index.json": data, **{name: (STATIC / name).read_bytes() for name in SCRIPTS}}
    sizes = {name: {"bytes": len(b), "gzip_bytes": gzipped(b)} for name, b in parts.items()}
    out: dict = {"templates": count, "build_index_ms": round(built_ms, 1),
                 "index_bytes": len(data), "index_gzip_bytes": sizes["errorkb-lookup-index.json"]["gzip_bytes"],
                 "index_fields_gzip_bytes": field_sizes(index.to_json()), "payload_parts": sizes,
                 "payload_bytes": sum(s["bytes"] for s in sizes.values()),
                 "payload_gzip_bytes": sum(s["gzip_bytes"] for s in sizes.values())}
    cases = pastes(examples, rng, runs)
    for name, texts in cases.items():
        samples, found = [], 0
        for text in texts:
            t = time.perf_counter()
            result = lookup(index, text)
            samples.append((time.perf_counter() - t) * 1000)
            found += bool(result.exact)
        out[f"python_{name}"] = {**stats(samples), "exact": found / len(texts)}
    index_path = site / "_static" / "errorkb-lookup-index.json"
    for name, texts in cases.items():
        out[f"cli_{name}"] = cli_process(index_path, texts[:cli_runs])
    out.update(browser_lookup(site, cases))
    out["200000-line"] = bench_long_log(index, site, rng.choice(examples), long_runs)
    return out


def browser_lookup(site: Path, cases: dict[str, list[str]]) -> dict[str, object]:
    """The lookup in a Web Worker in headless Chromium, against the index under ``site/_static``
    (with the scripts beside it, as a built site has them): the first search's time, which
    downloads and reads the index, then per case the round trip's p50 and p95, the worker's own
    p95 and the share of pastes found exactly."""
    (site / "bench.html").write_text(HARNESS, encoding="utf-8")
    out: dict[str, object] = {}
    with serve(site) as base, chromium() as page:
        page.goto(base + "bench.html")
        load_ms = page.evaluate("() => window.search('warm up')")["roundtrip"]
        out["chromium_first_search_ms"] = round(load_ms, 1)
        for name, texts in cases.items():
            times = [page.evaluate("q => window.search(q)", text) for text in texts]
            out[f"chromium_{name}"] = {**stats([t["roundtrip"] for t in times]),
                                       "worker_p95_ms": round(percentile([t["ms"] for t in times], 0.95), 3),
                                       "exact": sum(t["exact"] for t in times) / len(times)}
    return out


HARNESS = """<!doctype html><meta charset="utf-8"><title>lookup bench</title><script>
const worker = new Worker('_static/errorkb-lookup-worker.js');
const waiting = new Map(); let next = 0;
worker.onmessage = e => { const w = waiting.get(e.data.id); waiting.delete(e.data.id); w(e.data); };
window.search = q => new Promise(resolve => {
  const id = ++next, start = performance.now();
  waiting.set(id, d => resolve({roundtrip: performance.now() - start, ms: d.ms,
    exact: !!(d.result && d.result.matches.length && d.result.matches[0].exact),
    line: d.result && d.result.matches.length ? d.result.matches[0].line : null}));
  worker.postMessage({id, q, top: 5, indexUrl: new URL('_static/errorkb-lookup-index.json', location).href});
});
</script>"""


def print_long_log(r: dict) -> None:
    print(f"  200,000-line log ({r['characters'] / 1e6:.1f} MB), the error last: "
          + ", ".join(f"{kind} p50 {r[kind]['p50_ms']:.0f} ms (p95 {r[kind]['p95_ms']:.0f})"
                      for kind in ("python", "cli", "chromium_worker", "chromium_roundtrip")))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="end with one JSON object")
    parser.add_argument("--runs", type=int, default=50, help="pastes per measurement (default: 50)")
    parser.add_argument("--cli-runs", type=int, default=20, help="processes per CLI measurement (default: 20)")
    parser.add_argument("--long-runs", type=int, default=5, help="searches of the 200,000-line log (default: 5)")
    args = parser.parse_args(argv)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for count in (1000, 10000):
            results[str(count)] = r = bench_size(count, args.runs, Path(tmp), args.cli_runs, args.long_runs)
            print(f"{count} templates: index built in {r['build_index_ms']:.0f} ms; a search downloads "
                  f"{r['payload_bytes'] / 1024:.0f} KiB, {r['payload_gzip_bytes'] / 1024:.0f} KiB gzipped:")
            for name, size in r["payload_parts"].items():
                print(f"  {name:28} {size['bytes'] / 1024:8.1f} KiB  {size['gzip_bytes'] / 1024:7.1f} KiB gzipped")
            print("  index fields, gzipped alone: " + ", ".join(
                f"{name} {size / 1024:.0f} KiB" for name, size in r["index_fields_gzip_bytes"].items()))
            for kind in ("python_1-line", "python_200-line", "chromium_1-line", "chromium_200-line"):
                m = r[kind]
                print(f"  {kind:18} p50 {m['p50_ms']:8.2f} ms  p95 {m['p95_ms']:8.2f} ms  exact {m['exact']:.2f}")
            for kind in ("cli_1-line", "cli_200-line"):
                m = r[kind]
                print(f"  {kind:18} p50 {m['p50_ms']:8.2f} ms  p95 {m['p95_ms']:8.2f} ms  whole process, "
                      f"{m['ratio_to_python_start']:.2f}x a bare 'python -c pass' ({m['python_start_p50_ms']:.0f} ms)")
            print(f"  first browser search (index load) {r['chromium_first_search_ms']:.0f} ms")
            print_long_log(r["200000-line"])
        results["errors"] = r = site_catalogue(Path(tmp), args.long_runs)
        print(f"the site's own {r['templates']} templates:")
        print_long_log(r["200000-line"])
    if args.json:
        print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
