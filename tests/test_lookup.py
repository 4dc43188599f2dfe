"""The paste lookup engine: exact matching, ranking, codes, fallback, values and bad input."""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conftest import DEMO_SCHEMA, ROOT, SITE_SCHEMA
from errorkb.core import lookup as engine
from errorkb.core.lookup import (
    ERROR,
    MENTION,
    OTHER,
    LookupIndex,
    build_index,
    lookup,
    normalise,
    standing,
    terms,
    whole_words,
)
from errorkb.core.records import load_catalogue
from errorkb.core.templates import compile_template
from errorkb.core.values import Value
from lookup_records import write_records

DETAIL = ("RuntimeError: CUDA out of memory. Tried to allocate 1.71 GiB (GPU 0; 6.00 GiB total capacity; "
          "3.49 GiB already allocated; 1.04 GiB free; 3.50 GiB reserved in total by PyTorch)")


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> LookupIndex:
    root = tmp_path_factory.mktemp("lookup")
    catalogue, problems = load_catalogue(write_records(root), schema=DEMO_SCHEMA, root=root)
    assert not problems
    return build_index(catalogue)


def ids(result) -> list[str]:
    return [m.record["id"] for m in result.matches]


def test_exact_match_reports_typed_values(index):
    result = lookup(index, DETAIL)
    top = result.matches[0]
    assert top.exact and top.record["id"] == "demo-cuda-detail"
    assert top.values["requested"] == Value("size", "1.71 GiB", round(1.71 * 1024**3))
    assert top.values["gpu"].number == 0
    assert top.as_json()["values"]["free"] == {"type": "size", "text": "1.04 GiB", "bytes": round(1.04 * 1024**3),
                                               "label": "Free"}
    assert top.as_json()["url"] == "errors/demo/demo-cuda-detail.html"


def test_more_specific_template_ranks_first_and_is_the_one_exact_answer(index):
    # Both the generic and the detailed template match this line: one message, one exact answer.
    detail, generic = lookup(index, DETAIL).matches
    assert (detail.record["id"], detail.exact, detail.also) == ("demo-cuda-detail", True, False)
    assert (generic.record["id"], generic.exact, generic.also) == ("demo-cuda-generic", False, True)
    assert generic.line == detail.line == 0 and generic.values["requested"].text == "1.71 GiB"
    assert generic.as_json()["also"] is True and generic.as_json()["exact"] is False
    [alone] = lookup(index, "CUDA out of memory. Tried to allocate 2.00 MiB").matches
    assert (alone.record["id"], alone.exact) == ("demo-cuda-generic", True)


def test_two_errors_on_two_lines_are_both_exact_and_a_less_specific_match_follows_them(index):
    result = lookup(index, DETAIL + "\nKilled")
    assert [(m.record["id"], m.exact, m.also) for m in result.matches] == [
        ("demo-cuda-detail", True, False), ("demo-killed", True, False), ("demo-cuda-generic", False, True)]


def test_a_record_s_values_come_from_its_fullest_wording_on_the_line():
    # The head names the error in more literal characters than the full wording, which reads the numbers.
    index = build_index_from({"triton": ["OutOfResources: out of resource: shared memory",
                                         "out of resource: {what:text}, Required: {required:int}, Hardware limit: {limit:int}"]})
    [match] = lookup(index, "triton.runtime.errors.OutOfResources: out of resource: shared memory, "
                            "Required: 65538, Hardware limit: 65536.").matches
    assert match.exact and match.template.startswith("out of resource: {what:text}")
    assert match.text[match.span[0]:].startswith("out of resource: shared memory, Required")
    assert {k: v.text for k, v in match.values.items()} == {"what": "shared memory", "required": "65538", "limit": "65536"}


def test_equal_specificity_ranks_by_first_occurrence():
    index = build_index_from({"a": "Alpha failure number {n:int}", "b": "Bravo failure number {n:int}"})
    assert ids(lookup(index, "Bravo failure number 2\nAlpha failure number 1")) == ["b", "a"]
    assert ids(lookup(index, "Alpha failure number 1\nBravo failure number 2")) == ["a", "b"]


def test_wrapped_message_matches_across_two_lines(index):
    paste = "[NCC_DEMO1] Maximum peak HBM usage of 28.44GB exceeds HBM limit of\n24.00GB for Trn2. This consists of"
    top = lookup(index, paste).matches[0]
    assert top.exact and top.record["id"] == "demo-hbm-limit"
    assert (top.line, top.lines) == (0, 2)
    assert top.values["limit"].number == 24 * 1000**3


