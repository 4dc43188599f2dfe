"""A paste that matches no record is told what kind of error it looks like, in both front ends."""

from __future__ import annotations

import json

import pytest

from conftest import DEMO_SCHEMA, Project, record_text
from errorkb.core.lookup import LookupIndex, build_index, lookup
from errorkb.core.records import load_catalogue
from errorkb.core.settings import SettingsError, settings_from
from errorkb.core.triage import classify
from errorkb.tools.cli import main

KINDS = [
    {"name": "killed", "title": "Killed for memory", "page": "docs/killed", "cues": ["Killed", "exit code 137"]},
    {"name": "device", "title": "Device memory", "page": "docs/device", "cues": ["out of memory", "HBM"],
     "records": {"phase": ["run-time"]}},
    {"name": "other", "title": "Not a memory error", "page": "docs/other", "records": {"source": ["other"]}},
]


def kinds_from(kinds):
    """The kinds as a site declares them, beside the demo site's ``phase`` field."""
    fields = [{"name": "phase", "values": {"run-time": "Run time", "load-time": "Load time"}}]
    return settings_from({"errorkb_kinds": kinds, "errorkb_fields": fields}).kinds


def kind_of(kinds, text: str) -> str | None:
    kind = classify(kinds, text)
    return kind.name if kind else None


def test_the_kind_with_the_most_cues_wins_each_counted_once():
    kinds = kinds_from(KINDS)
    assert kind_of(kinds, "CUDA out of memory\nout of memory\nHBM full") == "device"
    assert kind_of(kinds, "Out Of  Memory: Killed process 12 (python)") == "killed"  # a tie: the first declared
    assert kind_of(kinds, "step 3\nKilled") == "killed"
    assert kind_of(kinds, "skilled workers; outofmemory") == "other"  # cues stand at word edges
    assert kind_of(kinds, "ModuleNotFoundError: No module named 'x'") == "other"
    assert kind_of(kinds_from(KINDS[:2]), "ModuleNotFoundError") is None


@pytest.mark.parametrize(("kinds", "problem"), [
    ("x", "errorkb_kinds = 'x': input should be a list"),
    ([{"name": "a"}], "errorkb_kinds[0] has no 'title'"),
    ([{"name": "a", "title": " ", "page": "p"}], "errorkb_kinds[0]: 'title' is empty"),
    ([{"name": "Bad Name", "title": "t", "page": "p"}],
     "errorkb_kinds[0]: 'name': 'Bad Name' is not a lower-case slug such as 'device-memory'"),
    ([{"name": "a", "title": "t", "page": "../p"}], "errorkb_kinds[0]: 'page': '../p' is not a page of the site, "
     "such as 'docs/triage/a'"),
    ([{"name": "a", "title": "t", "page": "p", "cues": "out of memory"}],
     "errorkb_kinds[0]['cues'] = 'out of memory': input should be a list"),
    ([{"name": "a", "title": "t", "page": "p", "records": {"colour": ["red"]}}],
     "errorkb_kinds: the kind 'a' takes its records by the field 'colour'; the fields are source, phase"),
    ([{"name": "a", "title": "t", "page": "p", "colour": 1}],
     "errorkb_kinds[0] has an unknown key 'colour' (the keys: name, title, page, cues, records)"),
    ([{"name": "a", "title": "t", "page": "p", "cues": ["x"]}, {"name": "a", "title": "t", "page": "q"}],
     "errorkb_kinds: declares 'a' twice"),
    ([{"name": "a", "title": "t", "page": "p"}, {"name": "b", "title": "t", "page": "q"}],
     "errorkb_kinds: only one kind may have no cues (the one a paste without any cue gets)"),
])
def test_a_bad_declaration_names_the_entry(kinds, problem):
    with pytest.raises(SettingsError) as refused:
        kinds_from(kinds)
    assert str(refused.value) == problem


@pytest.fixture
def index(tmp_path) -> LookupIndex:
    for id_, source in (("demo-oom", "demo"), ("other-fault", "other")):
        path = tmp_path / f"errors/{source}/{id_}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        text = record_text(id=id_, source=source, code=id_.upper())
        path.write_text(text if source == "demo" else text.replace("DemoError: could not allocate", "DemoFault: ring")
                        .replace("phase: run-time", "phase: load-time"))
    catalogue, problems = load_catalogue(tmp_path / "errors", schema=DEMO_SCHEMA, root=tmp_path)
    assert not problems
    return build_index(catalogue, kinds=kinds_from(KINDS), kind_urls={"device": "docs/device.html"})


def test_a_miss_gets_its_kind_and_closest_records_of_that_kind_only(index):
    result = lookup(index, "DemoError: the runtime is out of memory, could not allocate")
    assert result.kind is not None and result.kind.as_json() == {"name": "device", "title": "Device memory", "url": "docs/device.html"}
    assert [m.record["id"] for m in result.matches] == ["demo-oom"] and not result.matches[0].exact
    other = lookup(index, "DemoFault while allocating: could not allocate a ring")
    assert other.kind is not None and other.kind.name == "other"
    assert [m.record["id"] for m in other.matches] == ["other-fault"]
    killed = lookup(index, "Killed")
    assert killed.kind is not None and killed.kind.name == "killed" and killed.matches == []  # no records


def test_an_exact_answer_has_no_kind(index):
    result = lookup(index, "DemoError: could not allocate 2.00 GiB on device 0")
    assert result.matches[0].exact and result.kind is None


def test_the_kinds_travel_in_the_shipped_index(index):
    shipped = LookupIndex.from_json(json.loads(json.dumps(index.to_json())))
    assert lookup(shipped, "HBM ran out of memory").kind == lookup(index, "HBM ran out of memory").kind


def test_the_command_line_says_the_kind_and_its_page(tmp_path, capsys):
    project = Project(tmp_path)
    project.write("conf.py", Project.CONF + f"errorkb_kinds = {KINDS!r}\n")
    project.add_record()
    assert main(["--root", str(tmp_path), "lookup", "step 9\nKilled"]) == 1
    out = capsys.readouterr().out
    assert "No exact match. This looks like: Killed for memory\n   What to check first: docs/killed.html\n" in out
    assert main(["--root", str(tmp_path), "lookup", "--json", "Killed"]) == 1
    assert json.loads(capsys.readouterr().out)["kind"] == {"name": "killed", "title": "Killed for memory",
                                                         "url": "docs/killed.html"}


def test_the_build_warns_about_a_kind_whose_page_is_missing(tmp_path):
    project = Project(tmp_path)
    project.write("conf.py", Project.CONF + f"errorkb_kinds = {KINDS!r}\n")
    project.add_record()
    project.write("docs/killed.md", "# Killed\n")
    project.write("docs/device.md", "# Device\n")
    result = project.build()
    assert "the kind 'other' names the page 'docs/other', which the site does not have" in result.stderr
