"""Records are re-checked on a rebuild only when their file changed, and never served stale."""

from __future__ import annotations

import gc
from pathlib import Path

from conftest import DEMO_SCHEMA, record_text
from errorkb.core import record_cache
from errorkb.core.records import load_catalogue


def test_unchanged_files_reuse_their_records(project) -> None:
    first = project.add_record(id="a-oom", code="A1", source="demo")
    project.add_record(id="b-oom", code="B1", source="demo")
    cache: dict = {}
    before, _ = load_catalogue(project.root / "errors", schema=DEMO_SCHEMA, root=project.root, cache=cache)
    first.write_text(record_text(id="a-oom", code="A2", source="demo"), encoding="utf-8")
    after, problems = load_catalogue(project.root / "errors", schema=DEMO_SCHEMA, root=project.root, cache=cache)
    assert after.records["b-oom"] is before.records["b-oom"]
    assert after.records["a-oom"].code == "A2"
    assert len(cache) == 2


def test_checks_across_records_still_run_on_cached_records(project) -> None:
    project.add_record(id="a-oom", code="A1", source="demo")
    cache: dict = {}
    load_catalogue(project.root / "errors", schema=DEMO_SCHEMA, root=project.root, cache=cache)
    project.add_record(id="b-oom", code="A1", source="demo")  # same code and template as a-oom
    _, problems = load_catalogue(project.root / "errors", schema=DEMO_SCHEMA, root=project.root, cache=cache)
    messages = [p.message for p in problems]
    assert "code 'A1' is already used by errors/demo/a-oom.md" in messages
    assert any("is answered exactly by a-oom's template" in m for m in messages)


def test_a_stale_or_broken_cache_file_is_ignored(tmp_path: Path) -> None:
    record_cache.write(tmp_path, {"x.md": ("digest", object)})  # type: ignore[dict-item]
    assert record_cache.read(tmp_path) != {}
    (tmp_path / record_cache.CACHE_FILE).write_bytes(b"not a pickle")
    assert record_cache.read(tmp_path) == {}


def test_loading_leaves_the_collector_as_it_found_it(project, tmp_path: Path) -> None:
    project.add_record()
    record_cache.write(tmp_path, {})
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / record_cache.CACHE_FILE).write_bytes(b"not a pickle")
    try:
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            for folder in (tmp_path, tmp_path / "broken", tmp_path / "missing"):
                record_cache.load_catalogue_cached(project.root / "errors", DEMO_SCHEMA, project.root, folder)
                assert gc.isenabled() is enabled, folder
    finally:
        gc.enable()


def test_a_rebuild_shows_an_edit_and_reports_a_broken_record(project) -> None:
    path = project.add_record()
    assert project.build().returncode == 0
    path.write_text(record_text().replace("Fewer samples per step", "Smaller batches"), encoding="utf-8")
    assert project.build().returncode == 0
    assert "Smaller batches" in (project.out / "errors/demo/demo-oom.html").read_text(encoding="utf-8")
    path.write_text(record_text().replace("phase: run-time", "phase: sometimes"), encoding="utf-8")
    result = project.build()
    assert result.returncode != 0
    assert "errors/demo/demo-oom.md:9: ERROR: phase: 'sometimes' is not one of" in result.stdout + result.stderr
