"""Lighthouse's four scores (performance, accessibility, best practices, SEO) of the landing page,
a record page and the lookup page with a result, for one built site or two side by side.

Lighthouse is npm's ``lighthouse`` run against Debian's Chromium; it is not part of ``make
test``.  Install it once outside the project (12.2.3 is the last release for Node 20)::

    npm install --prefix /tmp/lh lighthouse@12.2.3
    python bench/lighthouse.py --lighthouse /tmp/lh/node_modules/.bin/lighthouse _build/html [OTHER_SITE]

Each page is measured with Lighthouse's mobile settings (its default) and, with ``--desktop``,
its desktop ones too.  The lookup page gets a real PyTorch message after ``#q=``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent))

from chromium import serve

PASTE = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.20 GiB. GPU 0 has a total capacity of "
         "23.64 GiB of which 1.02 GiB is free. Including non-PyTorch memory, this process has 22.50 GiB memory in use. "
         "Of the allocated memory 20.10 GiB is allocated by PyTorch, and 512.00 MiB is reserved by PyTorch but "
         "unallocated.")
PAGES = {"landing": "index.html", "record": "errors/pytorch/torch-cuda-oom.html",
         "lookup": "lookup.html#q=" + quote(PASTE)}
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")


def scores(lighthouse: str, url: str, desktop: bool) -> dict[str, int]:
    """The four scores of one page, out of 100."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        cmd = [lighthouse, url, "--quiet", "--output=json", f"--output-path={out}",
               "--chrome-flags=--headless=new --no-sandbox", "--only-categories=" + ",".join(CATEGORIES)]
        if desktop:
            cmd.append("--preset=desktop")
        env = {**os.environ, "CHROME_PATH": shutil.which("chromium") or "/usr/bin/chromium"}
        subprocess.run(cmd, check=True, env=env, capture_output=True, timeout=300)
        report = json.loads(out.read_text(encoding="utf-8"))
    return {c: round(report["categories"][c]["score"] * 100) for c in CATEGORIES}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sites", nargs="+", type=Path, help="built sites (their HTML folders)")
    parser.add_argument("--lighthouse", default="lighthouse", help="the lighthouse command")
    parser.add_argument("--desktop", action="store_true", help="also with Lighthouse's desktop settings")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = []
    for site in args.sites:
        with serve(site) as base:
            for form in ["mobile", "desktop"] if args.desktop else ["mobile"]:
                for name, path in PAGES.items():
                    found = scores(args.lighthouse, base + path, form == "desktop")
                    results.append({"site": str(site), "form": form, "page": name, **found})
                    print(f"| {site} | {form} | {name} | " + " | ".join(str(found[c]) for c in CATEGORIES) + " |",
                          flush=True)
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
