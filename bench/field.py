"""How the catalogue fares on a field sample: real pastes collected by generic searches.

    python bench/field.py [SAMPLE.jsonl ...] [--browser] [--json] [--misses]

A sample (``bench/field/*.jsonl``, see ``bench/field/README.md``) holds one paste a line, labelled
by meaning when it was collected, without regard to the catalogue: ``family`` (one error, any
release's wording), ``kind`` (``device-memory``, ``host-memory``, ``shared-memory``,
``on-chip-memory``, ``killed`` or ``not-memory``) and ``accelerator``.  ``bench/field/families.yaml``
says which record answers each family, by meaning (``null``: none has it yet), with the odd
paste whose record differs from its family's under ``by_source``.

Printed per engine (``cli``: the Python engine behind ``errorkb lookup``; ``browser``: the site's
lookup page in Chromium):

- memory families covered (a record exists for them), and the memory pastes they hold;
- top-1 over all memory pastes, and over those whose family has a record;
- wrong exact answers: a first answer marked exact that is not the paste's record (any exact
  answer, for a paste whose family has none);
- non-memory pastes whose first answer is an exact memory record, and memory pastes whose first
  answer is an exact non-memory record;
- accelerator pastes that are not about memory: the share answered exactly by their record;
- misses (no exact first answer): the share told the right kind of error, where the engine says one.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "ext"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from errorkb.core.lookup import build_index, lookup  # noqa: E402
from errorkb.tools.project import open_project  # noqa: E402

FIELD = Path(__file__).resolve().parent / "field"
#: This site's categories that are memory errors; a paste's kinds that are.
MEMORY_CATEGORIES = {"device-memory", "on-chip-memory", "host-memory", "shared-memory"}
NOT_MEMORY = "not-memory"

Answer = tuple[list[tuple[str, bool]], "str | None"]  # (record id, exact) best first; the kind said


def expected(paste: dict, mapping: dict) -> str | None:
    return mapping.get("by_source", {}).get(paste["source"], mapping["families"].get(paste["family"]))


def run_cli(pastes: list[str]) -> list[Answer]:
    project = open_project(ROOT)
    catalogue, _ = project.load()
    index = build_index(catalogue, kinds=project.settings.kinds)
    out = []
    for paste in pastes:
        result = lookup(index, paste, top=5)
        out.append(([(m.record["id"], m.exact) for m in result.matches], result.kind.name if result.kind else None))
    return out


def run_browser(pastes: list[str]) -> list[Answer]:
    from urllib.parse import quote

    from chromium import chromium, serve
    from lookup_accuracy import build_site

    out: list[Answer] = []
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "html"
        build_site(site)
        with serve(site) as base, chromium() as page:
            for paste in pastes:
                page.goto(base + "lookup.html?q=" + quote(paste))
                page.wait_for_selector("#errorkb-lookup-results[data-state=done]", state="attached")
                items = page.eval_on_selector_all("#errorkb-lookup-results > li",
                                                  "els => els.map(e => [e.dataset.id, e.dataset.exact === 'true'])")
                kind = page.eval_on_selector("#errorkb-lookup-results", "e => e.dataset.kind || null")
                out.append(([(i, e) for i, e in items[:5]], kind))
    return out


def figures(pastes: list[dict], answers: list[Answer], mapping: dict, categories: dict[str, str]) -> dict:
    def memory_record(rid: str) -> bool:
        return categories.get(rid) in MEMORY_CATEGORIES

    memory = [(p, a) for p, a in zip(pastes, answers) if p["kind"] != NOT_MEMORY]
    families = {p["family"] for p, _ in memory}
    covered = {f for f in families if mapping["families"].get(f) in categories}
    in_covered = [(p, a) for p, a in memory if expected(p, mapping) in categories]
    wrong_exact, crossed, misses, told = [], [], 0, 0
    for p, (matches, kind) in zip(pastes, answers):
        want = expected(p, mapping)
        want = want if want in categories else None
        first, exact = matches[0] if matches else ("", False)
        if exact and first != want:
            wrong_exact.append({"source": p["source"], "family": p["family"], "answer": first, "expected": want})
        if exact and first != want and memory_record(first) != (p["kind"] != NOT_MEMORY):
            crossed.append({"source": p["source"], "family": p["family"], "answer": first})
        if not exact:
            misses += 1
            told += kind is not None and kind == p["kind"]
    accel = [(p, a) for p, a in zip(pastes, answers) if p["kind"] == NOT_MEMORY and p.get("accelerator")]

    def top1(group: list) -> float:
        return round(sum(bool(a[0]) and a[0][0][0] == expected(p, mapping) for p, a in group) / (len(group) or 1), 4)

    return {
        "pastes": len(pastes), "memory_pastes": len(memory), "memory_families": len(families),
        "families_covered": round(len(covered) / (len(families) or 1), 4),
        "memory_pastes_covered": round(len(in_covered) / (len(memory) or 1), 4),
        "top1_memory": top1(memory), "top1_covered": top1(in_covered),
        "wrong_exact": len(wrong_exact), "crossed_exact": len(crossed),
        "accelerator_not_memory": len(accel),
        "accelerator_exact_right": round(sum(bool(a[0]) and a[0][0][1] and a[0][0][0] == expected(p, mapping)
                                             for p, a in accel) / (len(accel) or 1), 4),
        "misses": misses, "misses_right_kind": round(told / (misses or 1), 4),
        "_wrong_exact": wrong_exact, "_crossed": crossed,
        "_uncovered": sorted(Counter(p["family"] for p, _ in memory if p["family"] not in covered).items(),
                             key=lambda kv: (-kv[1], kv[0])),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("samples", nargs="*", type=Path, help="samples (default: every bench/field/*.jsonl)")
    parser.add_argument("--families", type=Path, default=FIELD / "families.yaml")
    parser.add_argument("--browser", action="store_true", help="also the site's lookup page in Chromium")
    parser.add_argument("--misses", action="store_true", help="list wrong exact answers and uncovered families")
    parser.add_argument("--json", action="store_true", help="end with one JSON object keyed by sample and engine")
    args = parser.parse_args(argv)
    mapping = yaml.safe_load(args.families.read_text(encoding="utf-8"))
    catalogue, _ = open_project(ROOT).load()
    categories = {rid: str(r.value("category")) for rid, r in catalogue.records.items()}
    samples: dict[str, list[dict]] = {}
    for sample in args.samples or sorted(FIELD.glob("*.jsonl")):
        pastes = [json.loads(line) for line in sample.read_text(encoding="utf-8").splitlines() if line.strip()]
        unmapped = sorted({p["family"] for p in pastes} - set(mapping["families"]))
        if unmapped:
            raise SystemExit(f"bench: families.yaml lacks {', '.join(unmapped)}")
        samples[sample.stem] = pastes
    # Every sample's pastes in one run of each engine: the browser's site is built once.
    texts = [p["text"] for pastes in samples.values() for p in pastes]
    engines = {"cli": run_cli(texts), **({"browser": run_browser(texts)} if args.browser else {})}
    results: dict[str, dict] = {}
    start = 0
    for name, pastes in samples.items():
        for engine, answers in engines.items():
            results[f"{name}/{engine}"] = figures(pastes, answers[start:start + len(pastes)], mapping, categories)
        start += len(pastes)
    names = [n for n in next(iter(results.values())) if not n.startswith("_")]
    width = max(len(k) for k in results) + 2
    print(f"{'':26}" + "".join(f"{k:>{width}}" for k in results))
    for name in names:
        print(f"{name:26}" + "".join(f"{str(m[name]):>{width}}" for m in results.values()))
    if args.misses:
        for key, m in results.items():
            print(f"\n{key}: wrong exact answers")
            for w in m["_wrong_exact"]:
                print(f"  {w['family']}: answered {w['answer']}, expected {w['expected']}  ({w['source']})")
            print(f"{key}: memory families without a record: " + ", ".join(f"{f} ({n})" for f, n in m["_uncovered"]))
    if args.json:
        print(json.dumps({k: {n: v for n, v in m.items() if not n.startswith("_")} for k, m in results.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
