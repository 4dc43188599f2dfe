"""Diagnoses: the expression language, the checks that refuse a bad one with file and line, the
evaluation in Python and in the browser alike, and every record's diagnoses tried on its examples."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from conftest import DEMO_SCHEMA, ROOT, SITE_SCHEMA, record_text
from errorkb.core.diagnoses import (
    DECIMAL_UNITS,
    LETTER_UNITS,
    SHOWN_DECIMAL_UNITS,
    SHOWN_UNITS,
    Diagnosis,
    DiagnosisError,
    Spec,
    applies,
    check,
    diagnose,
    format_size,
    of_record,
    parse_condition,
    readings_of,
    round_half_up,
)
from errorkb.core.records import RecordError, load_catalogue, load_record, pasted_lines
from errorkb.core.templates import compile_template
from errorkb.core.values import Value
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
    assert diagnosis("free < 1 GiB", "x", "Set the allocator").fix == 2


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
    matched = re.search(r"template: (.*)", DIAGNOSED)
    assert matched is not None
    template = matched.group(1)
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
                                        "fix_title": "Stop the other process", "rules_out": False}]
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
    """Every diagnosis and reading of every record, and made-up ones, on every example of its record
    and on edge values: the same messages, in the same units, from errorkb-lookup-core.js."""
    node = require("node", "nodejs")
    catalogue, _ = load_catalogue(ROOT / "errors", schema=SITE_SCHEMA, root=ROOT)
    cases = []
    for record in catalogue.records.values():
        found = of_record(record) + readings_of(record)
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
    units = {"shown": SHOWN_UNITS, "shownDecimal": SHOWN_DECIMAL_UNITS, "decimalUnits": DECIMAL_UNITS,
             "letterUnits": LETTER_UNITS}
    job = {"index": units,
           "cases": [[[d.as_json() for d in found], {k: {"type": v.type, "text": v.text, "number": v.number}
                                                       for k, v in line.items()}] for found, line in cases]}
    script = """
const core = require(process.argv[1]);
const job = JSON.parse(require("fs").readFileSync(0, "utf8"));
const index = job.index;
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
        # An example is read as the lookup reads it: a line, or two adjacent lines joined.
        lines = [next((read for line in pasted_lines(text) if (read := t.search(line)) is not None), {})
                 for t, text in examples]
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


EXPLAINED = record_text().replace("related: []", """related: []
diagnoses:
  - when: requested > 1 GiB
    say: "{requested} asked for"
    rules_out: Use a smaller batch
  - when: requested > 2 GiB
    say: "x"
    fix: 1
    rules_out: 2
readings:
  - say: "{requested:size} asked for"
  - when: requested >
    say: "x"
  - say: "{spare}"
  - when: requested > 1 GiB
labels:
  requested: Asked for
  spare: Spare
costs:
  Use a smaller batch: free
  Reboot: money
  7: time""")


def test_readings_labels_costs_and_ruled_out_fixes_are_checked_with_file_and_line(tmp_path: Path):
    path = tmp_path / "errors" / "demo" / "demo-oom.md"
    path.parent.mkdir(parents=True)
    path.write_text(EXPLAINED, encoding="utf-8")
    with pytest.raises(RecordError) as info:
        load_record(path, root=tmp_path, schema=DEMO_SCHEMA)
    lines = EXPLAINED.splitlines()

    def line_of(text: str) -> int:
        return next(n for n, line in enumerate(lines, 1) if text in line)

    found = {(p.line, p.message.split(":")[0]) for p in info.value.problems}
    assert found == {
        (line_of("    fix: 1"), "diagnoses[1].fix"),  # both a fix and one it rules out
        (lines.index("  - when: requested >") + 1, "readings[1].when"),
        (line_of('say: "{spare}"'), "readings[2].say"),
        (len(lines) - lines[::-1].index("  - when: requested > 1 GiB"), "readings[3].say"),  # missing: its entry
        (line_of("spare: Spare"), "labels.spare"),
        (line_of("Reboot: money"), "costs.Reboot"),
        (line_of("7: time"), "costs.7"),
    }, info.value.problems


def test_a_ruled_out_fix_goes_last_and_a_reading_needs_no_condition():
    from errorkb.core.diagnoses import fixes_in_order, label_of, read, read_reading
    out = check(Spec("free < 1 GiB", "only {free} free", 3, rules_out=True), [TORCH], FIXES)[0]
    assert out is not None
    points = diagnosis("free < 1 GiB", "x", 2)
    line = values(requested="750.00 MiB", gpu="0", capacity="14.57 GiB", free="426.75 MiB")
    found = diagnose([out, points], line)
    assert found[0] == {"message": "only 426.75 MiB free", "fix": 3, "fix_title": "Use a smaller batch", "rules_out": True}
    ordered = fixes_in_order(FIXES, ["", "free", ""], found)
    assert [(f["number"], f["diagnosed"], f["ruled_out"], f["anchor"]) for f in ordered] == [
        (2, True, False, "fix-2"), (1, False, False, "fix-1"), (3, False, True, "fix-3")]
    assert ordered[0]["cost"] == "free"
    spec = read_reading({"say": "{free / capacity:%} of {capacity} free"})[0]
    assert spec is not None
    reading = check(spec, [TORCH], None)[0]
    assert reading is not None
    assert read([reading], line) == ["3% of 14.57 GiB free"]
    assert read([reading], values(requested="1 GiB", gpu="0")) == []  # the values it names are not there
    assert (label_of("other2", {}), label_of("free_bytes", {}), label_of("free", {"free": "Free now"})) == (
        "Other 2", "Free bytes", "Free now")


@pytest.mark.parametrize(("when", "words"), [
    ("other > capacity / 4", "held by it is more than a quarter of the GPU's memory"),
    ("not has(pid) and (free + other) * 2 <= 1.5 GiB",
     "not the message gives pid and (free plus held by it) times 2 is at most 1.50 GiB"),
    ("requested / capacity >= 0.25 or -free != 0", "requested is at least 25% of the GPU's memory or minus free differs from 0"),
    ("used / capacity > 2", "used is more than 2 times the GPU's memory"),
    ("capacity - free - other < capacity / 7", "the GPU's memory minus free minus held by it is less than the GPU's memory divided by 7"),
])
def test_the_record_page_says_each_condition_in_words(when, words):
    from errorkb.site.diagnoses_table import in_words
    assert in_words(parse_condition(when), {"other": "Held by it", "capacity": "The GPU's memory"}) == words
