"""errorkb's own sitemap, Open Graph tags and alias redirects beside the ecosystem's extensions
for the same jobs (sphinx-sitemap, sphinxext-opengraph, sphinx-reredirects).

    python bench/ecosystem.py [--records N] [--aliases A] [--repeat R] [--json]

* **redirects**: N records with A aliases each, built with errorkb's redirect pages and again
  with sphinx-reredirects writing them (errorkb's switched off, the same mapping given as
  ``redirects``).  For each: the full build and a rebuild with nothing changed (wall time,
  medians of R), how many redirect files the rebuild rewrote, and how many lines a build logs.
* **sitemap**: a 5-record site with sphinx-sitemap in place of errorkb's ``sitemap.xml``: the
  URLs after a full build, and after one record is edited and the site rebuilt.
* **opengraph**: the same site with sphinxext-opengraph in place of errorkb's tags: the pages
  that get no ``og:title``.

docs/machine-outputs.md gives the figures and what errorkb concludes from them.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from conftest import record_text  # noqa: E402

BASE = "https://kb.example.org/"
CONF = 'extensions = ["errorkb"]\nexclude_patterns = ["_build"]\nerrorkb_run_examples = False\n'
# Switches off one of errorkb's outputs before the extension connects it, so another extension
# can do the job alone.
WITHOUT = "import errorkb.site.outputs\nerrorkb.outputs.{name} = lambda *args: None\n"


def write_site(root: Path, records: int, aliases: int = 0) -> dict[str, str]:
    """``records`` records with ``aliases`` aliases each; returns the alias pages' targets."""
    shutil.rmtree(root, ignore_errors=True)
    (root / "errors" / "demo").mkdir(parents=True)
    (root / "index.md").write_text("# Demo\n\n```{toctree}\n:glob:\n\nerrors/*/*\n```\n", encoding="utf-8")
    targets = {}
    for i in range(records):
        names = [f"old-{i}-{j}" for j in range(aliases)]
        targets.update({f"errors/demo/{name}": f"demo-{i}.html" for name in names})
        text = record_text(id=f"demo-{i}", code=f"D{i}").replace("DemoError", f"Demo{i}Error")
        if names:
            text = text.replace("related: []", f"related: []\naliases: [{', '.join(names)}]")
        (root / "errors" / "demo" / f"demo-{i}.md").write_text(text, encoding="utf-8")
    return targets


def build(root: Path, *, quiet: bool = True) -> tuple[float, str]:
    cmd = [sys.executable, "-m", "sphinx", *(["-q"] if quiet else []), "-b", "html", str(root), str(root / "_build" / "html")]
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"sphinx-build failed on {root}:\n{done.stderr[-3000:]}")
    return wall, done.stdout + done.stderr


def redirects(work: Path, records: int, aliases: int, repeat: int) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for _ in range(repeat):
        for name in ("errorkb", "sphinx-reredirects"):
            root = work / name
            targets = write_site(root, records, aliases)
            conf = CONF
            if name == "sphinx-reredirects":
                conf += ('extensions.append("sphinx_reredirects")\n' + WITHOUT.format(name="write_redirects")
                         + f"redirects = {json.dumps(targets)}\n")
            (root / "conf.py").write_text(conf, encoding="utf-8")
            full, _ = build(root)
            pages = [root / "_build" / "html" / f"{page}.html" for page in targets]
            before = {p: p.stat().st_mtime_ns for p in pages}
            again, _ = build(root)
            rewritten = sum(p.stat().st_mtime_ns != before[p] for p in pages)
            lines = len(build(root, quiet=False)[1].splitlines())
            runs = out.setdefault(name, {"full_s": [], "rebuild_s": []})
            runs["full_s"].append(full)
            runs["rebuild_s"].append(again)
            runs.update(redirect_pages=len(pages), rewritten_by_rebuild=rewritten, log_lines=lines)
    for runs in out.values():
        runs["full_s"] = round(statistics.median(runs["full_s"]), 2)
        runs["rebuild_s"] = round(statistics.median(runs["rebuild_s"]), 2)
    return out


def sitemap(work: Path) -> dict[str, int]:
    root = work / "sitemap"
    write_site(root, 5)
    (root / "conf.py").write_text(CONF + f'html_baseurl = "{BASE}"\nextensions.append("sphinx_sitemap")\n'
                                  'sitemap_url_scheme = "{link}"\n' + WITHOUT.format(name="sitemap"), encoding="utf-8")
    urls = lambda: set(re.findall(r"<loc>([^<]*)</loc>", (root / "_build/html/sitemap.xml").read_text(encoding="utf-8")))  # noqa: E731
    build(root)
    full = urls()
    record = root / "errors" / "demo" / "demo-0.md"
    record.write_text(record.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")
    build(root)
    after = urls()
    return {"urls_full_build": len(full), "urls_after_one_edit": len(after), "lost": len(full - after)}


def opengraph(work: Path) -> dict[str, Any]:
    root = work / "opengraph"
    write_site(root, 5)
    (root / "conf.py").write_text(CONF + f'html_baseurl = "{BASE}"\nextensions.append("sphinxext.opengraph")\n'
                                  f'ogp_site_url = "{BASE}"\nogp_social_cards = {{"enable": False}}\n'
                                  + WITHOUT.format(name="add_tags"), encoding="utf-8")
    build(root)
    out = root / "_build" / "html"
    pages = [p for p in sorted(out.rglob("*.html")) if 'http-equiv="refresh"' not in p.read_text(encoding="utf-8")]
    untagged = [p.relative_to(out).as_posix() for p in pages if 'property="og:title"' not in p.read_text(encoding="utf-8")]
    return {"pages": len(pages), "without_og_title": untagged}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=20)
    parser.add_argument("--aliases", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        result: dict[str, Any] = {"redirects": redirects(work, args.records, args.aliases, args.repeat),
                  "sitemap": sitemap(work), "opengraph": opengraph(work)}
    if args.json:
        print(json.dumps(result))
        return
    for name, runs in result["redirects"].items():
        print(f"redirects, {name}: {runs['redirect_pages']} pages; full build {runs['full_s']} s, no-change rebuild "
              f"{runs['rebuild_s']} s, rewriting {runs['rewritten_by_rebuild']}; {runs['log_lines']} lines logged")
    s = result["sitemap"]
    print(f"sphinx-sitemap: {s['urls_full_build']} URLs after a full build, {s['urls_after_one_edit']} after editing one record")
    o = result["opengraph"]
    print(f"sphinxext-opengraph: {len(o['without_og_title'])} of {o['pages']} pages without og:title: {', '.join(o['without_og_title'])}")


if __name__ == "__main__":
    main()
