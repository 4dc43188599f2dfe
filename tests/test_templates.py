"""Message templates: parsing, typed values, and matchers proven linear."""

import re

import pytest

from conftest import ROOT, SITE_SCHEMA
from errorkb.core.records import load_catalogue
from errorkb.core.templates import EDGE, Layout, Placeholder, TemplateError, build, compile_template, parse
from errorkb.core.templates.mismatch import where_it_stops
from errorkb.core.values import parse_size
from regex_steps import StepCounter

HBM = "Used {used:size} of {capacity:size} hbm. Exceeded hbm capacity by {excess:size}."


def test_values_are_typed_and_sizes_are_bytes():
    values = compile_template(HBM).search("x: Used 49.34G of 32.00G hbm. Exceeded hbm capacity by 17.34G.")
    assert values is not None
    assert values["used"].text == "49.34G"
    assert values["capacity"].number == 32 * 1024**3
    assert values["excess"].as_json() == {"type": "size", "text": "17.34G", "bytes": round(17.34 * 1024**3)}


@pytest.mark.parametrize(
    ("text", "expected"),
    [("2.00 GiB", 2 * 1024**3), ("512 bytes", 512), ("1.5MiB", 1.5 * 1024**2), ("3 GB", 3e9), ("0B", 0), ("139. MiB", 139 * 1024**2)],
)
def test_parse_size(text, expected):
    assert parse_size(text) == expected


def test_white_space_is_flexible_but_literals_are_exact():
    template = compile_template("CUDA out of memory. Tried to allocate {requested:size}")
    assert template.matches("CUDA  out of\tmemory. Tried to allocate 20.00 MiB")
    assert not template.matches("CUDA out of memory, Tried to allocate 20.00 MiB")


def test_placeholder_stops_at_the_next_literal():
    template = compile_template("in file {file:path}:{line:int} failed")
    values = template.search("in file /src/a.cu:58 failed")
    assert values is not None
    assert (values["file"].text, values["line"].text) == ("/src/a.cu", "58")


def test_whole_line_template():
    template = compile_template("^Killed$")
    assert template.matches("Killed") and template.matches("  Killed ")
    assert not template.matches("DataLoader worker is killed by signal: Killed.")


@pytest.mark.parametrize("line", ['"Killed"', "`Killed`", "“Killed”", " 'Killed' ", "> Killed", "> > Killed", "**Killed**"])
def test_a_whole_line_template_matches_the_line_quoted_as_it_is_pasted(line: str):
    template = compile_template("^Killed$")
    assert template.matches(line)
    assert where_it_stops(template, line) == "it matches"


def test_a_quoted_whole_line_still_holds_only_the_message():
    template = compile_template("^Killed$")
    assert not template.matches('"Killed" by the kernel') and not template.matches('said "Killed"')
    assert not template.matches("> Killed by the kernel") and not template.matches("**Killed** twice")


def test_literal_braces():
    template = compile_template("shape {{1,0}} {n:int}")
    assert template.literal_text.startswith("shape {1,0}")
    assert template.matches("shape {1,0} 7")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Used {used:bytes}", "unknown placeholder type"),
        ("Used {used:size}{capacity:size}", "separated by literal text"),
        ("{a:int} and {a:int}", "used twice"),
        ("a { b", "must start a placeholder"),
        ("a } b", "lone '}'"),
        ("{a:int} and {b:int} and {a:text}", "'a' is used twice"),
        ("{size}", "needs some literal text"),
        ("one\ntwo", "one line"),
    ],
)
def test_bad_templates_are_refused_with_a_column(text, message):
    with pytest.raises(TemplateError, match=re.escape(message)) as info:
        compile_template(text)
    assert info.value.column >= 1


TORCH = ("GPU {gpu:int} has a total capacity of {capacity:size} of which {free:size} is free."
         "{? Process {pid:int} has {other:size} memory in use.}{? {allowed:size} allowed;}"
         "{? Of the allocated memory {allocated:size} is allocated by PyTorch,}")


@pytest.mark.parametrize(("line", "names"), [
    ("GPU 0 has a total capacity of 14.57 GiB of which 426.75 MiB is free. Process 2493055 has 12.02 GiB memory in use. "
     "17.69 GiB allowed; Of the allocated memory 1.76 GiB is allocated by PyTorch, and",
     ["gpu", "capacity", "free", "pid", "other", "allowed", "allocated"]),
    ("GPU 0 has a total capacity of 14.57 GiB of which 426.75 MiB is free. Of the allocated memory 1.76 GiB is allocated "
     "by PyTorch, and", ["gpu", "capacity", "free", "allocated"]),
    ("GPU 0 has a total capacity of 14.57 GiB of which 426.75 MiB is free.", ["gpu", "capacity", "free"]),
    # Each optional part is taken where it stands: a second process ends the run of them.
    ("GPU 0 has a total capacity of 14.57 GiB of which 426.75 MiB is free. Process 1 has 1.00 GiB memory in use. "
     "Process 2 has 2.00 GiB memory in use. 3.00 GiB allowed;", ["gpu", "capacity", "free", "pid", "other"]),
])
def test_optional_parts_give_the_values_a_line_holds(line, names):
    values = compile_template(TORCH).search(line)
    assert values is not None
    assert list(values) == names


