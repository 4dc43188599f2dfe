"""A site's own fields and sections, declared in conf.py: the declaration is checked, and records
are validated against it with file:line problems."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Project
from errorkb.core.records import RecordError, load_record
from errorkb.core.settings import OPTIONS, Settings, SettingsError, settings_from


def schema_of(fields, sections=("Meaning", "Resolution"), fixes_section="Resolution"):
    return settings_from({"errorkb_fields": fields, "errorkb_sections": list(sections),
                          "errorkb_fixes_section": fixes_section}).schema


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
    schema = schema_of(FIELDS)
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
        load_record(path, schema=schema_of(FIELDS), root=tmp_path)


@pytest.mark.parametrize(("options", "message"), [
    ({"errorkb_fields": "severity"}, "errorkb_fields = 'severity': input should be a list"),
    ({"errorkb_fields": [{"label": "x"}]}, "errorkb_fields[0] has no 'name'"),
    ({"errorkb_fields": [{"name": "Sev"}]},
     "errorkb_fields[0]: 'name': 'Sev' is not a lower-case identifier such as 'severity'"),
    ({"errorkb_fields": [{"name": "title"}]}, "errorkb_fields: 'title' is a core field of every record; choose another name"),
    ({"errorkb_fields": [{"name": "sev", "values": {"Bad Value": "x"}}]},
     "errorkb_fields[0]: 'values': 'Bad Value' is not a lower-case slug such as 'run-time'"),
    ({"errorkb_fields": [{"name": "sev", "badge": "pink"}]}, "errorkb_fields[0]['badge'] = 'pink': input should be "
     "'primary', 'info', 'secondary', 'warning', 'success', 'danger' or 'plain'"),
    ({"errorkb_fields": [{"name": "sev", "many": "yes"}]}, "errorkb_fields[0]['many'] = 'yes': input should be a valid boolean"),
    ({"errorkb_fields": [{"name": "sev", "index": True}]},
     "errorkb_fields: 'sev' is free text (it has no 'values'): it cannot be open, a filter, an index or variants"),
    ({"errorkb_fields": [{"name": "sev", "colour": "red"}]}, "errorkb_fields[0] has an unknown key 'colour' (the keys: "
     "name, label, values, open, many, required, badge, column, filter, index, json, variants, slug)"),
    ({"errorkb_fields": [{"name": "a", "values": {"x": "X"}, "filter": True, "slug": "source"}]},
     "errorkb_fields: two fields take the name 'source' in URLs (set 'slug' on one)"),
    ({"errorkb_fields": [{"name": "a"}, {"name": "a"}]}, "errorkb_fields: declares 'a' twice"),
    ({"errorkb_sections": "Causes"}, "errorkb_sections = 'Causes': input should be a list"),
    ({"errorkb_sections": ["A", "A"]}, "errorkb_sections: names 'A' twice"),
    ({"errorkb_sections": ["A", " "]}, "errorkb_sections[1]: is empty"),
    ({"errorkb_source_labels": {"Py Torch": "PyTorch"}},
     "errorkb_source_labels: 'Py Torch' is not a lower-case slug such as 'sqlstate'"),
    ({"errorkb_records_dir": "../elsewhere"},
     "errorkb_records_dir: '../elsewhere' is not a folder inside the source folder, such as 'errors'"),
    ({"errorkb_max_memory": "lots"}, "errorkb_max_memory: 'lots' is not a size such as '4G' or '256K'"),
    ({"errorkb_max_timeout": True}, "errorkb_max_timeout = True: input should be a valid integer"),
    ({"errorkb_max_timeout": 0}, "errorkb_max_timeout = 0: input should be greater than 0"),
    ({"errorkb_checked_max_age": -1}, "errorkb_checked_max_age = -1: input should be greater than or equal to 0"),
    ({"errorkb_current_releases": {"PyTorch": 2.10}},
     "errorkb_current_releases['PyTorch']: 2.1 is a number: quote releases ('2.10'), as 2.10 reads as 2.1"),
    ({"errorkb_run_examples": 1}, "errorkb_run_examples = 1: input should be a valid boolean"),
])
def test_a_bad_option_is_refused_naming_it_and_where_in_its_value(options, message: str):
    with pytest.raises(SettingsError) as refused:
        settings_from(options)
    assert (refused.value.option, str(refused.value)) == (next(iter(options)), message)


def test_every_option_comes_from_its_one_declaration():
    """The options Sphinx registers, their defaults and docs are the fields of ``Settings``."""
    assert [o.name for o in OPTIONS] == [f"errorkb_{f.name}" for f in dataclasses.fields(Settings)]
    defaults = settings_from({})
    assert settings_from({o.name: o.default for o in OPTIONS}) == defaults
    assert (defaults.max_memory, defaults.max_record_size, defaults.sections) == (4 * 1024**3, 256 * 1024, ("Causes", "Fixes"))
    assert all(o.doc and o.rebuild in ("env", "html", "") for o in OPTIONS)


def test_the_build_stops_on_a_bad_declaration_at_its_line_of_conf_py(project: Project):
    project.write("conf.py", Project.CONF + '\nerrorkb_fields = [\n    {"name": "severity", "badge": "pink"},\n]\n')
    line = Project.CONF.count("\n") + 2
    project.add_record()
    result = project.build()
    assert result.returncode == 2
    assert result.stderr.startswith(f"{project.root / 'conf.py'}:{line}: ERROR: errorkb_fields[0]['badge'] = 'pink': "
                                    "input should be 'primary', ")
    assert "Configuration error!" in result.stderr and "Traceback (most recent call last)" not in result.stderr
    assert not (project.out / "index.html").exists()


def test_a_bad_option_raises_sphinxs_config_error_in_a_process_that_embeds_sphinx(project: Project, make_app):
    from sphinx.errors import ConfigError

    project.write("conf.py", Project.CONF + "errorkb_max_timeout = -5\n")
    with pytest.raises(ConfigError, match=r"^errorkb_max_timeout = -5: input should be greater than 0$"):
        make_app("html", srcdir=project.root)


def test_the_command_line_stops_on_a_bad_declaration(project: Project):
    project.write("conf.py", Project.CONF + 'errorkb_records_dir = "../elsewhere"\n')
    line = Project.CONF.count("\n") + 1
    project.add_record()
    done = subprocess.run([sys.executable, "-m", "errorkb.tools.cli", "check"], cwd=project.root, capture_output=True, text=True)
    assert done.returncode == 2
    assert f"conf.py:{line}: errorkb_records_dir: '../elsewhere' is not a folder inside the source folder" in done.stderr


def test_a_markdown_file_outside_a_records_place_is_reported(project: Project):
    project.add_record()
    project.write("errors/stray.md", "# A page at the wrong depth\n")
    result = project.build()
    assert result.returncode != 0
    assert "errors/stray.md:1: ERROR: not read as a record: records are errors/<source>/<id>.md" in result.stderr
