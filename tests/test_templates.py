"""Message templates: parsing, typed values, and matchers that cannot blow up."""

import re
import time

import pytest

from errorkb.templates import TemplateError, compile_template, parse_size

HBM = "Used {used:size} of {capacity:size} hbm. Exceeded hbm capacity by {excess:size}."


def test_values_are_typed_and_sizes_are_bytes():
    values = compile_template(HBM).search("x: Used 49.34G of 32.00G hbm. Exceeded hbm capacity by 17.34G.")
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
    template = compile_template("file={file:path}:{line:int} failed")
    values = template.search("file=/src/a.cu:58 failed")
    assert (values["file"].text, values["line"].text) == ("/src/a.cu", "58")


def test_whole_line_template():
    template = compile_template("^Killed$")
    assert template.matches("Killed") and template.matches("  Killed ")
    assert not template.matches("DataLoader worker is killed by signal: Killed.")


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
        ("{a:text} x {b:text}", "at most one"),
        ("{size}", "needs some literal text"),
        ("one\ntwo", "one line"),
    ],
)
def test_bad_templates_are_refused_with_a_column(text, message):
    with pytest.raises(TemplateError, match=re.escape(message)) as info:
        compile_template(text)
    assert info.value.column >= 1


def test_js_source_is_the_same_pattern_without_python_only_syntax():
    template = compile_template(HBM)
    assert "(?P<" not in template.js_source and "(?>" not in template.js_source
    assert template.js_source.count("(?=(") == 3


ADVERSARIAL = [
    "file=" + "/" * 65_000,
    "Used " + "9" * 65_000,
    "Failed to allocate " + "x " * 32_000,
    ("Used 1" + "." * 20 + " ") * 2_000,
]


@pytest.mark.parametrize("paste", ADVERSARIAL, ids=["path", "digits", "text", "mixed"])
def test_adversarial_64k_line_completes(paste):
    templates = [
        compile_template("file={file:path}:{line:int} failed"),
        compile_template(HBM),
        compile_template("Failed to allocate {what:text} on ND {nd:int}"),
    ]
    start = time.perf_counter()
    for template in templates:
        for offset in range(0, len(paste), 4096):  # every line a paste could be cut into
            template.search(paste[offset:])
    # Generous bound: a backtracking blow-up would take minutes, not seconds.
    assert time.perf_counter() - start < 10
