"""Loading records: every bad input is one problem naming file and line."""

import json
from pathlib import Path

import pytest

from conftest import DEMO_SCHEMA, ROOT, SITE_SCHEMA, record_text
from errorkb.core.records import RecordError, load_catalogue, load_record, redirect_pages
from errorkb.tools.project import open_project


def problems_of(tmp_path: Path, text: str, name: str = "errors/demo/demo-oom.md") -> list[str]:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RecordError) as info:
        load_record(path, root=tmp_path, schema=DEMO_SCHEMA)
    return [str(p) for p in info.value.problems]


def test_valid_record_loads(tmp_path):
    path = tmp_path / "errors/demo/demo-oom.md"
    path.parent.mkdir(parents=True)
    path.write_text(record_text())
    record = load_record(path, root=tmp_path, schema=DEMO_SCHEMA)
    assert record.id == "demo-oom" and record.path == "errors/demo/demo-oom.md"
    assert [f.title for f in record.fixes] == ["Use a smaller batch", "Free what you no longer need"]
    assert record.sections["Debugging"].startswith("Print the memory")
    assert record.line_of("messages[0].examples[0]") == 14


SEEN = """\
      - text: "DemoError: could not allocate 1.50 GiB on device 3"
        seen: https://github.com/demo/demo/issues/1
"""


def test_an_example_may_say_where_it_was_seen(tmp_path):
    path = tmp_path / "errors/demo/demo-oom.md"
    path.parent.mkdir(parents=True)
    path.write_text(record_text().replace("related:", SEEN + "related:"))
    first, second = load_record(path, root=tmp_path, schema=DEMO_SCHEMA).messages[0].examples
    assert (first.text, first.seen) == ("DemoError: could not allocate 2.00 GiB on device 0", None)
    assert (second.text, second.seen) == ("DemoError: could not allocate 1.50 GiB on device 3", "https://github.com/demo/demo/issues/1")


def test_where_an_example_was_seen_must_be_a_url(tmp_path):
    text = record_text().replace("related:", SEEN.replace("https://", "") + "related:")
    assert problems_of(tmp_path, text) == [
        "errors/demo/demo-oom.md:16: messages[0].examples[1].seen: 'github.com/demo/demo/issues/1' is not an http(s) URL"]


def test_a_seen_example_must_match_its_template(tmp_path):
    text = record_text().replace("related:", SEEN.replace("on device 3", "on GPU three") + "related:")
    assert problems_of(tmp_path, text) == [
        "errors/demo/demo-oom.md:15: messages[0].examples[1] does not match its template: matching stops at character 39, "
        "where ' on device ' should follow but the line has ' on GPU three'"]


def test_yaml_error(tmp_path):
    text = record_text().replace("title: Demo device", "title: [Demo device")
    [problem] = problems_of(tmp_path, text)
    assert problem.startswith("errors/demo/demo-oom.md:") and "invalid YAML" in problem


@pytest.mark.parametrize(("change", "line", "words"), [
    (("phase: run-time", "phase: run-time\n\tcategory: device-memory"), 10, "a tab: YAML indents with spaces only"),
    (("messages:\n", "messages:\n\t"), 12, "a tab: YAML indents with spaces only"),
    (("title: Demo device ran out of memory", "title: Demo device: out of memory"), 4,
     "a ': ' inside a value (put the value in quotes"),
    (("title: Demo device", 'title: "Demo device'), 4, "a quote opened on this line is not closed on it"),
    (("title: Demo device", "title: @Demo device"), 4, "a value cannot start with '@': put the value in quotes"),
    (("related: []", "related: []\njust a line"), 16, "a line that is neither 'key: value' nor a list item"),
])
def test_a_yaml_mistake_is_said_in_words_at_its_line(tmp_path, change, line, words):
    [problem] = problems_of(tmp_path, record_text().replace(*change))
    assert problem.startswith(f"errors/demo/demo-oom.md:{line}: invalid YAML: {words}"), problem


def test_a_required_field_left_empty_says_so(tmp_path):
    text = record_text().replace("summary: The demo", "summary:  # later\nx_summary: The demo").replace(
        "phase: run-time", "phase:").replace("platforms: [gpu]", "platforms: []")
    problems = problems_of(tmp_path, text.replace("x_summary: The demo device could not allocate a buffer because its "
                                                  "memory was full.\n", ""))
    assert "errors/demo/demo-oom.md:5: summary is empty: fill it in" in problems
    assert "errors/demo/demo-oom.md:7: platforms is empty: fill it in" in problems
    assert "errors/demo/demo-oom.md:9: phase is empty: fill it in with one of 'compile-time', 'load-time' or 'run-time'" in problems


