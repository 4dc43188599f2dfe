"""Diagnoses: the expression language, the checks that refuse a bad one with file and line, the
evaluation in Python and in the browser alike, and every record's diagnoses tried on its examples."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from conftest import DEMO_SCHEMA, ROOT, SITE_SCHEMA, record_text
from errorkb.core.diagnoses import (Diagnosis, DiagnosisError, Spec, applies, check, diagnose, format_size, of_record,
                               parse_condition, parse_message, round_half_up)
from errorkb.core.lookup import UNIT_FACTORS
from errorkb.core.records import RecordError, load_catalogue, load_record
from errorkb.core.templates import compile_template
from errorkb.core.values import SIZE_PARTS, Value
from system_tools import require

CORE = ROOT / "ext" / "errorkb" / "site" / "static" / "errorkb-lookup-core.js"
TORCH = compile_template("Tried to allocate {requested:size}. GPU {gpu:int} has a total capacity of {capacity:size} "
                         "of which {free:size} is free.{? Process {pid:int} has {other:size} memory in use.}"
                         "{? On {device:device} now.}")
FIXES = ["Stop the other process", "Set the allocator", "Use a smaller batch"]


def values(**given: str) -> dict[str, Value]:
    types = {p.name: p.type for p in TORCH.placeholders}
    return {name: Value.parse(types[name], text) for name, text in given.items()}


def diagnosis(when: str, say: str = "x", fix: str | int = 1) -> Diagnosis:
    found, problems = check(Spec(when, say, fix), [TORCH], FIXES)
    assert not problems, problems
    assert found is not None
    return found


def test_a_condition_is_a_tree_of_lists():
    assert parse_condition("other > capacity / 4 and not has(device)") == [
        "and", [">", ["val", "other"], ["/", ["val", "capacity"], ["num", 4.0]]], ["not", ["has", "device"]]]
    assert parse_condition("free < 512 MiB or -requested >= -2 GiB") == [
        "or", ["<", ["val", "free"], ["size", 512.0 * 1024**2]], [">=", ["neg", ["val", "requested"]], ["neg", ["size", 2.0 * 1024**3]]]]


@pytest.mark.parametrize(("text", "message", "column"), [
    ("", "empty", 1),
    ("other >", "unfinished condition", 8),
    ("(other > 1", "expected ')', found the end", 11),
    ("a < b < c", "comparisons do not chain", 7),
    ("other > capacity; rm", "unexpected ';'", 17),
    ("has(2) > 1", "has() takes the name of a value", 5),
    ("(" * 30 + "a" + ")" * 30, "nested more than 24 levels deep", 26),
    ("a" * 500, "longer than 400 characters", 1),
])
def test_bad_conditions_are_refused_with_a_column(text, message, column):
    with pytest.raises(DiagnosisError, match=re.escape(message)) as info:
        parse_condition(text)
    assert info.value.column == column


def test_numbers_and_sizes_up_to_2_53_are_read_and_larger_ones_refused_with_a_column():
    assert parse_condition(f"n > {2**53}") == [">", ["val", "n"], ["num", 2.0**53]]
    assert parse_condition("n > 8 PiB") == [">", ["val", "n"], ["size", 2.0**53]]
    for text, shown in ((f"n > {2**53 + 2}", "9007199254740994 is more than 9,007,199,254,740,992,"),
                        ("n > 9 PiB", "9 PiB is more than 9,007,199,254,740,992 bytes,"),
                        ("n > " + "9" * 310 + " B", f"{'9' * 40}... is more than 9,007,199,254,740,992 bytes,")):
        with pytest.raises(DiagnosisError, match=re.escape(shown + " the most a condition may name")) as info:
            parse_condition(text)
        assert info.value.column == 5


@pytest.mark.parametrize(("when", "message"), [
    ("other > 4", "'>' compares a size with a number"),
    ("other + gpu > capacity", "'+' mixes a size and a number"),
    ("other * capacity > 1", "'*' multiplies two sizes"),
    ("device > 1", "needs sizes or numbers, not a text value"),
    ("other / capacity", "is a number, not a condition"),
    ("spare > 1 GiB", "names 'spare', which no template of this record captures"),
    ("(other > 1 GiB) + 1 > 2", "needs sizes or numbers, not a condition"),
    ("other > 1 GiB and 2", "combines conditions, not a number"),
])
def test_conditions_that_mix_types_or_name_unknown_values_are_refused(when, message):
    found, problems = check(Spec(when, "x", 1), [TORCH], FIXES)
    assert found is None and any(message in p for _, p in problems), problems


def test_messages_and_fixes_are_checked_too():
    assert check(Spec("free < 1 GiB", "{spare}", 1), [TORCH], FIXES)[1][0][1].startswith("names 'spare'")
    assert "a lone '}'" in check(Spec("free < 1 GiB", "a } b", 1), [TORCH], FIXES)[1][0][1]
    assert "unknown format 'x'" in check(Spec("free < 1 GiB", "{free:x}", 1), [TORCH], FIXES)[1][0][1]
    assert "shows a condition" in check(Spec("free < 1 GiB", "{free < 1 GiB}", 1), [TORCH], FIXES)[1][0][1]
    for fix in ("Reboot", 0, 4):
        assert check(Spec("free < 1 GiB", "x", fix), [TORCH], FIXES)[1][0][0] == "fix"
    assert check(Spec("free < 1 GiB", "x", "Set the allocator"), [TORCH], FIXES)[0].fix == 2


DIAGNOSED = record_text().replace("related: []", """related: []
diagnoses:
  - when: requested > 1 GiB
    say: "{requested} asked for"
    fix: Use a smaller batch
  - when: spare > 1 GiB
    say: "{spare}"
    fix: 1
  - when: requested > 4
    say: "x"
    fix: Reboot
  - when: requested >
    say: "x"
    fix: 1
  - say: "x"
    fix: 1
    extra: 2""")


def test_check_refuses_bad_diagnoses_with_file_and_line(tmp_path: Path):
    path = tmp_path / "errors" / "demo" / "demo-oom.md"
    path.parent.mkdir(parents=True)
    path.write_text(DIAGNOSED, encoding="utf-8")
    template = re.search(r"template: (.*)", DIAGNOSED).group(1)
    assert "{requested:size}" in template, "the record of conftest captures 'requested'"
    with pytest.raises(RecordError) as info:
        load_record(path, root=tmp_path, schema=DEMO_SCHEMA)
    lines = DIAGNOSED.splitlines()

    def line_of(text: str, after: int = 0) -> int:
        return next(n for n, line in enumerate(lines, 1) if n > after and text in line)

    start = line_of("diagnoses:")
    found = {(p.line, p.message.split(":")[0]) for p in info.value.problems}
    assert found == {
        (line_of("when: spare", start), "diagnoses[1].when"),
        (line_of("say: \"{spare}\"", start), "diagnoses[1].say"),
        (line_of("when: requested > 4", start), "diagnoses[2].when"),
        (line_of("fix: Reboot", start), "diagnoses[2].fix"),
        (line_of("when: requested >", start + 8), "diagnoses[3].when"),
        (line_of("extra: 2", start), "diagnoses[4].extra"),
        (line_of("- say: \"x\"", start + 12), "diagnoses[4].when"),
    }, info.value.problems


def test_a_diagnosis_applies_only_to_the_values_it_names():
    holds = diagnosis("other > capacity / 4", "Process {pid} holds {other} of the GPU's {capacity}")
    line = values(requested="750.00 MiB", gpu="0", capacity="14.57 GiB", free="426.75 MiB", pid="2493055",
                  other="12.02 GiB")
    assert diagnose([holds], line) == [{"message": "Process 2493055 holds 12.02 GiB of the GPU's 14.57 GiB", "fix": 1,
                                        "fix_title": "Stop the other process"}]
    del line["other"], line["pid"]  # the optional part was not printed
    assert not applies(holds, line)
    absent = diagnosis("not has(other) and free < requested", "{requested - free} short, {free / capacity:%} free")
    assert diagnose([absent], line)[0]["message"] == "323.25 MiB short, 3% free"
    assert not applies(diagnosis("requested / (free - free) > 1"), line)  # a division by zero: does not apply


@pytest.mark.parametrize(("n", "shown"), [(0, "0 bytes"), (1023, "1023 bytes"), (1024, "1.00 KiB"), (1.125 * 1024**3, "1.13 GiB"),
                                          (-3 * 1024**2, "-3.00 MiB"), (5 * 1024**5, "5120.00 TiB")])
def test_sizes_are_shown_in_binary_units_rounded_as_the_browser_rounds(n, shown):
    assert format_size(n) == shown


def test_rounding_is_half_up_on_the_exact_value():
    assert [round_half_up(x, 2) for x in (1.125, 1.005, -0.0, 2.5e21, float("inf"))] == ["1.13", "1.00", "0.00", "2.50e+21", "∞"]


def test_the_browser_evaluates_as_python_does():
    """Every diagnosis of every record, and made-up ones, on every example of its record and on
    edge values: the same messages from errorkb-lookup-core.js."""
    node = require("node", "nodejs")
    catalogue, _ = load_catalogue(ROOT / "errors", schema=SITE_SCHEMA, root=ROOT)
    cases = []
    for record in catalogue.records.values():
        found = of_record(record)
        for template in record.templates:
            for example in (e.text for m in record.messages for e in m.examples):
                line = template.search(example)
                if line is not None and found:
                    cases.append((found, line))
    made_up = [diagnosis(w, s) for w, s in [
        ("other / capacity > 0.25 or free * 2 >= requested", "{other / capacity:%} {requested + free} {gpu * 1.5}"),
        ("-(requested - free) < 0 GiB and gpu != 3", "{requested / free} {gpu:size} {capacity - requested * 2}"),
        ("requested / free / 0 > 1 or has(pid)", "{pid} {other / 0}"),
    ]]
    for line in [values(requested="1.5 GiB", gpu="0", capacity="16 GiB", free="1,5 GiB", pid="1", other="4.125 GiB"),
                 values(requested="0 B", gpu="3", capacity="1 EiB", free="0 bytes"),
                 values(requested="99999999999999999999 EiB", gpu="-7", capacity="3 KB", free="1.005 KiB")]:
        cases.append((made_up, line))
    expected = [diagnose(found, line) for found, line in cases]
    job = {"index": {"units": {"shown": [list(u) for u in __import__("errorkb.core.diagnoses").core.diagnoses.SHOWN_UNITS],
                               "factors": UNIT_FACTORS, "parts": SIZE_PARTS.pattern}},
           "cases": [[[d.as_json() for d in found], {k: {"type": v.type, "text": v.text, "number": v.number}
                                                       for k, v in line.items()}] for found, line in cases]}
    script = """
