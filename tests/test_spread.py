"""Loading the records in several processes (a build with ``-j``) gives what loading them in one
gives: the same records, the same problems in the same words, the same cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import DEMO_SCHEMA, record_text
from errorkb.core import spread
from errorkb.core.records import MAX_RECORD_BYTES, load_catalogue
from errorkb.core.spread import load_spread


@pytest.fixture(autouse=True)
def spread_even_a_few(monkeypatch) -> None:
    monkeypatch.setattr(spread, "FEW", 2)


def write(root: Path, id_: str, text: str) -> None:
    path = root / f"errors/demo/{id_}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def catalogue_with_problems(root: Path) -> None:
    """Records that load, a claim across records, a code used twice, a YAML error and a related
    id that no record has: every check across records has something to say."""
    for n in range(12):
        write(root, f"demo-n{n}", record_text(id=f"demo-n{n}", code=f"DEMON{n}").replace(
            "DemoError: could not allocate", f"DemoError{n}: could not allocate"))
    write(root, "demo-oom", record_text())
    write(root, "demo-twin", record_text(id="demo-twin", code="DEMOT"))  # claims demo-oom's example, and back
    write(root, "demo-same", record_text(id="demo-same", code="DEMON3").replace("DemoError:", "DemoSame:"))
    write(root, "demo-bad", record_text(id="demo-bad", code="DEMOB").replace("title: Demo", "title: [Demo"))
    write(root, "demo-lost", record_text(id="demo-lost", code="DEMOL", related="[demo-nowhere]").replace(
        "DemoError:", "DemoLost:"))


def outcome(root: Path, processes: int, cache: dict | None = None) -> tuple[list[str], list[str]]:
    """What loading gives in ``processes`` processes, as a build with ``-j`` loads (one process where
    :func:`load_spread` declines)."""
    given = {"schema": DEMO_SCHEMA, "root": root, "cache": cache, "max_bytes": MAX_RECORD_BYTES}
    spread = load_spread(root / "errors", processes=processes, **given) if processes > 1 else None
    catalogue, problems = spread or load_catalogue(root / "errors", **given)
    return sorted(catalogue.records), [str(p) for p in problems]


def test_several_processes_load_what_one_loads(tmp_path: Path) -> None:
    catalogue_with_problems(tmp_path)
    serial = outcome(tmp_path, 1)
    assert len(serial[0]) == 16 and len(serial[1]) >= 5
    assert outcome(tmp_path, 2) == serial


def test_several_processes_fill_and_reuse_the_cache_as_one_does(tmp_path: Path) -> None:
    catalogue_with_problems(tmp_path)
    one: dict = {}
    several: dict = {}
    outcome(tmp_path, 1, one)
    first = outcome(tmp_path, 2, several)
    assert {path: digest for path, (digest, _) in several.items()} == {path: digest for path, (digest, _) in one.items()}
    before = {path: record for path, (_, record) in several.items()}
    write(tmp_path, "demo-n0", record_text(id="demo-n0", code="DEMON0").replace(
        "DemoError: could not allocate", "DemoErrorZero: could not allocate"))
    assert outcome(tmp_path, 2, several) == first
    parsed = sorted(Path(path).name for path, (_, record) in several.items() if record is not before.get(path))
    assert parsed == ["demo-n0.md"]  # the others come from the cache; demo-bad, which fails, is never cached


def test_an_example_that_does_not_match_is_reported_as_one_process_reports_it(tmp_path: Path) -> None:
    catalogue_with_problems(tmp_path)
    text = record_text(id="demo-wrong", code="DEMOW").replace("DemoError:", "DemoWrong:")
    write(tmp_path, "demo-wrong", text.replace("on device 0", "on GPU zero"))
    serial = outcome(tmp_path, 1)
    assert any("demo-wrong.md:14: messages[0].examples[0] does not match its template" in p for p in serial[1])
    assert outcome(tmp_path, 2) == serial
