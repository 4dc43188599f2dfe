"""How a record page's size grows with the catalogue: the same record's HTML at two sizes.

    python bench/page_size.py [--small 100] [--large 10000] [--theme furo] [--workdir DIR] [--json]

Generates both catalogues with the same seed (``bench/gen_records.py``: the first record is the
same in both), builds each errorkb site once, and prints the bytes of that record's page, the
median bytes of every record page, and the whole site's size, with the ratios large / small.
The target is a record page within 1.2x: the navigation lists sources, not every record.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_records import generate, write_site


def measure(n: int, root: Path, theme: str) -> dict[str, float]:
    records = generate(n)
    site = root / f"site-{n}"
    write_site(records, site, theme=theme)
    out = site / "_build" / "html"
    cmd = [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(site), str(out)]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"the {n}-record build failed:\n{result.stderr[-3000:]}")
    first = records[0]
    pages = [out / "errors" / r.source / f"{r.id}.html" for r in records]
    return {
        "records": n,
        "first_record_page_bytes": (out / "errors" / first.source / f"{first.id}.html").stat().st_size,
        "median_record_page_bytes": statistics.median(p.stat().st_size for p in pages),
        "site_bytes": sum(p.stat().st_size for p in out.rglob("*") if p.is_file()),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", type=int, default=100)
    parser.add_argument("--large", type=int, default=10_000)
    parser.add_argument("--theme", default="furo", choices=["basic", "furo"])
    parser.add_argument("--workdir", type=Path, help="where to build (default: a temporary folder)")
    parser.add_argument("--json", action="store_true", help="end with one JSON object")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        root = args.workdir or Path(tmp)
        small, large = measure(args.small, root, args.theme), measure(args.large, root, args.theme)
    ratios = {key: large[key] / small[key] for key in small if key != "records"}
    for key, ratio in ratios.items():
        print(f"{key:26} {small[key]:>14,.0f} at {args.small:,}  {large[key]:>14,.0f} at {args.large:,}  ratio {ratio:.3f}")
    if args.json:
        print(json.dumps({"theme": args.theme, "small": small, "large": large, "ratios": ratios}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
