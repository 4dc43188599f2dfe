"""The browser's lookup (static/errorkb-lookup-core.js, run here under node) gives the same answers as
the Python engine, for the same index and the same pastes: every field of every result (record,
exactness, score, values and their labels, matched lines, span in characters, text, readings, diagnoses,
the fixes in order) and the notices."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import DEMO_SCHEMA, ROOT, SITE_SCHEMA
from errorkb.core.lookup import build_index, lookup
from errorkb.core.records import load_catalogue
from errorkb.core.settings import settings_from
from errorkb.core.templates import Layout, Placeholder, build, parse
from errorkb.tools.project import open_project
from lookup_records import CODED, PHRASED, PHRASED_PASTES, RECORDS, write_records
from system_tools import require
from test_lookup import HINTS_AND_QUOTES, log_lines

NODE_RUNNER = Path(__file__).with_name("lookup_node.js")
CORE = ROOT / "ext" / "errorkb" / "site" / "static" / "errorkb-lookup-core.js"
MATCH_IN_NODE = """
const core = require(process.argv[1]);
const job = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(job.templates.map(function (t) {
  const regex = new RegExp(t[0], "gu");
  return job.lines.map(function (line) {
    return Array.from(line.matchAll(regex), function (m) {
      return [[core.chars(line, m.index), core.chars(line, m.index + m[0].length)],
              t[1].map(function (g) { return m[g] === undefined ? null : m[g]; })];
    });
  });
})));
"""

EXTRA_PASTES = [
    "",
    "   ",
    "Killed",
    "the job was Killed by the scheduler",
    "step 1\nKilled\nCUDA out of memory. Tried to allocate 2.00 MiB\nKilled",
    "\x1b[31m[rank3]: CUDA out of memory.\x1b[0m Tried to allocate 2.00 MiB\r\nweb-1  | Killed\r\n",
    "Maximum peak HBM usage of 28.44GB exceeds HBM limit of\n24.00GB for Trn2.",
    "RuntimeError: CUDA out of memory. Tried to allocate 1.71 GiB (GPU 0; 6.00 GiB total capacity; "
    "3.49 GiB already allocated; 1.04 GiB free; 3.50 GiB reserved in total by PyTorch)",
    "CUDA memory trouble while loading the model",
    "OOM when allocating a tensor, reworded",
    "hbm usage peak exceeds limit on the chip",
    "RESOURCE_EXHAUSTED: out of memory in memory space hbm",
    "zzz qqq",
    '<img src=x onerror="alert(1)"> Killed',
    "\x00\x01binary",
    "\x00\x01\x02\x03garbage\ufffd\ufffd\ufffd\ufffd" * 50,
    "x" * 300_000 + "\nKilled",
    "y" * 5000 + "\nCUDA out of memory. Tried to allocate 1,024 bytes",
    "CUDA\u00a0out of memory. Tried\u202fto allocate 139. MiB",  # copied from a web page
    # Stray bytes and invisible marks
    "CUDA out\x00 of memory. Tried\x07 to allocate 2.00 MiB\x7f\x85",
    "CUDA \u202eout of\u202c memory. \u2066Tried to\u2069 allocate\u200b 2.00 MiB\ufeff\U000e0041",
    # Characters outside the Basic Multilingual Plane: spans and cuts count characters
    "😀😀 RuntimeError: CUDA out of memory. Tried to allocate 2.00 MiB 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "😀" * 2100 + "\n" + "𝔘" * 1990 + " Killed process CUDA out of memory. Tried to allocate 2.00 MiB",
    # Wrapped messages: a line that alone gives nothing, joined to the one before or after
    "CUDA out of memory. Tried to allocate\n2.00 MiB then\nCUDA out of memory. Tried to allocate 3.00 MiB",
    "CUDA out of memory. Tried to\n\nallocate 2.00 MiB",
    "OOM when allocating tensor with shape[8, 8] and type float on /device:GPU:0 by\nallocator bfc",
    # Standings: levels, labels, quotes as data and in prose, the last occurrence
    "E0501 12:03:44.123456  4121 a.cc:46] CUDA out of memory. Tried to allocate 1.00 MiB\n"
    "I0501 12:03:45.123456  4121 a.cc:46] CUDA out of memory. Tried to allocate 2.00 MiB",
    '{"error": "CUDA out of memory. Tried to allocate 2.00 MiB"}',
    'raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 MiB") RuntimeError: CUDA out of memory. '
    "Tried to allocate 2.00 MiB",
    "RuntimeError: CUDA out of memory. Tried to allocate 1.00 MiB\nRuntimeError: CUDA out of memory. Tried to allocate 2.00 MiB",
    # Codes, ids and aliases
    "53300", "42P01", "what does 42P01 mean?", "NCC_DEMO1", "got ncc_demo1.", "XCG815", "demo-killed",
    "errors_impl.demo.DeviceOutOfMemoryError raised", "step 53300 loss 0.25\nsaved", "XCG8150", "prefix-NCC_DEMO1",
    "demo.DeviceOutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB",
    "XCG815 also said CUDA out of memory. Tried to allocate 2.00 MiB",
    # Values that rule a fix out, readings, a decimal unit system
    "RuntimeError: CUDA out of memory. Tried to allocate 20.00 GiB (GPU 0; 16.00 GiB total capacity; "
    "1.00 GiB already allocated; 14.00 GiB free",
    "Maximum peak HBM usage of 30.5GB exceeds HBM limit of 24GB for Trn2.",
    # Numbers out of range
    "Used 99999999999999999999 EiB, CUDA out of memory. Tried to allocate 1e999 GiB",
    *HINTS_AND_QUOTES,
    "xgboost.core.XGBoostError: b'[10:38:47] CUDA out of memory. Tried to allocate 2.00 MiB'",
    "the log said b'CUDA out of memory. Tried to allocate 2.00 MiB'",
    "Failed, NCCL error nccl_utils.cc:213 'CUDA out of memory. Tried to allocate 2.00 MiB'",
    "crashed with 'CUDA out of memory. Tried to allocate 2.00 MiB'",
    "Check failed: (e == cudaSuccess || e == NCC_DEMO1) is false: CUDA out of memory. Tried to allocate 2.00 MiB",
    "\n".join(log_lines(20_000)) + "\n[rank0]: CUDA out of memory. Tried to allocate 2.00 MiB",
]


#: Kinds of the test catalogue's records, as a site declares them (see triage.py).
DEMO_KINDS = settings_from({"errorkb_kinds": [
    {"name": "device", "title": "Device memory", "page": "docs/device", "cues": ["out of memory", "CUDA", "HBM"],
     "records": {"source": ["demo", "chip"]}},
    {"name": "killed", "title": "Killed", "page": "docs/killed", "cues": ["Killed", "exit code 137", "oom-kill"]},
    {"name": "other", "title": "Not a memory error", "page": "docs/other"},
]}).kinds


def pastes_for(catalogue) -> list[str]:
    out = list(EXTRA_PASTES)
    for record in catalogue.records.values():
        for message in record.messages:
            for example in (e.text for e in message.examples):
                out += [example, "Traceback (most recent call last):\n  File 'x.py'\n" + example + "\nexit 1",
                        example[: len(example) // 2]]  # truncated: the fallback ranking
    return out


def run_both(catalogue, tmp_path: Path, kinds=(), extra: list[str] | None = None) -> tuple[list, list]:
    node = require("node", "nodejs")
    index = build_index(catalogue, kinds=kinds)
    index_file = tmp_path / "index.json"
    index_file.write_text(json.dumps(index.to_json()), encoding="utf-8")
    pastes = pastes_for(catalogue) + (extra or [])
    python = []
    for paste in pastes:
        result = lookup(index, paste, top=5)
        python.append({"matches": [m.as_json() for m in result.matches], "notices": result.notices,
                       "kind": result.kind.as_json() if result.kind else None})
    proc = subprocess.run([node, str(NODE_RUNNER), str(index_file)], input=json.dumps([{"q": p, "top": 5} for p in pastes]),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return python, json.loads(proc.stdout)


def as_floats(data):
    """JSON with every number a float: Python writes 2**60 as a float, JavaScript as an integer."""
    return json.loads(json.dumps(data), parse_int=float)


def assert_same(python: list, js: list) -> None:
    assert len(python) == len(js)
    for py, nd in zip(python, js):
        assert [m["id"] for m in nd["matches"]] == [m["id"] for m in py["matches"]]
        for a, b in zip(py["matches"], nd["matches"]):
            assert b["score"] == pytest.approx(a["score"], abs=1e-3)
            assert set(b) == set(a) == {"id", "code", "title", "score", "exact", "also", "values", "url", "line", "lines", "span",
                                        "text", "readings", "diagnoses", "fixes"}
            assert as_floats({k: v for k, v in b.items() if k != "score"}) == as_floats({k: v for k, v in a.items() if k != "score"})
        assert nd["notices"] == py["notices"]
        assert nd["kind"] == py["kind"]


def test_same_answers_on_the_test_catalogue(tmp_path: Path):
    catalogue, problems = load_catalogue(write_records(tmp_path), schema=DEMO_SCHEMA, root=tmp_path)
    assert not problems and len(catalogue.records) == len(RECORDS) + len(CODED)
    python, js = run_both(catalogue, tmp_path, DEMO_KINDS)
    assert any(m["exact"] for r in python for m in r["matches"])
    assert any(r["matches"] and not r["matches"][0]["exact"] for r in python)
    assert {r["kind"]["name"] for r in python if r["kind"]} == {"device", "killed", "other"}
    assert_same(python, js)


def test_same_answers_for_codes_of_several_words_and_summary_lines(tmp_path: Path):
    folder = write_records(tmp_path, table={**RECORDS, **CODED, **PHRASED})
    catalogue, problems = load_catalogue(folder, schema=DEMO_SCHEMA, root=tmp_path)
    assert not problems
    python, js = run_both(catalogue, tmp_path, DEMO_KINDS, PHRASED_PASTES)
    answers = {paste: [(m["id"], m["exact"]) for m in r["matches"]] for paste, r in zip(pastes_for(catalogue) + PHRASED_PASTES, python)}
    assert answers["http  413"] == [("demo-body-too-large", True)]
    assert answers[PHRASED_PASTES[11]][:2] == [("demo-push-rejected", True), ("demo-push-failed", False)]
    told = python[len(python) - len(PHRASED_PASTES) + 13]
    assert told["kind"] and [(m["id"], m["exact"], m["also"]) for m in told["matches"]][0] == ("demo-push-failed", False, True)
    assert_same(python, js)


def test_same_answers_on_the_project_catalogue(tmp_path: Path):
    catalogue, _ = load_catalogue(ROOT / "errors", schema=SITE_SCHEMA, root=ROOT)
    assert catalogue.records
    assert_same(*run_both(catalogue, tmp_path, open_project(ROOT).settings.kinds))


SAMPLES = {"size": "2.00 GiB", "int": "1,024", "float": "1e-3", "hex": "0x7f", "shape": "[8, 1024]", "dtype": "bf16",
           "device": "cuda:0", "path": "/tmp/x.pb", "identifier": "jit_step", "ref": "feature/login-2.x",
           "url": "https://example.com/a?b=1#c", "status": "503", "quoted": "‘q’", "bracketed": "<module>",
           "text": "some text"}


def rendered(template) -> list[str]:
    """Lines that the template should match: its parts with a sample value for each placeholder,
    with every optional part and without any."""
    layout = Layout(template.segments)
    def render(keep) -> str:
        return "".join(SAMPLES[item.type] if isinstance(item, Placeholder) else item
                       for item, group in zip(layout.items, layout.groups) if keep(group))
    return [render(lambda g: True), render(lambda g: g is None)]


def test_the_browser_runs_each_template_s_pattern_as_python_does(tmp_path: Path):
    """The index ships each template's regular expression; JavaScript must find the same matches
    and values with it as Python, for the catalogues' templates and made-up ones that the proof
    need not accept, on every example and on lines made from each template."""
    node = require("node", "nodejs")
    texts, lines = [], ["Killed 😀 (x a   more) 'q'.*+?| 😀", "Fail [/a/b] - id^ dev\\ end t rest here 𝔘"]
    for catalogue, _ in (load_catalogue(ROOT / "errors", schema=SITE_SCHEMA, root=ROOT),
                         load_catalogue(write_records(tmp_path), schema=DEMO_SCHEMA, root=tmp_path)):
        texts += [t.text for record in catalogue.records.values() for t in record.templates]
        lines += [e.text for record in catalogue.records.values() for m in record.messages for e in m.examples]
    texts += ["^  Killed {{a}} at {n:int}x$", "a{{b}}c {p:path}: {s:size}/{q:quoted} {t:text}#{d:device}. {i:identifier}-{dt:dtype}(x",
              "^{a:text} failed $$ at {n:int}$", "Fail [{p:path}] - {i:identifier}^ {d:device}\\ end {t:text} rest here",
              "Killed 😀 (x {t:text}   more) {q:quoted}.*+?|", "^{n:int}: Killed process {i:identifier}]$",
              "Out of memory: {a:size} free.{? Process {p:int} has {o:size} in use.}{? {x:size} allowed;} Of {t:text}all",
              "Killed process {p:int}{? ({n:identifier})} total-vm:{vm:int}kB{?, anon-rss:{rss:int}kB}",
              "^Ran out {?of {i:identifier} }memory{? in {s:path}}$", "Failed {?to {x:text} }now: {d:device}{?:x}",
              "queue {name:quoted}1 of {n:int}0x{h:hex} is full",
              "push to {u:url} of {r:ref} answered {s:status} {b:bracketed}: {why:text}, then {more:text}"]
    compiled = [build(t, *parse(t)) for t in dict.fromkeys(texts)]
    lines += [line for c in compiled for line in rendered(c)]
    expected = [[[[list(m.span()), [m.group(g) for g in c.groups]] for m in c.regex.finditer(line)] for line in lines]
                for c in compiled]
    assert sum(bool(found) for per_template in expected for found in per_template) > len(compiled)
    proc = subprocess.run([node, "-e", MATCH_IN_NODE, str(CORE)], capture_output=True, text=True, timeout=120,
                          input=json.dumps({"templates": [[c.source, c.groups] for c in compiled], "lines": lines}))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == expected