def test_optional_parts_leave_the_rest_of_a_template_as_it_was():
    plain = compile_template("GPU {gpu:int} has a total capacity of {capacity:size} of which {free:size} is free.")
    extended = compile_template(TORCH)
    assert extended.literal_text == plain.literal_text and extended.specificity == plain.specificity
    assert extended.whole_words == plain.whole_words
    assert [p.name for p in extended.placeholders][-1] == "allocated"


@pytest.mark.parametrize(("text", "line"), [
    ("[Errno 12] Cannot allocate memory", "OSError: [Errno 12] Cannot allocate memory"),
    ("[malloc{variant:text}] Unable to allocate {requested:size}.", "[malloc_or_wait] Unable to allocate 4.00 GiB."),
    ("Failed ({? and) now} shape {{?}} ok", "Failed ( and) now shape {?} ok"),
])
def test_square_brackets_and_doubled_braces_stay_literal(text, line):
    template = compile_template(text)
    assert template.matches(line)
    assert not any(isinstance(s, Placeholder) for s in template.segments) or "{" in text


@pytest.mark.parametrize(("text", "message", "column"), [
    ("{?Process {pid:int} has} memory is free", "cannot start the template", 1),
    ("memory is free{? a{? b}}", "cannot hold another one", 19),
    ("memory is free{? a", "is not closed", 15),
    ("memory is free{? {a:int}}", "needs literal text", 15),
    ("memory is free {? a}", "two blank runs in a row", 16),
    ("memory is free{?, a} {?b} end", "two blank runs in a row", 22),
    ("memory is {a:int}{?, b {b:int}}{c:int} free", "separated by literal text", 11),
    ("Killed process {n:size}{?B for} total", "can swallow the 'B' after it", 16),
    ("buffer sized =={? x}={p:path} failed", "can hold every character of the literal '='", 22),
])
def test_bad_optional_parts_are_refused_with_a_column(text, message, column):
    with pytest.raises(TemplateError, match=re.escape(message)) as info:
        compile_template(text)
    assert info.value.column == column


def test_layout_takes_and_skips_optional_parts():
    segments, _ = parse("abc {?d {x:int} }{?e }f {y:int} g")
    layout = Layout(segments)
    assert [layout.items[j] for j in layout.next_items(0)] == ["d ", "e ", "f "]
    assert layout.before[len(layout.items) - 2] == {len(layout.items) - 3}
    assert layout.after[len(layout.items) - 1] == {EDGE}


# Templates whose matcher could be slower than linear, or could never match: refused with the
# column of the placeholder at fault and the reason.
NOT_LINEAR = [
    ("{a:text}q{b:path}z", 1, "starts the template"),
    ("{n:int} bytes could not be reserved", 1, "starts the template"),
    ("file={p:path} could not be opened", 6, "can hold every character of the literal 'file='"),
    ("nrt_{call:identifier} status=4 failed", 5, "can hold every character of the literal 'nrt_'"),
    ("Could not reserve {n:size}B on the device", 19, "can swallow the 'B' after it"),
    ("Estimated peak usage {f:float}e9 of the device", 22, "can swallow the 'e' after it"),
]


@pytest.mark.parametrize(("text", "column", "reason"), NOT_LINEAR)
def test_templates_that_are_not_linear_are_refused(text, column, reason):
    with pytest.raises(TemplateError, match=re.escape(reason)) as info:
        compile_template(text)
    assert info.value.column == column


@pytest.mark.parametrize("text", [
    "ggml_backend_{backend:identifier}_buffer_type failed",  # '_' stops it, and cannot begin it there
    "open file={p:path} failed",  # a space is no part of a path
    "Allocation (size={requested:int}) would exceed memory",  # '(' is no digit
    "Tensor shape{shape:shape} and type {dtype:dtype} failed",  # a shape begins with its bracket
    "utilization ({u:float}, {requested:size}) is too low",  # short values are cheap wherever they start
    "^{pid:int} Killed process$",  # a whole line is tried once
    "RESOURCE_EXHAUSTED: {prefix:text}Ran out of memory in hbm",  # text stops at the next literal
    "Device memory error: {what:text}",  # a text at the end reads to the end of the line
    "memory is free: {t:text}{? done}",  # or up to an optional part
    "Lookup of {a:text} in {b:text} failed",  # each text stops at the literal after it
])
def test_linear_templates_are_accepted(text):
    compile_template(text)