def test_a_section_of_comments_only_is_empty(tmp_path):
    text = record_text().replace("Print the memory in use before the failing step.", "% Say how to debug it.")
    assert problems_of(tmp_path, text) == ["errors/demo/demo-oom.md:32: section '## Debugging' is empty"]


def test_missing_field(tmp_path):
    text = record_text().replace("summary: The demo device could not allocate a buffer because its memory was full.\n", "")
    assert problems_of(tmp_path, text) == ["errors/demo/demo-oom.md:2: missing required field 'summary'"]


def test_unknown_field(tmp_path):
    text = record_text().replace("phase: run-time\n", "phase: run-time\nseverity: high\n")
    assert problems_of(tmp_path, text) == ["errors/demo/demo-oom.md:10: unknown field 'severity'"]


def test_wrong_type(tmp_path):
    text = record_text().replace("platforms: [gpu]", "platforms: gpu")
    [problem] = problems_of(tmp_path, text)
    assert problem.startswith("errors/demo/demo-oom.md:7: platforms:")


def test_value_outside_the_vocabulary(tmp_path):
    text = record_text().replace("phase: run-time", "phase: runtime")
    [problem] = problems_of(tmp_path, text)
    assert problem.startswith("errors/demo/demo-oom.md:9: phase: 'runtime' is not one of")


def test_field_given_twice(tmp_path):
    text = record_text().replace("phase: run-time\n", "phase: run-time\nphase: load-time\n")
    assert problems_of(tmp_path, text) == ["errors/demo/demo-oom.md:10: field 'phase' is given twice"]


def test_example_that_does_not_match_its_template(tmp_path):
    text = record_text().replace("on device 0\"", "on GPU zero\"")
    assert problems_of(tmp_path, text) == [
        "errors/demo/demo-oom.md:14: messages[0].examples[0] does not match its template: matching stops at character 39, "
        "where ' on device ' should follow but the line has ' on GPU zero'"]


@pytest.mark.parametrize(("example", "where"), [
    ("DemoError: could not allocate two GB on device 0", "character 31, where {requested:size} finds no value in 'two GB on device 0'"),
    ("DemoError: could not allocate 2.00 GiB on device zero", "character 50, where {device:int} finds no value in 'zero'"),
    ("DemoError: could not reserve 2.00 GiB on device 0", "it does not hold the template's first literal 'DemoError: could not allocate '"),
    ("Traceback\nDemoError: could not allocate 2.00 GiB on devices 0", "line 2, character 39, where ' on device ' should follow"),
])
def test_an_example_that_does_not_match_says_where_matching_stops(tmp_path, example, where):
    text = record_text().replace('"DemoError: could not allocate 2.00 GiB on device 0"', json.dumps(example), 1)
    [problem] = problems_of(tmp_path, text)
    assert where in problem


def test_bad_template_names_its_line_and_column(tmp_path):
    text = record_text().replace("{requested:size}", "{requested:bytes}")
    [problem] = problems_of(tmp_path, text)
    assert problem.startswith("errors/demo/demo-oom.md:12: messages[0].template: unknown placeholder type 'bytes'")
    assert problem.endswith("(at character 31 of the template)")


def test_every_problem_is_reported_in_one_pass(tmp_path):
    text = record_text().replace("phase: run-time", "phase: runtime").replace("on device 0\"", "on GPU zero\"")
    assert len(problems_of(tmp_path, text)) == 2


def test_id_must_match_file_name(tmp_path):
    assert problems_of(tmp_path, record_text(), "errors/demo/other.md") == [
        "errors/demo/other.md:2: id 'demo-oom' must equal the file name 'other'"
    ]


def test_missing_and_misordered_sections(tmp_path):
    text = record_text().replace("## Debugging\n\nPrint the memory in use before the failing step.\n", "")
    assert problems_of(tmp_path, text) == [f"errors/demo/demo-oom.md:{text.count(chr(10)) + 1}: missing section '## Debugging'"]


def test_headings_inside_code_fences_are_not_sections(tmp_path):
    path = tmp_path / "errors/demo/demo-oom.md"
    path.parent.mkdir(parents=True)
    path.write_text(record_text().replace("Fewer samples", "```python\n# not a heading\n## nor this\n```\n\nFewer samples"))
    assert load_record(path, schema=DEMO_SCHEMA).fixes[0].body.startswith("```python")


