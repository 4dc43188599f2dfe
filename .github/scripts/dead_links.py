"""The dead links of a linkcheck run, as the body of an issue.

    python .github/scripts/dead_links.py _build/linkcheck/output.json > dead-links.md

Reads Sphinx's linkcheck output (one JSON object a line) and prints, by page, every link that
is broken, with its line and the answer it got; exits 1 (printing nothing) when none is.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path


def dead_links(lines: list[str]) -> dict[str, list[dict]]:
    by_page: dict[str, list[dict]] = defaultdict(list)
    for line in lines:
        if line.strip():
            entry = json.loads(line)
            if entry.get("status") == "broken":
                by_page[entry["filename"]].append(entry)
    return dict(sorted(by_page.items()))


def report(by_page: dict[str, list[dict]]) -> str:
    count = sum(map(len, by_page.values()))
    out = [f"The weekly link check found {count} dead link(s). A record's `seen:` link that is gone "
           "should be replaced by another public thread that shows the example (or the example removed); a "
           "reference that moved should point at the vendor's current page.", ""]
    for page, entries in by_page.items():
        out.append(f"## {page}")
        out += [f"- line {e.get('lineno', '?')}: {e['uri']} ({e.get('info') or e.get('code')})" for e in entries]
        out.append("")
    return "\n".join(out)


def main(argv: list[str]) -> int:
    by_page = dead_links(Path(argv[1]).read_text(encoding="utf-8").splitlines())
    if not by_page:
        return 1
    print(report(by_page))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
