"""errorkb for another domain: a database server's errors, with the site's own fields and sections.

``tests/sites/dbkb`` declares its fields (SQLSTATE class, severity, clients, the release a
message appeared in), its sections (Meaning, Resolution) and names the fixes' section; its
records are found by their codes, digits included.  ``tests/sites/dbkb-notes`` links to it
through intersphinx knowing nothing but its inventory.  Everything runs from the wheel
installed in a fresh environment (``installed``), with no file of this repository at hand.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import Installed

SITES = Path(__file__).parent / "sites"


@pytest.fixture(scope="module")
def dbkb(installed: Installed, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The database site, copied out of the repository and built with -W as html and dirhtml."""
    root = tmp_path_factory.mktemp("dbkb") / "site"
    shutil.copytree(SITES / "dbkb", root)
    for builder in ("html", "dirhtml"):
        done = installed.run("sphinx-build", "-W", "-q", "-j", "auto", "-b", builder, ".", f"_build/{builder}", cwd=root)
        assert done.returncode == 0, done.stderr
    return root


@pytest.fixture(scope="module")
def errorkb(installed: Installed, dbkb: Path):
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        """The command line, run from a folder inside the site: it finds conf.py upward."""
        return installed.run("errorkb", *args, cwd=dbkb / "errors")

    return run


def test_its_records_carry_its_own_badges_and_sections(dbkb: Path):
    page = (dbkb / "_build/html/errors/server/too-many-connections.html").read_text(encoding="utf-8")
    badges = re.findall(r'href="([^"]+)"[^>]*><span class="errorkb-badge[^"]*"[^>]*>'
                        r'<span class="errorkb-visually-hidden">[^<]*</span>([^<]+)</span>', page)
    assert badges == [("../../by/source/server.html", "Server"), ("../../by/class/53.html", "53: insufficient resources"),
                      ("../../by/severity/fatal.html", "FATAL")]
    assert '<span class="errorkb-badge errorkb-badge-secondary' in page and ">psycopg</span>" in page  # a badge, no index page
    assert re.search(r"<h2>Meaning", page) and re.search(r"<h2>Resolution", page)
    assert "sd-tab-set" in page and 'data-sync-group="clients"' in page  # the clients' variants are tabs
    memory = (dbkb / "_build/html/errors/server/out-of-memory.html").read_text(encoding="utf-8")
    assert ">Since release 9.0</span>" in memory and re.search(r"<h2>Notes", memory)  # free text, and a free section


def test_its_catalogue_has_its_columns_and_filters(dbkb: Path):
    index = (dbkb / "_build/html/index.html").read_text(encoding="utf-8")
    heads = re.findall(r'<th class="head errorkb-col-(\w+)[^"]*"><p>([^<]+)', index)
    assert heads == [("code", "Code"), ("error", "Error"), ("message", "First message"),
                     ("sqlstate_class", "SQLSTATE class"), ("severity", "Severity")]
    assert re.findall(r'<select name="([^"]+)"', index) == ["source", "class", "severity", "clients"]
    assert "errorkb-f-class-53" in index and "errorkb-f-clients-psql" in index
    assert "accelerator" not in index.lower()


def test_its_index_pages_are_by_its_fields(dbkb: Path):
    pages = {p.relative_to(dbkb / "_build/html/by").as_posix() for p in (dbkb / "_build/html/by").rglob("*.html")}
    assert {"index.html", "class/53.html", "class/42.html", "severity/panic.html", "source/storage.html"} <= pages
    assert not any(p.startswith(("clients/", "since/")) for p in pages)
    overview = (dbkb / "_build/html/by/index.html").read_text(encoding="utf-8")
    assert re.findall(r"<h2>By ([^<]+)</h2>", overview) == ["source", "sqlstate class", "severity"]
    assert (dbkb / "_build/dirhtml/by/class/53/index.html").is_file()


def test_errors_json_has_its_keys(dbkb: Path):
    data = json.loads((dbkb / "_build/html/errors.json").read_text(encoding="utf-8"))
    by_id = {e["id"]: e for e in data["errors"]}
    assert len(by_id) == 6
    memory = by_id["out-of-memory"]
    assert (memory["sqlstate_class"], memory["severity"], memory["since"], memory["clients"]) == ("53", "error", "9.0", [])
    assert set(memory["sections"]) == {"Meaning", "Notes"} and memory["fixes"][0]["title"] == "Lower work_mem for the query"
    assert by_id["too-many-connections"]["fixes"][1]["variants"] == ["psycopg", "psql"]
    assert not {"platforms", "frameworks", "phase", "category"} & set(memory)


def test_the_command_line_reads_its_conf_py(errorkb):
    done = errorkb("check")
    assert done.returncode == 0 and "6 records OK, prose OK" in done.stderr, done.stdout + done.stderr
    for paste, expected in (("53300", "too-many-connections"), ("40P01", "deadlock-detected"),
                            ('2024-05-01 10:00:00 UTC [42] ERROR:  relation "orders" does not exist', "undefined-table"),
                            ("PANIC:  could not write to file \"pg_wal/x\": No space left on device", "disk-full")):
        done = errorkb("lookup", "--json", paste)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["matches"][0]["id"] == expected, paste
    done = errorkb("explain", "23505")
    assert done.returncode == 0 and "unique constraint" in done.stdout


def test_the_command_line_refuses_a_site_without_records(installed: Installed, tmp_path: Path):
    (tmp_path / "conf.py").write_text('extensions = ["errorkb"]\nerrorkb_records_dir = "kb"\n')
    done = installed.run("errorkb", "check", cwd=tmp_path)
    assert done.returncode == 2 and "no records folder kb/" in done.stderr
    (tmp_path / "kb").mkdir()
    (tmp_path / "kb" / "stray.md").write_text("# Not a record\n")
    done = installed.run("errorkb", "check", cwd=tmp_path)
    assert done.returncode == 2 and "no record in kb/" in done.stderr


def test_a_third_project_links_to_it_through_intersphinx(installed: Installed, dbkb: Path, tmp_path: Path):
    notes = tmp_path / "notes"
    shutil.copytree(SITES / "dbkb-notes", notes)
    (notes / "inventory.txt").write_text(str(dbkb / "_build/html"), encoding="utf-8")
    done = installed.run("sphinx-build", "-W", "-q", "-b", "html", ".", "_build", cwd=notes)
    assert done.returncode == 0, done.stderr
    page = (notes / "_build/index.html").read_text(encoding="utf-8")
    links = re.findall(r'<a class="reference external" href="([^"]+)"', page)
    assert [Path(href).relative_to(dbkb / "_build/html").as_posix() for href in links] == [
        "errors/server/too-many-connections.html#too-many-connections", "errors/server/out-of-memory.html#out-of-memory"]