def test_no_front_matter_and_not_utf8(tmp_path):
    assert problems_of(tmp_path, "# Just prose\n") == [
        "errors/demo/demo-oom.md:1: a record starts with YAML front matter between two '---' lines"
    ]
    path = tmp_path / "errors/demo/bin.md"
    path.write_bytes(b"---\nid: x\n\xff\xfe\n")
    with pytest.raises(RecordError, match=r"bin.md:3: the file is not UTF-8 text"):
        load_record(path, root=tmp_path, schema=DEMO_SCHEMA)


def write(tmp_path: Path, error: str = "DemoError", **fields: str) -> None:
    """A record; ``error`` names the error of its message (records of one catalogue need their own)."""
    path = tmp_path / f"errors/{fields.get('source', 'demo')}/{fields['id']}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(record_text(**fields).replace("DemoError", error))


def test_duplicate_code_across_records(tmp_path):
    write(tmp_path, id="demo-oom")
    write(tmp_path, id="demo-other", code="demo1")
    _, problems = load_catalogue(tmp_path / "errors", schema=DEMO_SCHEMA, root=tmp_path)
    messages = [str(p) for p in problems]
    assert "errors/demo/demo-other.md:3: code 'demo1' is already used by errors/demo/demo-oom.md" in messages


def test_unknown_related_id(tmp_path):
    write(tmp_path, id="demo-oom", related="[demo-nothing]")
    _, problems = load_catalogue(tmp_path / "errors", schema=DEMO_SCHEMA, root=tmp_path)
    assert [str(p) for p in problems] == ["errors/demo/demo-oom.md:15: related[0]: no record has the id 'demo-nothing'"]


def test_example_claimed_by_another_records_template(tmp_path):
    write(tmp_path, id="demo-oom")
    write(tmp_path, id="demo-other", code="DEMO2")  # same template: each claims the other's example
    _, problems = load_catalogue(tmp_path / "errors", schema=DEMO_SCHEMA, root=tmp_path)
    assert "errors/demo/demo-other.md:14: messages[0].examples[0] is answered exactly by demo-oom's template " \
           "'DemoError: could not allocate {requested:size} on device {device:int}' as well: make that more specific, " \
           "or move the example to that record" in map(str, problems)
    assert "errors/demo/demo-other.md:14: messages[0].examples[0] is not answered exactly by its own record: the " \
           "lookup reads it as a mention, or another record's template wins its line" in map(str, problems)


def test_a_less_specific_template_of_another_record_on_the_same_line_is_fine(tmp_path):
    write(tmp_path, id="demo-oom")
    generic = record_text(id="demo-generic", code="DEMO2").replace(
        "DemoError: could not allocate {requested:size} on device {device:int}", "DemoError: could not allocate")
    (tmp_path / "errors/demo/demo-generic.md").write_text(
        generic.replace('"DemoError: could not allocate 2.00 GiB on device 0"', '"DemoError: could not allocate"'))
    _, problems = load_catalogue(tmp_path / "errors", schema=DEMO_SCHEMA, root=tmp_path)
    assert problems == []


def write_other_whose_example_holds_demo_oom(tmp_path) -> None:
    """A second record, whose example's second line is demo-oom's message."""
    other = record_text(id="demo-other", code="DEMO2").replace(
        "DemoError: could not allocate {requested:size} on device {device:int}", "DemoFault: the ring {ring:int} stalled")
    (tmp_path / "errors/demo/demo-other.md").write_text(other.replace(
        '"DemoError: could not allocate 2.00 GiB on device 0"',
        '"DemoFault: the ring 3 stalled\\nDemoError: could not allocate 1.00 GiB on device 1"'))


def test_another_records_name_or_template_on_another_line_of_an_example_claims_it(tmp_path):
    write(tmp_path, id="demo-oom")
    write_other_whose_example_holds_demo_oom(tmp_path)
    _, problems = load_catalogue(tmp_path / "errors", schema=DEMO_SCHEMA, root=tmp_path)
    assert [str(p) for p in problems] == [
        "errors/demo/demo-other.md:14: messages[0].examples[0] is answered exactly by demo-oom's template "
        "'DemoError: could not allocate {requested:size} on device {device:int}' as well: make that more specific, "
        "or move the example to that record"]


