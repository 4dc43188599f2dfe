"""The compiled catalogue gives the answers the records give: every example of every record,
looked up, and every record explained, against the lookup index built from the loaded records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ROOT
from errorkb.core.lookup import build_index, lookup, record_url
from errorkb.tools.answers import Answers
from errorkb.tools.explain import explained
from errorkb.tools.project import open_project
from lookup_records import write_records

BASE = "https://kb.example.org/"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("compiled-demo")
    write_records(root)
    return root


def from_records(root: Path, base: str):
    """The records of ``root``, loaded, and the lookup index built from them with pages under ``base``."""
    project = open_project(root)
    catalogue, problems = project.load()
    assert not problems
    kinds = project.settings.kinds
    index = build_index(catalogue, {i: base + record_url(r) for i, r in catalogue.records.items()}, kinds=kinds,
                        kind_urls={k.name: f"{base}{k.page}.html" for k in kinds})
    return project, catalogue, index


def answer(index, paste: str) -> dict:
    result = lookup(index, paste)
    return {"matches": [m.as_json() for m in result.matches], "notices": result.notices,
            "kind": result.kind.as_json() if result.kind else None}


@pytest.fixture(params=["the site", "the demo"])
def both(request, demo: Path, monkeypatch):
    """This site, then the demo: its project, records and index from the records, and its answers
    from the compiled catalogue, pages under ``BASE``."""
    root = ROOT if request.param == "the site" else demo
    monkeypatch.setenv("ERRORKB_BASE_URL", BASE)
    return (*from_records(root, BASE), Answers.load(root))


def test_every_example_and_title_is_answered_as_the_records_answer_it(both):
    _, catalogue, index, answers = both
    pastes = [e.text for r in catalogue.records.values() for m in r.messages for e in m.examples]
    pastes += [r.title for r in catalogue.records.values()]  # mostly no exact match: the closest records
    exact = 0
    for paste in pastes:
        found = answers.lookup(paste)
        assert found == answer(index, paste), paste
        exact += bool(found["matches"]) and found["matches"][0]["exact"]
    assert 0 < exact < len(pastes)  # both exact answers and closest ones were compared
    # What the block under a failure adds to a match: the record's first fixes.
    assert [r["fixes"] for r in answers.index.records] == [r["fixes"] for r in index.records]


def test_every_record_is_explained_as_the_records_explain_it(both):
    project, catalogue, _, answers = both
    for record in catalogue.records.values():
        expected = json.loads(json.dumps(explained(project, catalogue, record.id, BASE)))
        assert expected["url"] == BASE + record_url(record)
        for key in (record.id, *record.codes, *record.aliases):
            assert answers.explain(key) == expected, key
    assert answers.explain("no-such-error") is None