@pytest.mark.parametrize(("text", "reason"), [
    ("e{x:text}:", "2 literal character(s), 8 needed"),
    ("Err {n:int}", "3 literal character(s)"),
    ("out of memory", "words (out, of, memory) are common"),
    ("Error: failed to allocate {n:size}", "words (error, failed, to, allocate) are common"),
    ("^Error$", "words (error) are common"),
    ("^Traceback (most recent call last):$", "words (traceback, most, recent, call, last) are common"),
    ("^During handling of the above exception, another exception occurred:$", "are common in any log"),
    ("^Done$", "words (done) are common"),
    ("^INFO: finished$", "words (info, finished) are common"),
    ("[({n:int})] --> <<{m:int}>>", "holds no word"),
])
def test_templates_that_match_almost_anything_are_refused(text, reason):
    with pytest.raises(TemplateError, match=re.escape(reason)):
        compile_template(text)


@pytest.mark.parametrize("text", ["^Killed$", "^已杀死$", "exit code 137", "HIP error: out of memory", "OOMKilled",
                                  "^Aborted (core dumped)$", "^Segmentation fault$", "^Bus error$", "^MemoryError$"])
def test_short_but_specific_templates_are_accepted(text):
    compile_template(text)


def test_text_reads_up_to_the_first_copy_of_the_literal_after_it():
    template = compile_template("Failed to allocate {n:size} (usage: {usage:text}) on ND {nd:int}:NC")
    values = template.search("Failed to allocate 64.000MB (usage: tensors) on ND 0:NC 0) on ND 1:NC 1")
    assert values is not None
    assert values["usage"].text == "tensors" and values["nd"].number == 0
    # It does not cross a copy of the literal before it: the match starts at the last one.
    template = compile_template("cudaMalloc{call:text}out of memory")
    m = template.regex.search("cudaMalloc retry cudaMalloc failed: out of memory")
    assert m is not None
    assert m.start() == 17 and m.group(template.groups[0]) == " failed: "


def test_a_text_at_the_end_reads_to_the_end_of_the_line():
    template = compile_template("remaining connection slots are reserved for {role:text}")
    values = template.search("FATAL:  remaining connection slots are reserved for roles with the SUPERUSER attribute")
    assert values is not None
    assert values["role"].text == "roles with the SUPERUSER attribute"
    # Up to a copy of the template's first literal: that starts the next match.
    template = compile_template("No module named {name:text}")
    found = [m.group(template.groups[0]) for m in template.regex.finditer("No module named a; No module named b")]
    assert found == ["a; ", "b"]


def test_a_template_may_hold_several_texts_each_up_to_the_literal_after_it():
    values = compile_template("Lookup of {a:text} in {b:text} failed: {why:text}").search(
        "Lookup of key x in table y failed: table y is missing")
    assert values is not None
    assert [v.text for v in values.values()] == ["key x", "table y", "table y is missing"]


GENERAL = [
    "error: failed to push some refs to {remote:url} ({ref:ref} is {state:bracketed})",
    "pathspec {spec:quoted} did not match any file(s) known to git on {branch:ref}: {why:text}",
    "Server answered HTTP {status:status} for {url:url} after {n:int} tries",
    "Lookup of {a:text} in {b:text} failed: {why:text}",
]


@pytest.mark.parametrize(("text", "line", "expected"), [
    (GENERAL[0], "error: failed to push some refs to https://github.com/o/r.git (feature/login-2 is [rejected])",
     {"remote": "https://github.com/o/r.git", "ref": "feature/login-2", "state": "rejected"}),
    (GENERAL[1], "error: pathspec ‘feature/login’ did not match any file(s) known to git on origin/main: typo?",
     {"spec": "feature/login", "branch": "origin/main", "why": "typo?"}),
    (GENERAL[2], "Server answered HTTP 503 for s3://bucket/a?b=1 after 3 tries", {"status": "503", "url": "s3://bucket/a?b=1", "n": "3"}),
])
def test_general_types_read_refs_addresses_statuses_and_enclosed_text(text, line, expected):
    values = compile_template(text).search(line)
    assert values is not None
    assert {name: v.text for name, v in values.items()} == expected