def test_a_summary_line_may_stand_beside_another_records_message_in_its_example(tmp_path):
    """As the other record's template above, but marked as a summary line: the lookup lets it
    yield to the message it summarises, so the example has one exact answer."""
    write(tmp_path, id="demo-oom")
    text = (tmp_path / "errors/demo/demo-oom.md").read_text()
    (tmp_path / "errors/demo/demo-oom.md").write_text(text.replace("    examples:", "    summary_line: true\n    examples:"))
    write_other_whose_example_holds_demo_oom(tmp_path)
    catalogue, problems = load_catalogue(tmp_path / "errors", schema=DEMO_SCHEMA, root=tmp_path)
    assert problems == [] and catalogue.records["demo-oom"].messages[0].summary_line


def test_a_code_as_printed_may_hold_spaces_and_punctuation(tmp_path):
    write(tmp_path, id="demo-oom", code='"HTTP 413"')
    write(tmp_path, "DemoTwo", id="demo-other", code='"Xid 79"')
    catalogue, problems = load_catalogue(tmp_path / "errors", schema=DEMO_SCHEMA, root=tmp_path)
    assert problems == []
    assert [getattr(catalogue.find(code), "id", None) for code in ("http  413", "XID 79")] == ["demo-oom", "demo-other"]
    assert redirect_pages(catalogue.records["demo-oom"]) == {"HTTP-413": "HTTP 413"}


def test_a_code_whose_redirect_page_cannot_be_named_is_a_problem_unless_it_opts_out(tmp_path):
    assert problems_of(tmp_path, record_text(code='"!!"')) == [
        "errors/demo/demo-oom.md:3: code '!!' holds no letter or digit to name its redirect page: "
        "set 'redirects: false' to give it none"]
    text = record_text(code='"!!"').replace("related: []", "related: []\nredirects: false")
    path = tmp_path / "errors/demo/demo-oom.md"
    path.write_text(text)
    record = load_record(path, root=tmp_path, schema=DEMO_SCHEMA)
    assert record.codes == ("!!",) and redirect_pages(record) == {}


def test_two_redirect_pages_of_one_name_are_a_problem(tmp_path):
    write(tmp_path, id="demo-oom", code='"HTTP 413"')
    write(tmp_path, "DemoTwo", id="demo-other", code='"http-413"')
    write(tmp_path, "DemoThree", id="demo-third", code='"Demo OOM"')  # the page of demo-oom itself
    _, problems = load_catalogue(tmp_path / "errors", schema=DEMO_SCHEMA, root=tmp_path)
    assert [str(p) for p in problems] == [
        "errors/demo/demo-other.md:3: code 'http-413' would have its redirect page at http-413, which is the "
        "redirect page of errors/demo/demo-oom.md's 'HTTP 413': set 'redirects: false' on one of them",
        "errors/demo/demo-third.md:3: code 'Demo OOM' would have its redirect page at Demo-OOM, which is the "
        "page of errors/demo/demo-oom.md: set 'redirects: false' on one of them"]


def test_the_real_catalogue_is_valid():
    catalogue, problems = load_catalogue(ROOT / "errors", schema=SITE_SCHEMA, root=ROOT)
    assert [str(p) for p in problems] == []
    assert "xla-e1000" in catalogue.records


def test_alias_must_be_an_id_or_code(tmp_path):
    text = record_text().replace("related: []", "related: []\naliases: [OldDemo, CUDA OOM]")
    assert problems_of(tmp_path, text) == [
        "errors/demo/demo-oom.md:16: aliases: 'CUDA OOM' is not an old id or code "
        "(letters, digits, '.', '_' and '-'; each gets a redirect page)"
    ]


def test_a_broken_record_is_not_also_reported_as_an_unknown_related_id(tmp_path):
    write(tmp_path, id="demo-oom", related="[demo-broken]")
    broken = tmp_path / "errors/demo/demo-broken.md"
    broken.write_text(record_text(id="demo-broken", code="DEMO2").replace("phase: run-time", "phase: later"))
    _, problems = load_catalogue(tmp_path / "errors", schema=DEMO_SCHEMA, root=tmp_path)
    assert [p.path for p in problems] == ["errors/demo/demo-broken.md"]


def test_a_record_may_carry_several_codes(tmp_path):
    write(tmp_path, id="demo-oom", code="[DEMO1, DEMO7, DEMO9]")
    catalogue, problems = load_catalogue(tmp_path / "errors", schema=DEMO_SCHEMA, root=tmp_path)
    record = catalogue.records["demo-oom"]
    assert problems == [] and record.code == "DEMO1" and record.codes == ("DEMO1", "DEMO7", "DEMO9")
    assert all(catalogue.find(code) is record for code in ("demo1", "DEMO7", "Demo9"))
    assert record.as_json(DEMO_SCHEMA)["code"] == "DEMO1"
    assert record.as_json(DEMO_SCHEMA)["codes"] == ["DEMO1", "DEMO7", "DEMO9"]


