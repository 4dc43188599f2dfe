"""The answers shared by ``errorkb run``, the hook and the MCP server: where the records are
found, the base URL, and the block printed under a failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import DEMO_CONF, ROOT
from errorkb.tools.answers import Answers, base_url, find_site
from lookup_records import write_records

DETAIL = ("RuntimeError: CUDA out of memory. Tried to allocate 1.71 GiB (GPU 0; 6.00 GiB total capacity; "
          "3.49 GiB already allocated; 1.04 GiB free; 3.50 GiB reserved in total by PyTorch)")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    write_records(tmp_path)
    (tmp_path / "conf.py").write_text(DEMO_CONF)
    return tmp_path


def test_the_records_are_found_in_the_root_given_else_the_environment_else_here_else_the_checkout(
        root: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "errors").mkdir()  # a folder of the user's own, with no records in it
    (elsewhere / "errors" / "handlers.py").write_text("")
    monkeypatch.chdir(elsewhere)
    monkeypatch.delenv("ERRORKB_ROOT", raising=False)
    assert Path(find_site(root).root) == root
    assert Path(find_site().root) == ROOT  # the checkout this package is installed from
    monkeypatch.chdir(root)
    assert Path(find_site().root) == root
    monkeypatch.chdir(root / "errors")  # the site's conf.py is found from a folder inside it
    assert Path(find_site().root) == root
    monkeypatch.setenv("ERRORKB_ROOT", str(elsewhere))
    with pytest.raises(LookupError, match=f"no records in {elsewhere / 'errors'}; give --root or set ERRORKB_ROOT"):
        find_site()


def test_the_base_url_comes_from_the_environment_or_the_sites_conf_py(root: Path, monkeypatch):
    monkeypatch.delenv("ERRORKB_BASE_URL", raising=False)
    assert base_url(find_site(root).base_url) == ""
    (root / "conf.py").write_text('import os\nhtml_baseurl = os.environ.get("X", "https://old.example.org")\n')
    assert base_url(find_site(root).base_url) == "https://old.example.org/"  # conf.py runs, as in a build
    (root / "conf.py").write_text('html_baseurl = "https://old.example.org"\nerrorkb_base_url: str = "https://kb.example.org"\n')
    assert base_url(find_site(root).base_url) == "https://kb.example.org/"
    monkeypatch.setenv("ERRORKB_BASE_URL", "https://mirror.example.org/kb")
    assert base_url(find_site(root).base_url) == "https://mirror.example.org/kb/"


def test_the_block_shows_the_record_its_values_their_meaning_and_first_fixes(root: Path, monkeypatch):
    monkeypatch.chdir(root)
    monkeypatch.delenv("ERRORKB_BASE_URL", raising=False)
    block = Answers.load(root).block("step 9\n" + DETAIL + "\n", "errorkb: train exited with status 1")
    assert block == """\
errorkb: train exited with status 1
errorkb: demo-cuda-detail (DCD): Demo CUDA allocation failed, with the device's numbers
  matched: CUDA out of memory. Tried to allocate 1.71 GiB (GPU 0; 6.00 GiB total capacity; 3.49 GiB already allocated; 1.04 GiB free
  Asked for: 1.71 GiB (1,836,098,519 bytes)
  Gpu: 0
  Device memory: 6.00 GiB (6,442,450,944 bytes)
  Used: 3.49 GiB (3,747,358,966 bytes)
  Free: 1.04 GiB (1,116,691,497 bytes)
  This process holds 58% of the device's 6.00 GiB; 1.04 GiB is free
  Asked for 1.71 GiB with 1.04 GiB free, 686.08 MiB short: what is held fills the device (fix 2: Free what you no longer need)
  58% of the device is allocated: 3.49 GiB of 6.00 GiB (fix 1: Use a smaller batch)
  fix 2: Free what you no longer need
  fix 1: Use a smaller batch
  more: errorkb explain demo-cuda-detail
  also matched: demo-cuda-generic
"""


def test_the_block_puts_the_fix_the_values_rule_out_last(root: Path, monkeypatch):
    monkeypatch.chdir(root)
    monkeypatch.setenv("ERRORKB_BASE_URL", "https://kb.example.org/")
    paste = ("RuntimeError: CUDA out of memory. Tried to allocate 20.00 GiB (GPU 0; 16.00 GiB total capacity; "
             "1.00 GiB already allocated; 14.00 GiB free")
    block = Answers.load(root).block(paste)
    assert block is not None
    lines = block.splitlines()
    assert "  The one allocation is 1.25x the whole device" in lines
    assert "  Only 1.00 GiB is allocated: a smaller batch cannot help (rules out fix 1: Use a smaller batch)" in lines
    assert lines.index("  fix 2: Free what you no longer need") < lines.index(
        "  fix 1: Use a smaller batch (ruled out by these values)")


def test_with_a_base_url_the_block_and_the_lookup_give_the_page(root: Path, monkeypatch):
    monkeypatch.setenv("ERRORKB_BASE_URL", "https://kb.example.org/")
    answers = Answers.load(root)
    page = "https://kb.example.org/errors/host/demo-killed.html"
    block, record = answers.block("Killed"), answers.explain("demo-killed")
    assert block is not None and block.splitlines()[-1] == f"  more: {page}"
    assert answers.lookup("Killed")["matches"][0]["url"] == page
    assert record is not None and record["url"] == page


def test_no_exact_match_gives_no_block(root: Path):
    assert Answers.load(root).block("CUDA memory trouble while loading the model") is None