def test_a_status_is_a_number_of_three_digits():
    template = compile_template("Server answered HTTP {status:status} for the request")
    values = template.search("Server answered HTTP 404 for the request")
    assert values is not None and values["status"].number == 404
    assert not template.matches("Server answered HTTP 4040 for the request")
    with pytest.raises(TemplateError, match="can swallow the '0' after it"):
        compile_template("Server answered HTTP {status:status}0 for the request")


def test_the_pattern_is_written_in_syntax_common_to_python_and_javascript():
    template = compile_template(HBM)
    assert "(?P<" not in template.source and "(?>" not in template.source
    assert template.source.count("(?=(") == 3 and template.groups == (1, 2, 3)


def test_a_digit_after_a_placeholder_does_not_extend_its_back_reference():
    template = compile_template("queue {name:quoted}1 of the device is full")
    values = template.search("queue 'q'1 of the device is full")
    assert values is not None and values["name"].text == "q"


# ---------------------------------------------------------------------------------------------
# Linearity, counted: the steps of a backtracking matcher on adversarial lines of n and 4n
# characters grow about 4 times for a linear matcher, about 16 times for a quadratic one (less
# once its runs reach their limits).  Steps, not time: the count is the same on any machine.

SHORT, LONG = 250, 1000
LINEAR_AT_MOST = 6.0
SAMPLES = {"size": "1 GiB", "int": "1", "float": "1.5", "hex": "0x1f", "shape": "[1, 2]", "dtype": "f32",
           "device": "cuda:0", "path": "/a/b", "identifier": "abc", "ref": "origin/main", "url": "https://a.b/c",
           "status": "503", "quoted": "'q'", "bracketed": "(b)", "text": "t"}
FILLERS = {"size": "1", "int": "1", "float": "1", "hex": "f", "shape": "1", "dtype": "a", "device": "a", "path": "a",
           "identifier": "a", "ref": "a", "url": "a", "status": "1", "quoted": "a", "bracketed": "a", "text": "a"}


def adversaries(template) -> list[str]:
    """Units that, repeated, make the matcher work hardest: a near miss with and without its
    optional parts, each optional part's opening alone, and each literal that can come before a
    placeholder followed by a character it accepts, so that its runs are as long as they can be."""
    layout = Layout(template.segments)
    def render(items):
        return "".join(s if isinstance(s, str) else SAMPLES[s.type] for s in items).strip()
    rendered = render(layout.items)
    required = render(item for item, group in zip(layout.items, layout.groups) if group is None)
    units = [rendered[:-1] + " ", required[:-1] + " "]
    for i, item in enumerate(layout.items):
        if layout.groups[i] is not None and (i == 0 or layout.groups[i - 1] != layout.groups[i]):
            units.append(render(layout.items[:i + 1]))  # the template up to the opening of an optional part
        if not isinstance(item, str):
            units += [(layout.texts[j] if j is not EDGE else "") + FILLERS[item.type] for j in layout.before[i]]
    return list(dict.fromkeys(units))


def growth(template) -> float:
    """The largest growth of the steps of a search for every match, 4x the line, over the
    adversaries; the step counter finds the matches that ``re`` finds."""
    counter = StepCounter(template.source)
    worst = 0.0
    for unit in adversaries(template):
        short, long = ((unit * (n // len(unit) + 1))[:n] for n in (SHORT, LONG))
        steps = counter.count(short)
        worst = max(worst, counter.count(long) / steps)
        assert counter.spans == [m.span() for m in template.regex.finditer(long)]
    return worst


def test_every_template_of_the_catalogue_is_linear_on_adversarial_lines():
    catalogue, problems = load_catalogue(ROOT / "errors", schema=SITE_SCHEMA, root=ROOT)
    assert not problems
    templates = {t.text: t for r in catalogue.records.values() for t in r.templates}
    slow = {text: round(growth(t), 1) for text, t in templates.items()}
    assert {text: ratio for text, ratio in slow.items() if ratio > LINEAR_AT_MOST} == {}


@pytest.mark.parametrize("text", [TORCH, "Killed process {p:int}{? ({n:text}) at} total-vm:{vm:int}kB{?, anon-rss:{r:int}kB,}",
                                  "open file{? named} {p:path} failed{? for {d:device} now}", *GENERAL])
def test_templates_with_optional_parts_are_linear_on_adversarial_lines(text):
    assert growth(compile_template(text)) <= LINEAR_AT_MOST


@pytest.mark.parametrize("text", ["{a:text}q{b:path}z", "file={p:path} could not be opened"])
def test_the_refused_templates_would_grow_faster_than_linearly(text):
    """What the proof refuses, built anyway: the same measure shows the growth it prevents."""
    segments, whole_line = parse(text)
    assert growth(build(text, segments, whole_line)) > LINEAR_AT_MOST
