"""``errorkb lookup``: answers, exit statuses, bad input, strict JSON, a terminal kept safe, and a
start-up that loads no more than it needs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DEMO_SCHEMA, ROOT
from errorkb.core.lookup import build_index
from errorkb.core.records import load_catalogue
from errorkb.tools.cli import main
from lookup_records import write_records

DETAIL = ("RuntimeError: CUDA out of memory. Tried to allocate 1.71 GiB (GPU 0; 6.00 GiB total capacity; "
          "3.49 GiB already allocated; 1.04 GiB free; 3.50 GiB reserved in total by PyTorch)")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cli-lookup")
    write_records(root)
    return root


@pytest.fixture(scope="module")
def index_file(root: Path) -> Path:
    catalogue, problems = load_catalogue(root / "errors", schema=DEMO_SCHEMA, root=root)
    assert not problems
    path = root / "lookup-index.json"
    path.write_text(json.dumps(build_index(catalogue).to_json()), encoding="utf-8")
    return path


def run(root: Path, *argv: str, stdin: bytes = b"") -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "errorkb.tools.cli", "--root", str(root), "lookup", *argv],
                          input=stdin, capture_output=True, timeout=60, cwd=ROOT)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


def test_an_exact_match_names_the_record_its_values_and_fixes(root: Path, capsys):
    assert main(["--root", str(root), "lookup", DETAIL]) == 0
    out = capsys.readouterr().out
    assert out.startswith("1. DCD: Demo CUDA allocation failed, with the device's numbers  [exact]")
    assert "errors/demo/demo-cuda-detail.html  (demo-cuda-detail)" in out
    assert "   Asked for: 1.71 GiB (1,836,098,519 bytes)\n" in out
    assert "   This process holds 58% of the device's 6.00 GiB; 1.04 GiB is free\n" in out
    assert "   fix 2: Free what you no longer need\n   fix 1: Use a smaller batch\n" in out  # as the values call for


def test_json_output_lists_the_matches_best_first(root: Path, capsys):
    assert main(["--root", str(root), "lookup", "--json", "--top", "2", "epoch 3\n" + DETAIL]) == 0
    matches = json.loads(capsys.readouterr().out)["matches"]
    assert [m["id"] for m in matches] == ["demo-cuda-detail", "demo-cuda-generic"]
    assert matches[0]["exact"] and matches[0]["values"]["gpu"]["text"] == "0"
    assert (matches[0]["line"], matches[0]["lines"], matches[0]["text"]) == (2, 1, DETAIL)
    assert DETAIL[slice(*matches[0]["span"])].startswith("CUDA out of memory. Tried to allocate 1.71 GiB")
    assert matches[0]["diagnoses"][0]["message"].startswith("Asked for 1.71 GiB with 1.04 GiB free")


def test_json_output_is_strict_whatever_the_numbers(capsys):
    paste = "Estimated peak HBM usage (1e999) exceeds 16.00GB. Neff won't be able to load on chip"
    assert main(["--root", str(ROOT), "lookup", "--json", paste]) == 0
    out = capsys.readouterr().out

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} is not JSON")

    used = json.loads(out, parse_constant=refuse)["matches"][0]["values"]["estimate"]
    assert used == {"type": "float", "text": "1e999", "value": None, "label": "Estimated peak"}


def test_no_exact_match_lists_the_closest_and_exits_1(root: Path, capsys):
    assert main(["--root", str(root), "lookup", "CUDA memory trouble while loading the model"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("No exact match; the closest records (not exact):")
    assert "[closest, not exact]" in out


def test_a_built_index_gives_the_same_answer_as_the_records(root: Path, index_file: Path, capsys):
    main(["--root", str(root), "lookup", "--json", DETAIL])
    from_records = capsys.readouterr().out
    assert main(["--root", str(root / "nowhere"), "lookup", "--json", "--index", str(index_file), DETAIL]) == 0
    assert capsys.readouterr().out == from_records


def test_the_paste_is_read_from_standard_input(root: Path):
    done = run(root, stdin=("epoch 3\n" + DETAIL + "\nexit code 1\n").encode())
    assert done.returncode == 0, done.stderr
    assert "line 2: CUDA out of memory. Tried to allocate 1.71 GiB (GPU 0;" in done.stdout


def test_stray_bytes_in_a_log_are_no_reason_to_refuse_it(root: Path):
    done = run(root, stdin=b"\x00\x01step 1\n" + DETAIL.encode().replace(b"CUDA", b"CU\x00DA\xe2\x80\x8b") + b"\n\xff\xfe")
    assert done.returncode == 0 and "[exact]" in done.stdout


@pytest.mark.parametrize(("argv", "stdin", "complaint"), [
    ((), b"  \n\n", "the input is empty"),
    (("-",), b"\x00\x01\x02\xff\xfe" * 200, "looks like binary data"),
    (("--top", "0", "Killed"), b"", "--top must be 1 or more"),
    (("--index", "missing.json", "Killed"), b"", "cannot read the lookup index missing.json"),
])
def test_bad_input_exits_2_with_one_line(root: Path, argv, stdin, complaint):
    done = run(root, *argv, stdin=stdin)
    assert done.returncode == 2
    assert complaint in done.stderr and "Traceback" not in done.stderr


def test_a_corrupt_index_is_refused_cleanly(root: Path, tmp_path: Path):
    bad = tmp_path / "index.json"
    bad.write_text('{"version": 3, "records": [', encoding="utf-8")
    done = run(root, "--index", str(bad), "Killed")
    assert done.returncode == 2 and "cannot read the lookup index" in done.stderr and "Traceback" not in done.stderr


def test_an_endless_log_is_cut_to_its_end(root: Path):
    log = b"step ok\n" * 1_400_000 + DETAIL.encode()  # 11 MB, the error last
    done = run(root, stdin=log)
    assert done.returncode == 0, done.stderr
    assert "only its last 10,485,760 were read" in done.stderr
    assert "only its last 200,000 were searched" in done.stderr
    assert "line 200000: CUDA out of memory. Tried to allocate 1.71 GiB" in done.stdout


def test_a_closed_or_full_standard_output_gives_no_traceback(root: Path):
    with open("/dev/full", "wb") as full:
        done = subprocess.run([sys.executable, "-m", "errorkb.tools.cli", "--root", str(root), "lookup", "--json", DETAIL],
                              stdout=full, stderr=subprocess.PIPE, timeout=60, cwd=ROOT)
    assert done.returncode == 2 and b"errorkb: cannot write: No space left on device" in done.stderr
    assert b"Traceback" not in done.stderr
    proc = subprocess.Popen([sys.executable, "-m", "errorkb.tools.cli", "--root", str(root), "lookup", "--json", DETAIL],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before anything is written, as with `| head -0`
    assert proc.wait(timeout=60) == 0 and proc.stderr.read() == b""


def test_what_is_echoed_to_a_terminal_cannot_act_on_it(root: Path, index_file: Path, tmp_path: Path):
    data = json.loads(index_file.read_text(encoding="utf-8"))
    killed = next(row for row in data["records"] if row[0] == "demo-killed")
    killed[2] = "Demo \x1b]0;pwned\x07 killed \u202eby the kernel"
    hostile = tmp_path / "index.json"
    hostile.write_text(json.dumps(data), encoding="utf-8")
    done = run(root, "--index", str(hostile), "Killed")
    assert done.returncode == 0
    assert "Demo \\u001b]0;pwned\\u0007 killed \\u202eby the kernel" in done.stdout
    assert "\x1b" not in done.stdout and "\u202e" not in done.stdout


def test_no_exact_match_shows_the_way_forward(root: Path, index_file: Path, tmp_path: Path):
    done = run(root, "CUDA memory trouble while loading the model")
    assert done.returncode == 1
    assert "errorkb new --id ID --source SOURCE --title TITLE --message-file FILE" in done.stderr
    assert "Report it" not in done.stderr  # no repository known
    data = json.loads(index_file.read_text(encoding="utf-8"))
    data["report"] = "https://github.com/example/errorkb/issues/new?template=missing-error.yml"
    with_report = tmp_path / "index.json"
    with_report.write_text(json.dumps(data), encoding="utf-8")
    done = run(root, "--index", str(with_report), "CUDA memory trouble while loading the model")
    assert "Report it (check the paste for private paths and names first):\n  " + data["report"] in done.stderr


def test_searching_a_built_index_loads_neither_sphinx_nor_the_records_model(index_file: Path):
    probe = ("import sys; from errorkb.tools.cli import main; main(['lookup', '--index', sys.argv[1], 'Killed']); "
             "print(sorted({m.split('.')[0] for m in sys.modules} & {'sphinx', 'docutils', 'pydantic', 'yaml', 'myst_parser'}))")
    done = subprocess.run([sys.executable, "-c", probe, str(index_file)], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout + done.stderr
