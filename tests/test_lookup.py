"""The paste lookup engine: exact matching, ranking, fallback, values and bad input."""

from __future__ import annotations

import json
from collections import Counter
import time
from pathlib import Path

import pytest

from errorkb.lookup import LookupIndex, build_index, explain, lookup, normalise, terms, whole_words
from errorkb.records import load_catalogue
from errorkb.templates import Value, compile_template
from conftest import ROOT
from lookup_records import write_records

DETAIL = ("RuntimeError: CUDA out of memory. Tried to allocate 1.71 GiB (GPU 0; 6.00 GiB total capacity; "
          "3.49 GiB already allocated; 1.04 GiB free; 3.50 GiB reserved in total by PyTorch)")


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> LookupIndex:
    root = tmp_path_factory.mktemp("lookup")
    catalogue, problems = load_catalogue(write_records(root), root=root)
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
    assert top.as_json()["values"]["free"] == {"type": "size", "text": "1.04 GiB", "bytes": round(1.04 * 1024**3)}
    assert top.as_json()["url"] == "errors/demo/demo-cuda-detail.html"


def test_more_specific_template_ranks_first(index):
    # Both the generic and the detailed template match this line.
    assert ids(lookup(index, DETAIL)) == ["demo-cuda-detail", "demo-cuda-generic"]
    assert ids(lookup(index, "CUDA out of memory. Tried to allocate 2.00 MiB")) == ["demo-cuda-generic"]


def test_each_error_of_a_paste_is_returned_in_order_of_specificity_then_position(index):
    paste = "\n".join([
        "step 1", "Killed", "2020-11-28 09:40:14.685870: W op_kernel.cc:1763] OP_REQUIRES failed at cast_op.cc:109 : "
        "Resource exhausted: OOM when allocating tensor with shape[1,512,647,3] and type float on "
        "/job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu", "Killed",
    ])
    result = lookup(index, paste)
    assert ids(result) == ["demo-tensor-oom", "demo-killed"]
    assert all(m.exact for m in result.matches)
    assert result.matches[1].line == 1  # the first of the two 'Killed' lines
    assert result.matches[0].values["shape"].text == "[1,512,647,3]"


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
    lines, _ = normalise("2024-Jul-30 14:22:30.244701 [rank0]: Killed")
    assert lines[0].text == "Killed"


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
    # The rarest word is the key; a template without whole words is tried on every line.
    index = build_index_from({"a": "Ran out of memory {x:int}", "b": "out of memory {x:int} again",
                              "c": "x{n:int}y"})
    keys = {index.records[e.record]["id"]: e.key for e in index.entries}
    assert keys == {"a": "out", "b": "memory", "c": None}  # edge words of a free-floating template are not whole
    assert ids(lookup(index, "x42y")) == ["c"]


def test_explain_the_numbers():
    size = lambda text: Value.parse("size", text)  # noqa: E731
    e = explain({"used": size("49.34G"), "capacity": size("32.00G"), "excess": size("17.34G")})
    assert e["ratio"] == pytest.approx(1.5419, abs=1e-4)
    assert e["shortfall"] == size("17.34G").number
    assert e["text"].startswith("Needs 1.54x this device's memory: 49.34 GiB against 32.00 GiB, 17.34 GiB short.")
    assert "35%" in e["text"] and "can be enough" in e["text"]
    big = explain({"requested": size("3.84T"), "capacity": size("90.96G")})
    assert "halving is not enough" in big["text"]
    small = explain({"requested": size("20.00 MiB"), "free": size("6.69 MiB"), "capacity": size("5.80 GiB")})
    assert small["text"].startswith("Asked for 20.00 MiB with 6.69 MiB free: 13.31 MiB short.")
    assert explain({"requested": size("1 GiB"), "capacity": size("2 GiB")}) is None
    assert explain({"gpu": Value.parse("int", "0")}) is None


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


def test_huge_binary_empty_and_html_pastes(index):
    huge = ("x" * 99 + "\n") * 100_000 + DETAIL  # 10 MB, the error at its end
    result = lookup(index, huge)
    assert result.matches[0].record["id"] == "demo-cuda-detail"
    assert any("only its last" in n for n in result.notices)
    long_line = lookup(index, "y" * 100_000 + "\n" + DETAIL)
    assert any("were cut" in n for n in long_line.notices) and long_line.exact
    binary = lookup(index, "\x00\x01\x02garbage\xff" * 1000)
    assert not binary.matches and "binary" in binary.notices[0]
    assert lookup(index, " \n\t ").notices == ["The paste is empty."]
    html = lookup(index, '<img src=x onerror="alert(1)"> Killed\nKilled')
    assert ids(html) == ["demo-killed"]


def build_index_from(templates: dict[str, str]) -> LookupIndex:
    from errorkb.records import Catalogue

    class FakeRecord:  # only what build_index reads
        def __init__(self, id_: str, template: str):
            self.id, self.code, self.title, self.aliases = id_, "", f"Record {id_}", []
            self.path = f"errors/x/{id_}.md"
            self.templates = ((compile_template(template),),)
            self.messages = [type("M", (), {"examples": []})()]
            self.fixes = ()

    return build_index(Catalogue({k: FakeRecord(k, t) for k, t in templates.items()}))  # type: ignore[arg-type]


def test_a_message_whole_in_one_line_is_reported_on_that_line(index):
    top = lookup(index, "Epoch 3/10\n" + DETAIL + "\nexit code 1").matches[0]
    assert (top.line, top.lines, top.text) == (1, 1, DETAIL)


def test_every_example_of_the_catalogue_finds_its_own_record_first():
    catalogue, problems = load_catalogue(ROOT / "errors", root=ROOT)
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
        catalogue, _ = load_catalogue(folder, root=root)
        index = LookupIndex.from_json(json.loads(json.dumps(build_index(catalogue).to_json())))
        for r, record in enumerate(sorted(catalogue.records.values(), key=lambda rec: rec.id)):
            parts = [record.id, record.code or "", record.title, *record.aliases]
            for message, templates in zip(record.messages, record.templates):
                parts += [t.literal_text for t in templates] + [e.text for e in message.examples]
            assert index.bm25.docs[r] == Counter(terms("\n".join(parts)))
