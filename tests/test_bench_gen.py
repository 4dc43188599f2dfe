"""The benchmark's generated catalogue stays valid: it loads without problems and both sites build."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from conftest import SITE_SCHEMA
from errorkb.core.records import claimed_by_others, load_catalogue, load_record
from errorkb.core.templates import compile_template

ROOT = Path(__file__).resolve().parents[1]


def _bench_module(name: str) -> ModuleType:
    """A module of bench/, loaded without putting bench/ on sys.path, where its build.py would
    hide the ``build`` package (the packaging test's) from every later import."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = sys.modules[name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen_records = _bench_module("gen_records")
generate, render_record, write_site = gen_records.generate, gen_records.render_record, gen_records.write_site


def test_generation_is_deterministic() -> None:
    assert generate(12, seed=3) == generate(12, seed=3)
    assert generate(12, seed=3) != generate(12, seed=4)


def test_generated_records_load_without_problems(tmp_path: Path) -> None:
    records = generate(60)
    write_site(records, tmp_path)
    catalogue, problems = load_catalogue(tmp_path / "errors", schema=SITE_SCHEMA, root=tmp_path)
    assert [str(p) for p in problems] == []
    assert len(catalogue.records) == 60
    assert any(r.related for r in catalogue.records.values())
    assert {len(r.messages) for r in catalogue.records.values()} >= {1, 2}


def test_snippets_are_optional_and_keep_records_valid(tmp_path: Path) -> None:
    records = generate(5)
    assert "{snippet}" not in render_record(records[0])
    assert "```{snippet} shows" in render_record(records[0], snippets=True)
    write_site(records, tmp_path, snippets=True)
    _, problems = load_catalogue(tmp_path / "errors", schema=SITE_SCHEMA, root=tmp_path)
    assert [str(p) for p in problems] == []
    from errorkb.examples.extract import snippets_in_record
    from errorkb.tools.project import open_project

    first = next((tmp_path / "errors").glob("*/*.md"))
    found, problems = snippets_in_record(first, tmp_path, open_project(tmp_path).settings)
    assert problems == [] and [s.packages for s in found] == [("numpy",)]  # declared, so a package


def test_a_shared_template_is_reported(tmp_path: Path) -> None:
    """The generator's distinctness is what the check enforces: a copied template is caught."""
    first, second = generate(2)
    second.messages[0].template = first.messages[0].template
    second.messages[0].examples = first.messages[0].examples
    write_site([first, second], tmp_path)
    _, problems = load_catalogue(tmp_path / "errors", schema=SITE_SCHEMA, root=tmp_path)
    assert problems and all("answered exactly by" in p.message for p in problems)


@pytest.mark.parametrize("many_filed", [32, 1])
def test_short_list_finds_what_every_template_finds(tmp_path: Path, monkeypatch, many_filed: int) -> None:
    """Generic templates (placeholders at word edges, whole-line, text) are still tried, also where
    the templates under one key are short-listed by a second word (``many_filed`` 1: always)."""
    monkeypatch.setattr("errorkb.core.lookup.MANY_FILED", many_filed)
    records = generate(40, seed=5)
    pool = [e for r in records for m in r.messages for e in m.examples]
    generic = ["memory ({free:size} free of", "^Killed$", "failed to {op:identifier} {x:text}memory ({f:size} free",
               "pool exhausted", "could not {op:identifier} {b:identifier} buffer",
               "exhausted while {verb:identifier} {program:identifier};", "step_{a:int}; used"]
    for record, text in zip(records, generic):
        template = compile_template(text)
        record.messages[0].template = text
        record.messages[0].examples = [e for e in pool if template.matches(e)][:3] or ["Killed"]
    loaded = {}
    for record in records:
        path = tmp_path / "errors" / record.source / f"{record.id}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render_record(record), encoding="utf-8")
        loaded[record.id] = load_record(path, schema=SITE_SCHEMA)

    found = [p.message for p in claimed_by_others(loaded)]
    # The same check with no short-listing: every template tried on every line that holds its literal text.
    monkeypatch.setattr("errorkb.core.lookup.keys_for", lambda words: [None] * len(words))
    assert [p.message for p in claimed_by_others(loaded)] == found
    assert len(found) > len(generic)


@pytest.mark.parametrize("plain", [False, True])
def test_generated_site_builds(tmp_path: Path, plain: bool) -> None:
    write_site(generate(8), tmp_path, plain=plain)
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(tmp_path), str(tmp_path / "_build")],
        capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    pages = [p for p in (tmp_path / "_build" / "errors").glob("*/*.html")
             if 'http-equiv="refresh"' not in p.read_text(encoding="utf-8")]  # not the alias redirects
    assert len(pages) == 8
    assert "Seen in" in pages[0].read_text(encoding="utf-8")


def test_build_benchmark_reports_its_ratios(tmp_path: Path) -> None:
    """``bench/build.py --json`` ends with the ratios the targets are judged by."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "build.py"), "--records", "3", "--repeat", "1", "--serial-only",
         "--workdir", str(tmp_path), "--json"],
        capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.splitlines()[-1])
    report = out["sizes"][0]
    assert report["records"] == 3 and report["parallel_speedup"] is None
    for key in ("overhead_ratio", "overhead_ratio_cpu", "incremental_ratio", "memory_ratio"):
        assert 0 < report[key] < 10, key
    assert set(report["medians"]) == {"full_errorkb", "full_plain", "incremental_errorkb", "incremental_plain"}
    verdicts = {row["ratio"]: row["met"] for row in out["targets"]}
    assert verdicts["parallel_speedup"] is None  # not measured with --serial-only
    assert {verdicts[key] for key in ("overhead_ratio", "overhead_ratio_cpu", "memory_ratio")} <= {True, False}
    assert "against the targets:" in result.stdout