def test_ansi_codes_and_log_prefixes_do_not_get_in_the_way(index):
    paste = ("\x1b[31m[rank3]: CUDA out of memory.\x1b[0m Tried to allocate 2.00 MiB\r\n"
             "web-1  | Killed\r\n")
    result = lookup(index, paste)
    assert ids(result) == ["demo-cuda-generic", "demo-killed"]
    assert normalise("2024-Jul-30 14:22:30.244701 [rank0]: Killed").lines == ["Killed"]
    # A glog header without its time is a prefix too, not a code E0101 of the first of January.
    assert normalise("E0101 factory.go:112] Killed").lines == ["Killed"]


def test_no_break_spaces_from_a_web_page_still_match(index):
    top = lookup(index, "CUDA\u00a0out of\u00a0memory. Tried to allocate 139. MiB").matches[0]
    assert top.exact and top.record["id"] == "demo-cuda-generic"
    assert top.values["requested"].number == 139 * 1024**2


def test_fallback_is_labelled_closest_not_exact(index):
    result = lookup(index, "CUDA out of memory while loading the model (reworded)")
    assert result.matches and not result.exact
    assert result.matches[0].record["id"] in {"demo-cuda-generic", "demo-cuda-detail"}
    assert result.matches[0].as_json()["exact"] is False
    assert not lookup(index, "zzz qqq").matches


def test_whole_line_template_does_not_match_inside_a_line(index):
    assert not lookup(index, "the job was Killed by the scheduler").exact


def test_short_listing_keeps_only_whole_words():
    template = compile_template("CUDA{n:int} ran out of memory on device {d:device}")
    assert whole_words(template) == ("device", "memory", "out", "ran")  # "CUDA" is glued to the number
    assert whole_words(compile_template("^Killed$")) == ("killed",)
    # The rarest word is the key; a template without whole words is found by its longest
    # literal run, inside a word too.
    index = build_index_from({"a": "Ran out of memory {x:int}", "b": "out of memory {x:int} again",
                              "c": "XERR_CODE{n:int}.done"})
    keys = {index.records[e.record]["id"]: e.key for e in index.entries}
    assert keys == {"a": "out", "b": "memory", "c": None}  # edge words of a free-floating template are not whole
    assert ids(lookup(index, "log\nfooXERR_CODE42.done")) == ["c"]


def test_an_exact_match_carries_the_diagnoses_its_values_meet(index):
    found = lookup(index, DETAIL).matches[0]
    assert found.record["id"] == "demo-cuda-detail"
    assert found.as_json()["diagnoses"] == [
        {"message": "Asked for 1.71 GiB with 1.04 GiB free, 686.08 MiB short: what is held fills the device",
         "fix": 2, "fix_title": "Free what you no longer need", "rules_out": False},
        {"message": "58% of the device is allocated: 3.49 GiB of 6.00 GiB", "fix": 1, "fix_title": "Use a smaller batch",
         "rules_out": False}]
    hbm = lookup(index, "Maximum peak HBM usage of 28.44GB exceeds HBM limit of 24.00GB for Trn2.").matches[0]
    # Printed in decimal units, so computed sizes are too: one unit system in one message.
    assert [d["message"] for d in hbm.diagnoses] == ["Needs 1.19x the memory of Trn2, 4.44 GB over"]
    assert lookup(index, "Maximum peak HBM usage of 25GB exceeds HBM limit of 24GB for Trn2.").matches[0].diagnoses == []
    assert lookup(index, "CUDA memory trouble").matches[0].diagnoses == []  # closest: no values


def test_index_round_trips_through_json(index, tmp_path: Path):
    path = tmp_path / "index.json"
    path.write_text(json.dumps(index.to_json()), encoding="utf-8")
    again = LookupIndex.from_json(json.loads(path.read_text(encoding="utf-8")))
    for paste in (DETAIL, "Killed", "CUDA memory trouble"):
        assert [m.as_json() for m in lookup(again, paste).matches] == [m.as_json() for m in lookup(index, paste).matches]
    with pytest.raises(ValueError):
        LookupIndex.from_json({"version": 99})


