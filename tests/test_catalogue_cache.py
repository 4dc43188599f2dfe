"""The compiled catalogue kept between runs: used while what it was made from is unchanged,
compiled again as soon as a record, the site's conf.py or errorkb's own code changes, and never
a reason for a wrong answer or a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, record_text
from errorkb.tools import catalogue_cache
from errorkb.tools.answers import Answers
from lookup_records import write_records

PASTE = "DemoError: could not allocate 2.00 GiB on device 0"


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A site with one record and a cache folder of its own; compiling is counted."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("ERRORKB_BASE_URL", raising=False)
    site = tmp_path / "site"
    site.mkdir()
    write_records(site, coded=False)
    (site / "errors/demo/demo-oom.md").write_text(record_text(), encoding="utf-8")
    return site


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The sites compiled from their records, in order."""
    done: list[Path] = []
    compile_project = catalogue_cache.compile_project

    def counted(project):
        done.append(project.root)
        return compile_project(project)

    monkeypatch.setattr(catalogue_cache, "compile_project", counted)
    return done


def title(root: Path, paste: str = PASTE) -> str | None:
    matches = Answers.load(root).lookup(paste)["matches"]
    return matches[0]["title"] if matches and matches[0]["exact"] else None


def age(path: Path, seconds: float = 60) -> None:
    """Date the file back, as one edited a while ago."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns - int(seconds * 1e9)))


def test_a_second_run_reads_the_compiled_catalogue(root: Path, compiled: list[Path]):
    assert title(root) == "Demo device ran out of memory"
    assert title(root) == "Demo device ran out of memory"
    assert compiled == [root]


def test_an_edited_record_is_compiled_again(root: Path, compiled: list[Path]):
    record = root / "errors/demo/demo-oom.md"
    age(record)
    assert title(root) == "Demo device ran out of memory"
    record.write_text(record_text().replace("Demo device ran out", "Demo board ran out"), encoding="utf-8")
    assert title(root) == "Demo board ran out of memory"
    assert len(compiled) == 2


def test_a_record_changed_twice_within_one_tick_of_the_clock_is_seen(root: Path, compiled: list[Path]):
    """An edit that keeps the size and, on a coarse clock, the modification time of the stamp."""
    record = root / "errors/demo/demo-oom.md"
    assert title(root) == "Demo device ran out of memory"
    stat = record.stat()
    record.write_text(record_text().replace("Demo device ran out", "Demo DEVICE ran out"), encoding="utf-8")
    os.utime(record, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert record.stat().st_size == stat.st_size
    assert title(root) == "Demo DEVICE ran out of memory"


def test_a_record_saved_unchanged_is_not_compiled_again(root: Path, compiled: list[Path]):
    record = root / "errors/demo/demo-oom.md"
    age(record)
    assert title(root) == "Demo device ran out of memory"
    record.write_bytes(record.read_bytes())  # a new modification time, the same bytes
    age(record, 30)
    assert title(root) == "Demo device ran out of memory"
    assert title(root) == "Demo device ran out of memory"
    assert compiled == [root]


def test_records_added_and_removed_are_seen(root: Path, compiled: list[Path]):
    assert title(root, "DemoError: could not allocate 2.00 GiB on device 0") is not None
    added = root / "errors/other/other-oom.md"
    added.parent.mkdir()
    text = record_text(id="other-oom", code="OTHER1", source="other").replace("DemoError", "OtherError")
    added.write_text(text.replace("Demo device ran out", "Other device ran out"), encoding="utf-8")
    assert title(root, "OtherError: could not allocate 2.00 GiB on device 0") == "Other device ran out of memory"
    added.unlink()
    assert title(root, "OtherError: could not allocate 2.00 GiB on device 0") is None
    assert len(compiled) == 3


def test_a_changed_conf_py_is_read_again(root: Path):
    assert Answers.load(root).base_url == ""
    conf = root / "conf.py"
    conf.write_text(conf.read_text(encoding="utf-8") + '\nerrorkb_base_url = "https://kb.example.org"\n', encoding="utf-8")
    assert Answers.load(root).base_url == "https://kb.example.org/"


def test_a_change_to_errorkbs_own_code_compiles_again(root: Path, compiled: list[Path], tmp_path: Path, monkeypatch):
    package = tmp_path / "package"
    package.mkdir()
    module = package / "lookup.py"
    module.write_text("# the matcher\n", encoding="utf-8")
    monkeypatch.setattr(catalogue_cache, "PACKAGE", str(package))
    title(root)
    title(root)
    module.write_text("# the matcher, improved\n", encoding="utf-8")
    title(root)
    assert len(compiled) == 2


def cli(root: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "errorkb.tools.cli", "--root", str(root), *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ, **env})


def test_a_corrupt_or_unwritable_cache_gives_the_same_answer(root: Path, tmp_path: Path):
    cache = tmp_path / "cache"
    first = cli(root, "lookup", PASTE, env={"XDG_CACHE_HOME": str(cache)})
    assert first.returncode == 0 and "Demo device ran out of memory" in first.stdout
    (written,) = (cache / "errorkb").iterdir()
    for damage in (b"", b"{\"key\": 1}\n", written.read_bytes()[:1000], b"\xff\xfe\n[]\n"):
        written.write_bytes(damage)
        again = cli(root, "lookup", PASTE, env={"XDG_CACHE_HOME": str(cache)})
        assert (again.returncode, again.stdout, again.stderr) == (0, first.stdout, first.stderr)
        assert cli(root, "explain", "demo-oom", env={"XDG_CACHE_HOME": str(cache)}).returncode == 0
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    again = cli(root, "lookup", PASTE, env={"XDG_CACHE_HOME": str(blocked)})
    assert (again.returncode, again.stdout, again.stderr) == (0, first.stdout, first.stderr)


def test_a_lookup_from_the_compiled_catalogue_loads_no_more_than_it_needs(root: Path, tmp_path: Path):
    """Neither the records' model (pydantic, YAML, markdown-it) nor the templates' compiler nor
    hashlib nor pathlib (half an interpreter start each) nor dataclasses (its import of inspect
    and its classes' making take more than an interpreter start) while the cache is current."""
    probe = ("import sys; from errorkb.tools.cli import main; main(['--root', sys.argv[1], 'lookup', sys.argv[2]]); "
             "print(sorted({m.split('.')[0] for m in sys.modules} & {'sphinx', 'docutils', 'pydantic', 'yaml', "
             "'markdown_it', 'myst_parser', 'hashlib', 'pathlib', 'dataclasses', 'inspect'} "
             "| {'errorkb.core.templates'} & set(sys.modules)))")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    for path in root.rglob("*"):
        age(path)  # not edited a moment ago: their stamps are trusted without hashing them
    runs = [subprocess.run([sys.executable, "-c", probe, str(root), PASTE], capture_output=True, text=True, timeout=120,
                           env=env, cwd=ROOT) for _ in range(2)]
    assert "pydantic" in runs[0].stdout  # the first run compiles the records
    assert runs[1].stdout.splitlines()[-1] == "[]"


def test_a_named_pipe_or_an_oversized_file_among_the_records_neither_hangs_nor_is_read(root: Path, compiled: list[Path]):
    os.mkfifo(root / "errors/demo/pipe.md")
    huge = root / "errors/demo/huge.md"
    with huge.open("wb") as f:
        f.truncate(1 << 40)  # a terabyte, sparse: refused by its size, never read
    assert title(root) == "Demo device ran out of memory"
    assert title(root) == "Demo device ran out of memory"
    assert compiled == [root]