def test_each_of_several_codes_is_unique_across_records(tmp_path):
    write(tmp_path, id="demo-oom", code="[DEMO1, DEMO7]")
    write(tmp_path, id="demo-other", code="[DEMO8, DEMO7]")
    _, problems = load_catalogue(tmp_path / "errors", schema=DEMO_SCHEMA, root=tmp_path)
    assert "errors/demo/demo-other.md:3: code 'DEMO7' is already used by errors/demo/demo-oom.md" in map(str, problems)


@pytest.mark.parametrize(("code", "problem"), [
    ("[]", "code: value error, an empty list: leave 'code' out when the error has none"),
    ("[DEMO1, DEMO1]", "code: value error, names a code twice"),
    ("[DEMO1, '  ']", "code: value error, '' is not a code as printed, on one line"),
])
def test_a_list_of_codes_must_be_usable(tmp_path, code, problem):
    [found] = problems_of(tmp_path, record_text(code=code))
    assert found.replace("Value error, ", "value error, ").endswith(problem.split("value error, ")[-1])


CHECKED = "checked:\n  date: 2026-11-24\n  against: {Demo SDK: '2.10', Demo driver: 575}\nrelated:"


def test_a_record_says_what_it_was_checked_against(tmp_path):
    path = tmp_path / "errors/demo/demo-oom.md"
    path.parent.mkdir(parents=True)
    path.write_text(record_text().replace("related:", CHECKED, 1))
    record = load_record(path, root=tmp_path, schema=DEMO_SCHEMA)
    assert record.checked is not None
    assert record.checked.date == "2026-11-24"
    assert record.checked.against == {"Demo SDK": "2.10", "Demo driver": "575"}
    assert record.as_json(DEMO_SCHEMA)["checked"] == {"date": "2026-11-24", "against": record.checked.against}


@pytest.mark.parametrize(("checked", "words"), [
    ("checked:\n  date: 2026-11-24\n  against: {Demo SDK: 2.10}\n", "reads as the number 2.1: quote it"),
    ("checked:\n  date: 24/11/2026\n  against: {Demo SDK: '2'}\n", "is not a date such as 2026-11-24 or 2026-11"),
    ("checked:\n  date: 2026-11\n  against: {}\n", "checked.against"),
    ("checked:\n  date: 2026-11\n  against: {Demo SDK: '2'}\n  by: me\n", "unknown field 'checked.by'"),
])
def test_a_bad_check_is_a_problem_at_its_line(tmp_path, checked, words):
    [problem] = problems_of(tmp_path, record_text().replace("related:", checked + "related:", 1))
    assert problem.startswith("errors/demo/demo-oom.md:1") and words in problem


def test_a_site_may_require_every_record_to_say_what_it_was_checked_against(tmp_path):
    import dataclasses

    schema = dataclasses.replace(DEMO_SCHEMA, require_checked=True)
    path = tmp_path / "errors/demo/demo-oom.md"
    path.parent.mkdir(parents=True)
    path.write_text(record_text())
    with pytest.raises(RecordError, match=r"demo-oom.md:2: missing 'checked'"):
        load_record(path, root=tmp_path, schema=schema)
    path.write_text(record_text().replace("related:", CHECKED, 1))
    assert load_record(path, root=tmp_path, schema=schema).checked is not None


def test_an_example_wrapped_over_two_lines_matches_as_the_lookup_reads_it(tmp_path):
    wrapped = '"DemoError: could not allocate 2.00 GiB\\n  on device 0"'
    path = tmp_path / "errors/demo/demo-oom.md"
    path.parent.mkdir(parents=True)
    path.write_text(record_text().replace('"DemoError: could not allocate 2.00 GiB on device 0"', wrapped))
    assert load_record(path, root=tmp_path, schema=DEMO_SCHEMA).messages[0].examples[0].text.count("\n") == 1


def test_this_site_requires_every_record_to_say_what_it_was_checked_against():
    site = open_project(ROOT).settings
    assert site.require_checked and site.checked_max_age > 0
    catalogue, problems = open_project(ROOT).load()
    assert problems == [] and all(record.checked is not None for record in catalogue.records.values())
