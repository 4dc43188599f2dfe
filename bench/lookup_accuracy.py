"""Accuracy of the paste lookup against the site's other searches, on real pastes.

    python bench/lookup_accuracy.py CORPUS.jsonl [--json]

CORPUS.jsonl holds lines ``{"text": paste, "expect": record id or null}``; ``null`` is a real error
that is not in the catalogue and must get no exact answer.  The site is built from this checkout
into a temporary folder, then every paste goes through four engines:

- ``errorkb-cli``: the Python engine behind ``errorkb lookup``, on the records in errors/;
- ``errorkb-browser``: the site's lookup page (``lookup.html?q=``) in headless Chromium;
- ``sphinx``: Sphinx's own search (searchtools.js on searchindex.js, ``search.html?q=``);
- ``pagefind``: a Pagefind index of the same built site, queried with its JavaScript API.

Metrics: ``top1``, ``top3`` and ``mrr`` over the pastes with an expected record; ``no_result``: the
share of all pastes with no result; ``exact_precision``: of the pastes whose first answer is exact,
the share where it is the expected record; ``false_exact``: the pastes expecting nothing that got
an exact answer.  The last two apply only to engines that say what is exact.  With ``--json`` the
last line printed is one JSON object keyed by engine.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "ext"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from chromium import chromium, serve  # noqa: E402
from errorkb.core.lookup import build_index, lookup  # noqa: E402
from errorkb.tools.project import open_project  # noqa: E402

TOP = 5
_RECORD_URL = re.compile(r"errors/[a-z0-9.-]+/([a-z0-9.-]+?)(?:\.html|/)(?:[#?].*)?$")


def record_id(url: str) -> str | None:
    m = _RECORD_URL.search(url)
    return m.group(1) if m else None


def build_site(out: Path) -> None:
    cmd = [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(ROOT), str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"bench: the site did not build:\n{proc.stderr}")
    proc = subprocess.run([sys.executable, "-m", "pagefind", "--site", str(out)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"bench: pagefind failed:\n{proc.stdout}\n{proc.stderr}")


# Each engine returns, per paste, a list of (record id, exact or None) best first.

def run_cli(pastes: list[str]) -> list[list[tuple[str, bool | None]]]:
    catalogue, _ = open_project(ROOT).load()
    index = build_index(catalogue)
    return [[(m.record["id"], m.exact) for m in lookup(index, p, top=TOP).matches] for p in pastes]


def run_browser(page, base: str, pastes: list[str]) -> list[list[tuple[str, bool | None]]]:
    out = []
    for paste in pastes:
        page.goto(base + "lookup.html?q=" + quote(paste))
        page.wait_for_selector("#errorkb-lookup-results[data-state=done]", state="attached")
        items = page.eval_on_selector_all("#errorkb-lookup-results > li",
                                          "els => els.map(e => [e.dataset.id, e.dataset.exact === 'true'])")
        out.append([(i, e) for i, e in items[:TOP]])
    return out


def run_sphinx(page, base: str, pastes: list[str]) -> list[list[tuple[str, bool | None]]]:
    out = []
    for paste in pastes:
        page.goto(base + "search.html?q=" + quote(paste))
        page.wait_for_function(
            "() => { const s = document.querySelector('#search-results .search-summary');"
            " return s && !/^(Preparing|Searching)/.test(s.textContent.trim()); }")
        urls = page.eval_on_selector_all("#search-results ul.search li a", "els => els.map(e => e.href)")
        out.append(_records(urls))
    return out


def run_pagefind(page, base: str, pastes: list[str]) -> list[list[tuple[str, bool | None]]]:
    page.goto(base + "index.html")
    page.evaluate("async () => { window.pf = await import('./pagefind/pagefind.js'); await window.pf.init(); }")
    out = []
    for paste in pastes:
        urls = page.evaluate(
            "async q => { const r = await window.pf.search(q);"
            " const d = await Promise.all(r.results.slice(0, 20).map(x => x.data())); return d.map(x => x.url); }",
            paste)
        out.append(_records(urls))
    return out


def _records(urls: list[str]) -> list[tuple[str, bool | None]]:
    seen: list[str] = []
    for url in urls:
        rid = record_id(url)
        if rid and rid not in seen:
            seen.append(rid)
    return [(rid, None) for rid in seen[:TOP]]


def metrics(cases: list[dict], answers: list[list[tuple[str, bool | None]]]) -> dict[str, float | int | None]:
    expected = [(c["expect"], a) for c, a in zip(cases, answers) if c["expect"]]
    ranks = [next((i for i, (rid, _) in enumerate(a) if rid == want), None) for want, a in expected]
    n = len(expected) or 1
    says_exact = any(exact is not None for a in answers for _, exact in a)
    exact_first = [(c["expect"], a[0][0]) for c, a in zip(cases, answers) if a and a[0][1]]
    return {
        "top1": round(sum(r == 0 for r in ranks) / n, 4),
        "top3": round(sum(r is not None and r < 3 for r in ranks) / n, 4),
        "mrr": round(sum(1 / (r + 1) for r in ranks if r is not None) / n, 4),
        "no_result": round(sum(not a for a in answers) / (len(answers) or 1), 4),
        "exact_precision": (round(sum(want == got for want, got in exact_first) / len(exact_first), 4)
                            if says_exact and exact_first else None),
        "false_exact": (sum(1 for c, a in zip(cases, answers) if not c["expect"] and any(e for _, e in a))
                        if says_exact else None),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path, help="JSON lines: {\"text\", \"expect\"}")
    parser.add_argument("--json", action="store_true", help="end with one JSON object keyed by engine")
    args = parser.parse_args(argv)
    cases = [json.loads(line) for line in args.corpus.read_text(encoding="utf-8").splitlines() if line.strip()]
    pastes = [c["text"] for c in cases]
    results = {"errorkb-cli": metrics(cases, run_cli(pastes))}
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "html"
        build_site(site)
        with serve(site) as base, chromium() as page:
            results["errorkb-browser"] = metrics(cases, run_browser(page, base, pastes))
            results["sphinx"] = metrics(cases, run_sphinx(page, base, pastes))
            results["pagefind"] = metrics(cases, run_pagefind(page, base, pastes))
    expected = sum(1 for c in cases if c["expect"])
    print(f"{len(cases)} pastes, {expected} with an expected record, {len(cases) - expected} expecting none")
    names = list(next(iter(results.values())))
    print(f"{'engine':16}" + "".join(f"{n:>16}" for n in names))
    for engine, m in results.items():
        print(f"{engine:16}" + "".join(f"{'-' if m[n] is None else m[n]:>16}" for n in names))
    if args.json:
        print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
