"""Fuzzing the record loader: whatever a file holds, the answer is a clean ``file:line`` problem.

``load_record`` may only raise :class:`RecordError`, and ``load_catalogue`` may only return
problems, each naming the file and a line >= 1 on one line of text, within a bounded time.
"""

from __future__ import annotations

import string
import tempfile
import time
from collections.abc import Set
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import DEMO_SCHEMA, record_text
from errorkb.core.records import Problem, RecordError, load_catalogue, load_record

# Enough examples to find the usual crashes, few enough for CI; no example database on disk.
# An example takes milliseconds: the deadline catches a hang (an alias bomb took a minute)
# without failing on a busy CI machine.
FUZZ = settings(max_examples=120, deadline=10_000, database=None, suppress_health_check=[HealthCheck.too_slow])

VALID = record_text()
SHOWN = "errors/demo/demo-oom.md"


def assert_clean(problems: list[Problem], paths: Set[str] = frozenset({SHOWN})) -> None:
    assert problems
    for problem in problems:
        assert problem.path in paths
        assert isinstance(problem.line, int) and problem.line >= 1
        assert problem.message and "\n" not in problem.message


def load_text(text: str) -> None:
    """Load ``text`` as given, then as the file's bytes; both only ever give clean problems."""
    path = Path("/nonexistent/errors/demo/demo-oom.md")
    for attempt in ("text", "file"):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            if attempt == "file":
                path = root / SHOWN
                path.parent.mkdir(parents=True)
                path.write_bytes(text.encode("utf-8", "surrogatepass"))
            try:
                load_record(path, text if attempt == "text" else None, root=root, schema=DEMO_SCHEMA)
            except RecordError as exc:
                assert_clean(exc.problems, {SHOWN, path.as_posix()})


def test_the_valid_record_loads():
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / SHOWN
        path.parent.mkdir(parents=True)
        path.write_text(VALID, encoding="utf-8")
        assert load_record(path, schema=DEMO_SCHEMA).id == "demo-oom"


@FUZZ
@given(st.text())
def test_any_text(text):
    load_text(text)


@FUZZ
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=300).map(lambda body: "---\n" + body + "\n---\n## Causes\n"))
def test_any_front_matter(text):
    load_text(text)


@FUZZ
@given(st.binary(max_size=2000))
def test_any_bytes(data):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / SHOWN
        path.parent.mkdir(parents=True)
        path.write_bytes(data)
        try:
            load_record(path, root=Path(tmp), schema=DEMO_SCHEMA)
        except RecordError as exc:
            assert_clean(exc.problems)


LINES = VALID.split("\n")
FRONT = range(1, LINES.index("---", 1))  # indices of the front matter's lines
YAML_BITS = st.sampled_from(["", " ", "\t", ":", "- ", "[", "]", "{", "}", "&a", "*a", "!!", "!!python/name:os.system",
                             "'", '"', "#", "|", ">", "? ", "---", "...", "%YAML 1.1", "\x85", "\u2028", "\ufeff", "0x", "~"])


@st.composite
def mutated_record(draw) -> str:
    """The valid record with one to four random edits to its front matter."""
    lines = list(LINES)
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.sampled_from(FRONT))
        noise = draw(st.one_of(YAML_BITS, st.text(max_size=20), st.lists(YAML_BITS, max_size=5).map("".join)))
        edit = draw(st.sampled_from(["delete", "duplicate", "replace", "insert", "indent", "value", "cut", "swap"]))
        if edit == "delete":
            del lines[i]
        elif edit == "duplicate":
            lines.insert(i, lines[i])
        elif edit == "replace":
            lines[i] = noise
        elif edit == "insert":
            lines.insert(i, noise)
        elif edit == "indent":
            lines[i] = draw(st.sampled_from([" ", "  ", "\t", "    "])) + lines[i]
        elif edit == "value":
            lines[i] = lines[i].split(":", 1)[0] + ": " + noise
        elif edit == "cut":
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
        else:
            j = draw(st.sampled_from(FRONT))
            lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


@FUZZ
@given(mutated_record())
def test_front_matter_mutations(text):
    load_text(text)


YAML_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30) | st.dates(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)
FIELDS = yaml.safe_load(VALID.split("---")[1])


@FUZZ
@given(st.sampled_from([*FIELDS, "messages.0.template", "messages.0.examples", "unknown"]), YAML_VALUES)
def test_fields_with_values_of_any_type(field, value):
    fields = yaml.safe_load(VALID.split("---")[1])
    if field.startswith("messages.0."):
        fields["messages"][0][field.rsplit(".", 1)[1]] = value
    else:
        fields[field] = value
    front = yaml.safe_dump(fields, allow_unicode=True, sort_keys=False)
    load_text("---\n" + front + "---" + VALID.split("---", 2)[2])


MARKDOWN_BITS = st.sampled_from(["#", "##", "###", " Causes", " Fixes", " Debugging", "```", "~~~", ":::", "\n", "text",
                                 "{err}`x`", "    ", "\t", "- ", "\r", "---"])


@FUZZ
@given(st.lists(st.one_of(MARKDOWN_BITS, st.text(max_size=10)), max_size=40).map("".join))
def test_any_body(body):
    load_text(VALID.split("## Causes")[0] + body)


def test_huge_and_odd_files_are_refused_or_loaded_quickly():
    cases = {
        "huge-line": VALID.replace("The program asked", "x" * 5_000_000 + " The program asked"),
        "many-lines": VALID + "- an item\n" * 300_000,
        "deep": "---\nid: " + "[" * 20_000 + "]" * 20_000 + "\n---\n",
        "aliases": "---\na: &a [x, x, x, x, x, x, x, x, x, x]\n"
        + "".join(f"{c}: &{c} [{', '.join(['*' + p] * 10)}]\n" for p, c in zip(string.ascii_lowercase, string.ascii_lowercase[1:12]))
        + "---\n",
    }
    for name, text in cases.items():
        started = time.monotonic()
        load_text(text)
        assert time.monotonic() - started < 30, name


@settings(max_examples=40, deadline=10_000, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(mutated_record(), st.binary(max_size=200), st.just(VALID)), min_size=1, max_size=4))
def test_a_catalogue_of_anything_gives_only_clean_problems(contents):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        names = set()
        for i, content in enumerate(contents):
            path = root / "errors" / "demo" / f"demo-oom{'' if i == 0 else i}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass"))
            names.add(path.relative_to(root).as_posix())
        (root / "errors" / "demo" / "folder.md").mkdir()
        catalogue, problems = load_catalogue(root / "errors", schema=DEMO_SCHEMA, root=root)
        if problems:
            assert_clean(problems, names)
