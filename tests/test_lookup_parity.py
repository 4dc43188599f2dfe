"""The browser's lookup (static/lookup-core.js, run here under node) gives the same answers as
the Python engine, for the same index and the same pastes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT
from errorkb.lookup import build_index, lookup
from errorkb.records import load_catalogue
from lookup_records import RECORDS, write_records
from system_tools import require

NODE_RUNNER = Path(__file__).with_name("lookup_node.js")

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
    "x" * 300_000 + "\nKilled",
    "y" * 5000 + "\nCUDA out of memory. Tried to allocate 1,024 bytes",
    "CUDA\u00a0out of memory. Tried\u202fto allocate 139. MiB",  # copied from a web page
]


def pastes_for(catalogue) -> list[str]:
    out = list(EXTRA_PASTES)
    for record in catalogue.records.values():
        for message in record.messages:
            for example in message.examples:
                out += [example, "Traceback (most recent call last):\n  File 'x.py'\n" + example + "\nexit 1",
                        example[: len(example) // 2]]  # truncated: the fallback ranking
    return out


def run_both(catalogue, tmp_path: Path) -> tuple[list, list]:
    node = require("node", "nodejs")
    index = build_index(catalogue)
    index_file = tmp_path / "index.json"
    index_file.write_text(json.dumps(index.to_json()), encoding="utf-8")
    pastes = pastes_for(catalogue)
    python = []
    for paste in pastes:
        result = lookup(index, paste, top=5)
        python.append({
            "matches": [{**m.as_json(), "line": m.line,
                         "explanation": m.explanation["text"] if m.explanation else None} for m in result.matches],
            "notices": result.notices,
        })
    proc = subprocess.run([node, str(NODE_RUNNER), str(index_file)], input=json.dumps([{"q": p, "top": 5} for p in pastes]),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return python, json.loads(proc.stdout)


def assert_same(python: list, js: list) -> None:
    assert len(python) == len(js)
    for py, nd in zip(python, js):
        assert [m["id"] for m in nd["matches"]] == [m["id"] for m in py["matches"]]
        for a, b in zip(py["matches"], nd["matches"]):
            assert b["score"] == pytest.approx(a["score"], abs=1e-3)
            assert {k: v for k, v in b.items() if k != "score"} == {k: v for k, v in a.items() if k != "score"}
        assert nd["notices"] == py["notices"]


def test_same_answers_on_the_test_catalogue(tmp_path: Path):
    catalogue, problems = load_catalogue(write_records(tmp_path), root=tmp_path)
    assert not problems and len(catalogue.records) == len(RECORDS)
    python, js = run_both(catalogue, tmp_path)
    assert any(m["exact"] for r in python for m in r["matches"])
    assert any(r["matches"] and not r["matches"][0]["exact"] for r in python)
    assert_same(python, js)


def test_same_answers_on_the_project_catalogue(tmp_path: Path):
    catalogue, _ = load_catalogue(ROOT / "errors", root=ROOT)
    assert catalogue.records
    assert_same(*run_both(catalogue, tmp_path))
