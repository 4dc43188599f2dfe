"""A site's own fields and sections, declared in conf.py: the declaration is checked, and records
are validated against it with file:line problems."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Project, record_text
from errorkb.core.records import RecordError, load_record
from errorkb.core.schema import SchemaError, schema_from

FIELDS = [
    {"name": "severity", "label": "Severity", "values": {"error": "ERROR", "fatal": "FATAL"}, "required": True},
    {"name": "clients", "label": "Client", "values": {"psql": "psql"}, "open": True, "many": True},
    {"name": "since", "label": "Since release"},
]
RECORD = """\
---
id: demo-oom
title: Demo device ran out of memory
summary: The demo device could not allocate a buffer because its memory was full.
source: demo
{fields}messages:
  - template: "DemoError: could not allocate {{requested:size}}"
    examples:
      - "DemoError: could not allocate 2.00 GiB"
---

## Meaning

The device was full.

## Resolution

### Use a smaller batch

Fewer samples per step.
{extra}"""


def load(tmp_path: Path, fields: str, extra: str = ""):
    path = tmp_path / "errors" / "demo" / "demo-oom.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(RECORD.format(fields=fields, extra=extra), encoding="utf-8")
    schema = schema_from(FIELDS, ["Meaning", "Resolution"], "Resolution")
    return load_record(path, schema=schema, root=tmp_path)


def problems(tmp_path: Path, fields: str, extra: str = "") -> list[str]:
    with pytest.raises(RecordError) as refused:
        load(tmp_path, fields, extra)
    return [str(p) for p in refused.value.problems]


def test_a_record_takes_the_sites_fields_and_sections(tmp_path: Path):
    record = load(tmp_path, "severity: fatal\nclients: [psql, pgadmin]\nsince: '9.0'\n", "\n## Notes\n\nFree prose.\n")
    assert (record.value("severity"), record.values("clients"), record.value("since")) == ("fatal", ["psql", "pgadmin"], "9.0")
    assert list(record.sections) == ["Meaning", "Resolution", "Notes"] and record.fixes[0].title == "Use a smaller batch"
    assert load(tmp_path, "severity: error\n").values("clients") == []


@pytest.mark.parametrize(("fields", "expected"), [
    ("", "errors/demo/demo-oom.md:2: missing required field 'severity'"),
    ("severity: warning\n", "errors/demo/demo-oom.md:6: severity: 'warning' is not one of 'error' or 'fatal'"),
    ("severity: error\nclients: [Not A Slug]\n", "errors/demo/demo-oom.md:7: clients: 'Not A Slug' is not a lower-case slug"),
    ("severity: error\nplatforms: [gpu]\n", "errors/demo/demo-oom.md:7: unknown field 'platforms'"),
    ("severity: error\nsince: ' '\n", "errors/demo/demo-oom.md:7: since: is empty"),
])
def test_a_wrong_value_is_reported_at_its_line(tmp_path: Path, fields: str, expected: str):
    assert any(p.startswith(expected) for p in problems(tmp_path, fields)), problems(tmp_path, fields)


def test_sections_are_the_sites(tmp_path: Path):
    text = RECORD.format(fields="severity: error\n", extra="").replace("## Meaning\n\nThe device was full.\n\n", "")
    path = tmp_path / "errors" / "demo" / "demo-oom.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RecordError, match="missing section '## Meaning'"):
        load_record(path, schema=schema_from(FIELDS, ["Meaning", "Resolution"], "Resolution"), root=tmp_path)


@pytest.mark.parametrize(("fields", "sections", "message"), [
    ("severity", ["A"], "errorkb_fields must be a list"),
    ([{"label": "x"}], ["A"], "errorkb_fields[0]: 'name' must be a lower-case identifier"),
    ([{"name": "title"}], ["A"], "'title' is a core field"),
    ([{"name": "sev", "values": {"Bad Value": "x"}}], ["A"], "value 'Bad Value' is not a lower-case slug"),
    ([{"name": "sev", "badge": "pink"}], ["A"], "'badge' must be one of"),
    ([{"name": "sev", "index": True}], ["A"], "a free-text field cannot be a filter, index or variants"),
    ([{"name": "sev", "colour": "red"}], ["A"], "unknown key(s) 'colour'"),
    ([{"name": "a", "values": {"x": "X"}, "filter": True, "slug": "source"}], ["A"], "two fields take the name 'source'"),
    ([{"name": "a"}, {"name": "a"}], ["A"], "declares 'a' twice"),
    ([], "Causes", "errorkb_sections must be a list of section titles"),
    ([], ["A", "A"], "errorkb_sections names a section twice"),
])
def test_a_bad_declaration_is_refused_naming_the_option(fields, sections, message: str):
    with pytest.raises(SchemaError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[").replace("]", r"\]")):
        schema_from(fields, sections)


def test_the_build_stops_on_a_bad_declaration_with_the_options_name(project: Project):
    project.write("conf.py", Project.CONF + 'errorkb_fields = [{"name": "severity", "badge": "pink"}]\n')
    project.add_record()
    result = project.build()
    assert result.returncode != 0
    assert "errorkb_fields[0] (severity): 'badge' must be one of" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_command_line_stops_on_a_bad_declaration(project: Project):
    project.write("conf.py", Project.CONF + 'errorkb_records_dir = "../elsewhere"\n')
    project.add_record()
    done = subprocess.run([sys.executable, "-m", "errorkb.tools.cli", "check"], cwd=project.root, capture_output=True, text=True)
    assert done.returncode == 2 and "errorkb_records_dir = '../elsewhere' is not a folder inside the source folder" in done.stderr


def test_a_markdown_file_outside_a_records_place_is_reported(project: Project):
    project.add_record()
    project.write("errors/stray.md", "# A page at the wrong depth\n")
    result = project.build()
    assert result.returncode != 0
    assert "errors/stray.md:1: ERROR: not read as a record: records are errors/<source>/<id>.md" in result.stderr