const core = require(process.argv[1]);
const job = JSON.parse(require("fs").readFileSync(0, "utf8"));
const index = {shown: job.index.units.shown};
process.stdout.write(JSON.stringify(job.cases.map(function (c) { return core.diagnose(index, c[0], c[1]); })));
"""
    done = subprocess.run([node, "-e", script, str(CORE)], input=json.dumps(job), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == expected
    assert sum(bool(e) for e in expected) > 10 and sum(not e for e in expected) > 10


def test_every_diagnosis_is_met_by_an_example_of_its_record_and_missed_by_another():
    catalogue, problems = load_catalogue(ROOT / "errors", schema=SITE_SCHEMA, root=ROOT)
    assert not problems
    untested = []
    for record in catalogue.records.values():
        examples = [(t, e.text) for m, t in zip(record.messages, record.templates) for e in m.examples]
        lines = [t.search(text) or {} for t, text in examples]
        for i, found in enumerate(of_record(record)):
            met = [applies(found, line) for line in lines]
            if not (any(met) and not all(met)):
                untested.append(f"{record.id}: diagnoses[{i}] is met by {sum(met)} of {len(met)} examples")
    assert untested == []


def test_every_record_whose_messages_carry_sizes_has_a_diagnosis():
    catalogue, _ = load_catalogue(ROOT / "errors", schema=SITE_SCHEMA, root=ROOT)
    missing = [record.id for record in catalogue.records.values()
               if sum(p.type == "size" for t in record.templates for p in t.placeholders) >= 2
               and not of_record(record)]
    assert missing == []


@pytest.mark.parametrize(("when", "words"), [
    ("other > capacity / 4", "other is more than capacity / 4"),
    ("not has(pid) and (free + other) * 2 <= 1.5 GiB", "not the message gives pid and (free + other) × 2 is at most 1.50 GiB"),
    ("requested / capacity >= 0.25 or -free != 0", "requested / capacity is at least 0.25 or -free differs from 0"),
])
def test_the_record_page_says_each_condition_in_words(when, words):
    from errorkb.site.diagnoses_table import in_words
    assert in_words(parse_condition(when)) == words