def test_adversarial_64kb_paste_completes(index):
    # Runs of near-misses for every placeholder: a backtracking matcher would explode here.
    unit = "CUDA out of memory. Tried to allocate " + "1" * 30 + " (GPU " + "0," * 40 + "; "
    paste = (unit * (65536 // len(unit) + 1))[:65536]
    start = time.perf_counter()
    result = lookup(index, paste)
    assert time.perf_counter() - start < 20  # a hang fails here, not the timing of a fast run
    assert not result.exact
    lines = ("OOM when allocating tensor with shape[" + "1," * 120 + " and type " * 30 + "\n") * 200
    assert not lookup(index, lines[:65536]).exact


def test_empty_and_html_pastes(index):
    assert lookup(index, " \n\t ").notices == ["The paste is empty."]
    html = lookup(index, '<img src=x onerror="alert(1)"> Killed\nKilled')
    assert ids(html) == ["demo-killed"]


# ---------------------------------------------------------------------------------------------
# The whole paste, in time linear in its length


def log_lines(count: int, seed: int = 3) -> list[str]:
    """Training-log noise that shares words with the templates (memory, device, out of ...)."""
    rng = random.Random(seed)
    words = ["step", "loss", "memory", "allocated", "device", "cuda", "tensor", "shape", "out", "of", "HBM", "usage"]
    return [f"12:00:{i % 60:02d} INFO " + " ".join(rng.choice(words) for _ in range(5)) for i in range(count)]


def test_the_error_on_the_last_line_of_a_200000_line_log_is_found(index):
    paste = "\n".join(log_lines(199_999) + ["[rank0]: " + DETAIL])
    assert len(paste) < engine.MAX_PASTE
    result = lookup(index, paste)
    top = result.matches[0]
    assert top.exact and top.record["id"] == "demo-cuda-detail"
    assert (top.line, top.text) == (199_999, DETAIL)
    assert result.notices == []


def test_a_longer_paste_is_cut_to_its_end_at_each_limit(index, monkeypatch):
    monkeypatch.setattr(engine, "MAX_PASTE", 5_000)
    paste = "Killed\n" + ("x" * 99 + "\n") * 100 + DETAIL
    result = lookup(index, paste)
    assert ids(result) == ["demo-cuda-detail", "demo-cuda-generic"]
    assert result.notices == [f"The paste has {len(paste):,} characters; only its last 5,000 were searched."]
    monkeypatch.setattr(engine, "MAX_PASTE", 10**9)
    monkeypatch.setattr(engine, "MAX_LINES", 100)
    result = lookup(index, "Killed\n" + "step\n" * 200 + DETAIL)
    assert ids(result) == ["demo-cuda-detail", "demo-cuda-generic"]
    assert result.notices == ["The paste has 202 lines; only its last 100 were searched."]
    assert result.matches[0].line == 99
    long_line = lookup(index, "y" * 100_000 + "\n" + DETAIL)
    assert long_line.exact and long_line.notices == ["1 line(s) longer than 2,000 characters were cut."]


# ---------------------------------------------------------------------------------------------
# Stray bytes


@pytest.mark.parametrize("paste", [
    "CUDA out\x00 of memory. Tried to allocate 2.00 MiB",  # NUL
    "CUDA out of\x07\x08 memory. Tried to allocate 2.00 MiB\x7f",  # other control characters
    "CUDA\u200b out of memory.\u200d Tried to allocate 2.00\ufeff MiB",  # zero-width marks
    "CUDA \u202eout of\u202c memory. \u2066Tried to\u2069 allocate 2.00 MiB\u200f",  # bidi controls
    "\ufeffCUDA out of memory. Tried to allocate 2.00\u00a0MiB\x0c",  # byte order mark, no-break space
])
def test_stray_bytes_and_invisible_marks_do_not_lose_the_match(index, paste):
    top = lookup(index, paste).matches[0]
    assert top.exact and top.record["id"] == "demo-cuda-generic"
    assert top.values["requested"].number == 2 * 1024**2


def test_a_paste_is_binary_only_when_most_of_it_is_not_text(index):
    noisy = "".join(chr(c) for c in range(32)) * 3 + "\n" + DETAIL  # a third of it control characters
    assert lookup(index, noisy).exact
    binary = lookup(index, "\x00\x01\x02\x03garbage\ufffd\ufffd\ufffd\ufffd" * 1000)
    assert not binary.matches and "binary" in binary.notices[0]


# ---------------------------------------------------------------------------------------------
# How exact matches rank


def test_the_error_line_stands_for_its_record_over_other_lines_and_mentions(index):
    paste = "\n".join([
        "the allocator printed CUDA out of memory. Tried to allocate 1.00 MiB earlier",
        "RuntimeError: CUDA out of memory. Tried to allocate 2.00 MiB",
        "If you encounter CUDA out of memory. Tried to allocate 3.00 MiB again, try a smaller batch",
        "later CUDA out of memory. Tried to allocate 4.00 MiB",
    ])
    top = lookup(index, paste).matches[0]
    assert (top.record["id"], top.line, top.values["requested"].text) == ("demo-cuda-generic", 1, "2.00 MiB")


def test_among_equal_lines_the_last_occurrence_stands(index):
    paste = ("RuntimeError: CUDA out of memory. Tried to allocate 1.00 MiB\n"
             "RuntimeError: CUDA out of memory. Tried to allocate 2.00 MiB")
    assert lookup(index, paste).matches[0].line == 1


def test_a_log_level_makes_an_error_line(index):
    paste = ("E0501 12:03:44.123456  4121 alloc.cc:46] then CUDA out of memory. Tried to allocate 1.00 MiB\n"
             "I0501 12:03:45.123456  4121 alloc.cc:46] then CUDA out of memory. Tried to allocate 2.00 MiB")
    assert lookup(index, paste).matches[0].line == 0
    normalised = normalise(paste)
    assert [standing(normalised, i, normalised.lines[i], 5) for i in (0, 1)] == [ERROR, OTHER]


@pytest.mark.parametrize(("line", "expected"), [
    ("CUDA out of memory", ERROR),  # the message opens the line
    ("RuntimeError: CUDA out of memory", ERROR),
    ("torch.cuda.OutOfMemoryError: CUDA out of memory", ERROR),
    ("ResourceExhaustedError (see above for traceback): CUDA out of memory", ERROR),
    ("2024-Jul-30 14:22:30.244701 65191:65191 ERROR  TDRV:dmem_alloc  CUDA out of memory", ERROR),
    ("E ggml_backend_cuda: CUDA out of memory", ERROR),
    ('{"error": "CUDA out of memory', ERROR),  # a value in data, after a label
    ("model_load_failed  error='CUDA out of memory", ERROR),
    ('{"message": "CUDA out of memory', OTHER),
    ("`CUDA out of memory", ERROR),  # a quotation that opens the line
    ("W tensorflow/core/bfc_allocator.cc:246] CUDA out of memory", OTHER),
    ("If you encounter CUDA out of memory", MENTION),
    ("RuntimeError: try again after CUDA out of memory", MENTION),
    ('print("CUDA out of memory', MENTION),
    ("the log said 'CUDA out of memory", MENTION),
    ("it's not “CUDA out of memory", MENTION),
    ("Task handler raised error: WorkerLostError('CUDA out of memory", ERROR),  # an exception's repr
    ("Error: Warmup(Generation(\"CUDA out of memory", ERROR),
    ("xgboost.core.XGBoostError: b'CUDA out of memory", ERROR),  # a bytes repr, as XGBoost prints its errors
    ("the log said b'CUDA out of memory", MENTION),
    ("Failed, NCCL error nccl_utils.cc:213 'CUDA out of memory", OTHER),  # quoted after a file and line: data
    ("worker 3: 'CUDA out of memory", OTHER),
    ("    raise RuntimeError(\"CUDA out of memory", MENTION),  # code that raises it
    ("throw std::runtime_error(\"CUDA out of memory", MENTION),
    ("FAIL : Node () Op (If) CUDA out of memory", OTHER),  # an operator's name in brackets is no hint word
    ("(if CUDA out of memory", MENTION),
    ("RuntimeError: /srv/try/run.py: CUDA out of memory", ERROR),  # a folder's name is no hint word
    ("RuntimeError: C:\\srv\\example\\run.py: CUDA out of memory", ERROR),
    ("/srv/try/run.py CUDA out of memory", OTHER),
])
def test_what_precedes_a_match_gives_its_standing(line, expected):
    paste = normalise(line)
    text = paste.lines[0]
    assert standing(paste, 0, text, text.index("CUDA")) == expected


# Hints and quotes in the style of real tools: each names a message of the catalogue without
# being that error.  None may give an exact answer, alone or after an error line.
HINTS_AND_QUOTES = [
    "If you encounter CUDA out of memory. Tried to allocate 2.00 MiB, try setting a smaller batch size.",
    "hint: if you see 'CUDA out of memory. Tried to allocate 20.00 MiB', set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
    "Tip: try --lowvram when the log says CUDA out of memory. Tried to allocate 512.00 MiB",
    'See the FAQ entry "Maximum peak HBM usage of 28.44GB exceeds HBM limit of 24.00GB for Trn2." for how to shard.',
    'print("CUDA out of memory. Tried to allocate 2.00 MiB")',
    '    raise RuntimeError("OOM when allocating tensor with shape[8,8] and type float on /device:GPU:0 by allocator bfc")',
    "# avoids CUDA out of memory. Tried to allocate 1.00 GiB on small cards",
    "WARNING: consider lowering the batch, or CUDA out of memory. Tried to allocate 2.00 MiB may follow",
    "e.g. CUDA out of memory. Tried to allocate 8.00 GiB (GPU 0; 6.00 GiB total capacity; 3.49 GiB already allocated; 1.04 GiB free",
    "Note: the message “CUDA out of memory. Tried to allocate 64.00 MiB” means the GPU is full.",
    "To avoid CUDA out of memory. Tried to allocate 2.00 MiB, please enable gradient checkpointing.",
    "This looks like CUDA out of memory. Tried to allocate 2.00 MiB",
]
UNKNOWN_ERROR = ("RuntimeError: [enforce fail at alloc_cpu.cpp:75] . DefaultCPUAllocator: can't allocate memory: "
                 "you tried to allocate 8 bytes.")


@pytest.mark.parametrize("hint", HINTS_AND_QUOTES)
def test_a_hint_or_a_quote_is_no_exact_answer(index, hint):
    assert not lookup(index, hint).exact
    assert not lookup(index, UNKNOWN_ERROR + "\n" + hint).exact
    both = lookup(index, "Killed\n" + hint)
    assert [m.record["id"] for m in both.matches if m.exact] == ["demo-killed"]


@pytest.mark.parametrize("paste", [
    '{"error": "CUDA out of memory. Tried to allocate 2.00 MiB"}',
    "model_load_failed  error='CUDA out of memory. Tried to allocate 2.00 MiB'  model=whisper",
    "`CUDA out of memory. Tried to allocate 2.00 MiB`",
    'raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 MiB") RuntimeError: CUDA out of memory. Tried to allocate 2.00 MiB',
    "RuntimeError: ('CUDA out of memory. Tried to allocate 2.00 MiB', 3)",  # an exception raised with a tuple
])
def test_a_message_quoted_as_data_is_still_the_error(index, paste):
    top = lookup(index, paste).matches[0]
    assert top.exact and top.record["id"] == "demo-cuda-generic"
    if paste.startswith("raise"):
        assert top.span[0] == paste.rindex("CUDA")  # the error, not the quoted source line


# ---------------------------------------------------------------------------------------------
# Codes, ids and aliases


@pytest.mark.parametrize(("paste", "expected"), [
    ("53300", "demo-db-clients"),  # a code of digits only
    ("42P01", "demo-db-relation"),  # a code that starts with digits
    ("what does 42P01 mean?", "demo-db-relation"),
    ("NCC_DEMO1", "demo-hbm-limit"),
    ("got ncc_demo1.", "demo-hbm-limit"),  # any case, before a full stop
    ("XCG815", "demo-hbm-limit"),  # an alias
    ("errors_impl.demo.DeviceOutOfMemoryError raised", "demo-hbm-limit"),  # the end of a dotted name
    ("demo-killed", "demo-killed"),  # an id
    ("XCG815 also said CUDA out of memory. Tried to allocate 2.00 MiB", "demo-hbm-limit"),  # before any template
])
def test_a_code_id_or_alias_finds_its_record_exactly_and_first(index, paste, expected):
    top = lookup(index, paste).matches[0]
    assert (top.record["id"], top.exact) == (expected, True)
    assert top.text[top.span[0]:top.span[1]].lower() == top.template.lower()


@pytest.mark.parametrize("paste", [
    "step 53300 loss 0.25\nsaved",  # a number in a log is no code
    "XCG8150",  # part of another word
    "prefix-NCC_DEMO1",
    "demo.DeviceOutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB",  # the label of a matched message
    "Check failed: (e == cudaSuccess || e == NCC_DEMO1) is false: device busy",  # a value code compares with
    "assert status != XCG815",
])
def test_a_code_inside_something_else_is_not_taken_for_it(index, paste):
    assert {"demo-hbm-limit", "demo-db-clients"}.isdisjoint(m.record["id"] for m in lookup(index, paste).matches if m.exact)


def test_a_named_record_keeps_the_values_of_its_message(index):
    top = lookup(index, "[NCC_DEMO1] Maximum peak HBM usage of 28.44GB exceeds HBM limit of 24.00GB for Trn2.").matches[0]
    assert top.record["id"] == "demo-hbm-limit" and top.values["used"].text == "28.44GB"


def test_values_as_json_are_strict():
    assert Value.parse("float", "1e999").as_json() == {"type": "float", "text": "1e999", "value": None}
    assert Value.parse("int", "123456789012345678901").as_json()["value"] == 1.2345678901234568e20
    json.dumps(Value.parse("size", "99999999999999999999 EiB").as_json(), allow_nan=False)


def build_index_from(templates: dict[str, str | list[str]]) -> LookupIndex:
    from errorkb.core.records import Catalogue

    class FakeRecord:  # only what build_index reads
        def __init__(self, id_: str, template: str | list[str]):
            self.id, self.code, self.codes, self.title = id_, "", (), f"Record {id_}"
            self.aliases: list[str] = []
            self.path = f"errors/x/{id_}.md"
            self.templates = tuple(compile_template(t) for t in ([template] if isinstance(template, str) else template))
            self.messages = [type("M", (), {"examples": [], "summary_line": False})() for _ in self.templates]
            self.fixes = ()
            self.costs: list[str] = []
            self.diagnoses: list[Any] = []
            self.readings: list[Any] = []
            self.labels: dict[str, str] = {}

    records: dict[str, Any] = {k: FakeRecord(k, t) for k, t in templates.items()}
    return build_index(Catalogue(records))


def test_a_message_whole_in_one_line_is_reported_on_that_line(index):
    top = lookup(index, "Epoch 3/10\n" + DETAIL + "\nexit code 1").matches[0]
    assert (top.line, top.lines, top.text) == (1, 1, DETAIL)


def test_every_example_of_the_catalogue_finds_its_own_record_first():
    catalogue, problems = load_catalogue(ROOT / "errors", schema=SITE_SCHEMA, root=ROOT)
    assert not problems
    index = build_index(catalogue)
    wrong = []
    for record in catalogue.records.values():
        for message in record.messages:
            for example in (e.text for e in message.examples):
                top = lookup(index, example).matches[:1]
                if not top or not top[0].exact or top[0].record["id"] != record.id:
                    wrong.append((record.id, example, top[0].record["id"] if top else None))
    assert wrong == []


def test_ranking_counts_every_term_of_the_records_text(tmp_path: Path):
    """The index keeps only the words of aliases and examples; the term counts are those of the whole text."""
    for root in (ROOT, tmp_path):
        folder = ROOT / "errors" if root is ROOT else write_records(tmp_path)
        catalogue, _ = load_catalogue(folder, schema=SITE_SCHEMA if root is ROOT else DEMO_SCHEMA, root=root)
        index = LookupIndex.from_json(json.loads(json.dumps(build_index(catalogue).to_json())))
        for r, record in enumerate(sorted(catalogue.records.values(), key=lambda rec: rec.id)):
            parts = [record.id, record.code or "", record.title, *record.aliases]
            for message, template in zip(record.messages, record.templates):
                parts += [template.literal_text] + [e.text for e in message.examples]
            assert index.bm25.docs[r] == Counter(terms("\n".join(parts)))


def test_the_missing_error_form_is_offered_only_with_a_repository(index):
    from errorkb.site.search import report_url

    assert report_url("") is None and index.to_json()["report"] is None
    form = report_url("https://github.com/example/errorkb/")
    assert form == "https://github.com/example/errorkb/issues/new?template=missing-error.yml"
    assert (ROOT / ".github" / "ISSUE_TEMPLATE" / form.rsplit("=", 1)[1]).is_file()
    assert LookupIndex.from_json(json.loads(json.dumps({**index.to_json(), "report": form}))).report == form


def test_each_code_of_a_record_with_several_alone_is_an_exact_match(tmp_path):
    from conftest import record_text

    path = tmp_path / "errors/demo/demo-oom.md"
    path.parent.mkdir(parents=True)
    path.write_text(record_text(code="[DEMO1, DEMO7, DEMO_X9]"))
    catalogue, problems = load_catalogue(tmp_path / "errors", schema=DEMO_SCHEMA, root=tmp_path)
    assert not problems
    shipped = LookupIndex.from_json(json.loads(json.dumps(build_index(catalogue).to_json())))
    for code in ("DEMO1", "DEMO7", "demo_x9", "ERROR DEMO_X9: failed"):
        [match] = lookup(shipped, code).matches
        assert match.exact and match.record["id"] == "demo-oom" and match.record["code"] == "DEMO1"


def test_codes_of_several_words_and_summary_lines_read_the_same_from_the_shipped_index(tmp_path):
    """A code such as ``HTTP 413`` is found whole, in any case and spacing; a summary line yields
    to the error it sums up; the index read back from JSON answers as the one built from records."""
    from lookup_records import CODED, PHRASED, PHRASED_PASTES, RECORDS

    folder = write_records(tmp_path, table={**RECORDS, **CODED, **PHRASED})
    catalogue, problems = load_catalogue(folder, schema=DEMO_SCHEMA, root=tmp_path)
    assert not problems
    built = build_index(catalogue)
    shipped = LookupIndex.from_json(json.loads(json.dumps(built.to_json())))
    for paste in PHRASED_PASTES:
        assert [m.as_json() for m in lookup(shipped, paste).matches] == [m.as_json() for m in lookup(built, paste).matches]
    assert [(m.record["id"], m.exact) for m in lookup(built, "the proxy answered http 413").matches] == [
        ("demo-body-too-large", True)]
    assert lookup(built, "HTTP 4130").exact is False and lookup(built, "xid 79: it fell off").matches[0].exact
    push = lookup(built, PHRASED_PASTES[11]).matches
    assert [(m.record["id"], m.exact, m.also) for m in push] == [("demo-push-rejected", True, False),
                                                                 ("demo-push-failed", False, True)]
    assert [(m.record["id"], m.exact) for m in lookup(built, PHRASED_PASTES[10]).matches] == [("demo-push-failed", True)]
    unknown = lookup(built, PHRASED_PASTES[13])
    assert not unknown.exact
    assert (unknown.matches[0].record["id"], unknown.matches[0].also) == ("demo-push-failed", True)
    headed = [(m.record["id"], m.exact) for m in lookup(built, PHRASED_PASTES[17]).matches]
    assert headed[0] == ("demo-cuda-detail", True) and "demo-hbm-limit" not in dict(headed)
    assert [(m.record["id"], m.exact) for m in lookup(built, PHRASED_PASTES[18]).matches][:1] == [("demo-hbm-limit", True)]
    for paste in PHRASED_PASTES[14:17]:
        assert [(m.record["id"], m.exact) for m in lookup(built, paste).matches][:1] == [("demo-push-failed", True)], paste


def test_a_line_repeated_is_matched_once_where_it_last_occurs(index, monkeypatch):
    """The work of a paste whose every line matches grows with its distinct lines, not its lines:
    50,000 lines of one error, stamped with 60 different seconds, are matched 60 times, each
    distinct line at its last copy."""
    from errorkb.core import matcher

    tried: list[int] = []
    real = matcher.LineMatcher.hits

    def counting(self, candidate, short_listed):
        tried.extend(short_listed)
        return real(self, candidate, short_listed)

    monkeypatch.setattr(matcher.LineMatcher, "hits", counting)
    lines = [f"12:00:{i % 60:02d} [rank0]: {DETAIL}" for i in range(50_000)]
    paste = "\n".join(lines)
    assert len(paste) < engine.MAX_PASTE
    top = lookup(index, paste).matches[0]
    assert top.exact and top.record["id"] == "demo-cuda-detail" and top.line == 49_999
    assert sorted(set(tried)) == list(range(49_940, 50_000))


def test_the_closest_ranking_ignores_the_frame_of_a_python_traceback():
    """Every traceback holds its header and frame lines: their words would make a record whose
    examples are tracebacks the closest to any unknown one."""
    framed = ('Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n'
              "During handling of the above exception, another exception occurred:\n"
              "The above exception was the direct cause of the following exception:\n")
    assert set(terms(framed)) == {"train", "py", "in", "of", "the", "exception", "was"}
    assert terms("last_call_file") == ["last_call_file"]
