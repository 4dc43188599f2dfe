"""The vendors' code catalogues a site follows: which codes have a record, and a page inviting the rest."""

from __future__ import annotations

from pathlib import Path

from conftest import DEMO_SCHEMA, Project, record_text
from errorkb.core.code_catalogues import code_slug, coverage, load_code_catalogue
from errorkb.core.records import load_catalogue
from errorkb.tools.cli import main

CATALOGUE = """\
title: Demo runtime error codes
vendor: Demo Inc.
url: https://demo.example.org/errors
codes:
  - code: DEMO1
    meaning: The device could not allocate a buffer.
    url: https://demo.example.org/errors/DEMO1
  - code: DEMO 42
    meaning: The ring stalled.
  - code: OLD7
    meaning: An old code, now an alias.
"""


def project_with_catalogue(tmp_path: Path) -> Project:
    project = Project(tmp_path)
    project.write("conf.py", Project.CONF + "errorkb_code_catalogues = {'demo-runtime': 'codes/demo.yaml'}\n"
                  "errorkb_repository_url = 'https://github.com/example/demo-kb'\n"
                  "html_sidebars = {'**': ['errorkb-sources.html']}\n")
    project.write("codes/demo.yaml", CATALOGUE)
    project.add_record(record_text().replace("related: []", "related: []\naliases: [OLD7]"))
    return project


def test_each_code_has_its_record_by_code_or_alias(tmp_path):
    project = project_with_catalogue(tmp_path)
    vendor, problems = load_code_catalogue("demo-runtime", tmp_path / "codes/demo.yaml", "codes/demo.yaml")
    assert problems == [] and vendor is not None
    assert [c.code for c in vendor.codes] == ["DEMO1", "DEMO 42", "OLD7"]
    records, _ = load_catalogue(project.root / "errors", schema=DEMO_SCHEMA, root=project.root)
    assert [(c.code, r.id if r else None) for c, r in coverage(vendor, records.records.values())] == [
        ("DEMO1", "demo-oom"), ("DEMO 42", None), ("OLD7", "demo-oom")]
    assert code_slug("DEMO 42") == "demo-42" and code_slug("Xid 79") == "xid-79"


def test_the_site_shows_the_coverage_and_invites_the_missing_codes(tmp_path):
    project = project_with_catalogue(tmp_path)
    result = project.build()
    assert result.returncode == 0, result.stderr
    overview = (project.out / "coverage/index.html").read_text(encoding="utf-8")
    assert "Demo runtime error codes" in overview and "2 of 3" in overview
    table = (project.out / "coverage/demo-runtime.html").read_text(encoding="utf-8")
    assert 'href="../errors/demo/demo-oom.html"' in table and 'href="demo-runtime/demo-42.html"' in table
    missing = (project.out / "coverage/demo-runtime/demo-42.html").read_text(encoding="utf-8")
    assert "The ring stalled." in missing and "errorkb new --code 'DEMO 42'" in missing
    assert "https://github.com/example/demo-kb" in missing
    assert not (project.out / "coverage/demo-runtime/demo1.html").exists()
    assert 'href="coverage/index.html">Vendor code catalogues' in (project.out / "index.html").read_text(encoding="utf-8")


def test_a_broken_catalogue_names_its_file_and_line_in_check_and_the_build(tmp_path, capsys):
    project = project_with_catalogue(tmp_path)
    project.write("codes/demo.yaml", CATALOGUE.replace("    meaning: The ring stalled.\n", "    meaning: ''\n")
                  + "  - code: DEMO1\n    meaning: twice\n")
    assert main(["--root", str(tmp_path), "check"]) == 1
    out = capsys.readouterr().out
    assert "codes/demo.yaml:8: DEMO 42: 'meaning' must say what the vendor says it means" in out
    assert "codes/demo.yaml:12: DEMO1 is listed twice (also at line 5)" in out
    result = project.build()
    assert "codes/demo.yaml:12: WARNING: DEMO1 is listed twice (also at line 5)" in result.stderr


def test_every_code_of_the_site_s_catalogues_that_has_a_record_finds_it_alone_and_exactly():
    from conftest import ROOT
    from errorkb.core.code_catalogues import load_code_catalogues
    from errorkb.core.lookup import build_index, lookup
    from errorkb.tools.project import open_project

    project = open_project(ROOT)
    records, _ = project.load()
    vendors, problems = load_code_catalogues(project.settings.code_catalogues, ROOT)
    assert problems == [] and vendors
    index = build_index(records)
    for vendor in vendors:
        for code, record in coverage(vendor, records.records.values()):
            if record is None:
                continue
            [first, *_] = lookup(index, code.code).matches
            assert (first.record["id"], first.exact) == (record.id, True), code.code


def test_a_catalogue_that_is_a_fifo_or_nested_too_deep_is_refused_at_its_line(tmp_path):
    import os

    deep = tmp_path / "deep.yaml"
    deep.write_text("title: x\ncodes: " + "[" * 50_000 + "]" * 50_000 + "\n")
    vendor, problems = load_code_catalogue("deep", deep, "deep.yaml")
    assert vendor is None and [str(p) for p in problems] == ["deep.yaml:2: nested more than 64 levels deep"]
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    vendor, problems = load_code_catalogue("fifo", fifo, "fifo.yaml")
    assert vendor is None and [str(p) for p in problems] == ["fifo.yaml:1: it is a FIFO, not a file"]
    vendor, problems = load_code_catalogue("none", tmp_path / "none.yaml", "none.yaml")
    assert [str(p) for p in problems] == ["none.yaml:1: no such file"]
