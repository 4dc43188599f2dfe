"""Building sites with the extension: record pages, and bad records stopping the build cleanly."""

import re
from pathlib import Path

import pytest

from conftest import Project, record_text

FIXTURES = Path(__file__).parent / "fixtures"


def test_record_page(project: Project):
    project.add_record()
    result = project.build()
    assert result.returncode == 0, result.stderr
    page = (project.out / "errors/demo/demo-oom.html").read_text()
    assert "DEMO1: Demo device ran out of memory" in page
    assert 'class="errorkb-placeholder errorkb-type-size"' in page
    assert "DemoError: could not allocate 2.00 GiB on device 0" in page
    assert page.index("Use a smaller batch") < page.index("Free what you no longer need")
    assert '<meta name="description" content="The demo device could not allocate' in page


def test_an_example_links_to_where_it_was_seen(project: Project):
    seen = ('      - text: "DemoError: could not allocate 1.50 GiB on device 3"\n'
            "        seen: https://github.com/demo/demo/issues/12345678901234567890123456789012345678901234567890\n")
    project.add_record(text=record_text().replace("related:", seen + "related:"))
    result = project.build()
    assert result.returncode == 0, result.stderr
    page = (project.out / "errors/demo/demo-oom.html").read_text()
    [link] = re.findall(r'<p class="errorkb-seen">Seen at <a [^>]*href="([^"]+)"[^>]*>([^<]+)</a></p>', page)
    assert link == ("https://github.com/demo/demo/issues/12345678901234567890123456789012345678901234567890",
                    "github.com/demo/demo/issues/" + "1234567890" * 3 + "1…")  # 60 characters


def test_record_doctree_matches_the_snapshot(project: Project):
    """Like sphinx-design's tests: the doctree of a record page, compared to a stored one."""
    project.add_record()
    result = project.build(builder="pseudoxml")
    assert result.returncode == 0, result.stderr
    doctree = (project.out / "errors/demo/demo-oom.pseudoxml").read_text()
    doctree = re.sub(r'source="[^"]*"', 'source="..."', doctree)
    snapshot = FIXTURES / "record.pseudoxml"
    if not snapshot.exists():  # first run writes it; review and commit it
        snapshot.parent.mkdir(exist_ok=True)
        snapshot.write_text(doctree)
        pytest.fail("wrote a new snapshot: review tests/fixtures/record.pseudoxml and commit it")
    assert doctree == snapshot.read_text()


def test_related_records_link_to_each_other(project: Project):
    project.add_record(id="demo-oom", related="[demo-other]")
    project.add_record(id="demo-other", code="DEMO2", text=record_text(id="demo-other", code="DEMO2").replace(
        "DemoError: could not allocate", "OtherError: no room for").replace("could not allocate 2.00", "x"))
    result = project.build()
    assert result.returncode == 0, result.stderr
    page = (project.out / "errors/demo/demo-oom.html").read_text()
    assert 'href="demo-other.html"' in page and "DEMO2: Demo device ran out of memory" in page


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda t: t.replace("on device 0\"", "on GPU zero\""), "errors/demo/demo-oom.md:14: ERROR: messages[0].examples[0] does not match its template"),
        (lambda t: t.replace("title: Demo", "title: [Demo"), "errors/demo/demo-oom.md:4: ERROR: invalid YAML"),
        (lambda t: t.replace("category: device-memory\n", ""), "errors/demo/demo-oom.md:2: ERROR: missing required field 'category'"),
        (lambda t: t.replace("related: []", "related: [nope]"), "errors/demo/demo-oom.md:15: ERROR: related[0]: no record has the id 'nope'"),
    ],
    ids=["example", "yaml", "missing-field", "related"],
)
def test_bad_record_stops_the_build_with_one_line_and_no_site(project: Project, change, expected):
    project.add_record(text=change(record_text()))
    result = project.build()
    assert result.returncode == 1
    assert expected in result.stderr
    assert "Traceback" not in result.stderr and "Versions" not in result.stderr
    assert not (project.out / "index.html").exists()


def test_duplicate_id_or_code_stops_the_build(project: Project):
    project.add_record(id="demo-oom")
    project.add_record(id="demo-two", text=record_text(id="demo-two").replace("DemoError: could", "DemoError two: could"))
    result = project.build()
    assert result.returncode == 1
    assert "errors/demo/demo-two.md:3: ERROR: code 'DEMO1' is already used by errors/demo/demo-oom.md" in result.stderr


def test_reference_to_an_unknown_error_names_file_and_line(project: Project):
    project.add_record()
    project.write("guide.md", "# Guide\n\nSee {err}`demo-oom` and {err}`no-such-error`.\n")
    project.write("index.md", "# Demo\n\n```{toctree}\n:glob:\n\nguide\nerrors/*/*\n```\n")
    result = project.build()
    assert result.returncode == 1
    assert re.search(r"guide.md:3: WARNING: unknown error 'no-such-error'", result.stderr), result.stderr


def test_role_finds_records_by_code_and_alias(project: Project):
    project.add_record(text=record_text().replace("related: []", "related: []\naliases: [OldDemo]"))
    project.write("guide.md", "# Guide\n\n{err}`DEMO1` and {err}`olddemo`.\n")
    project.write("index.md", "# Demo\n\n```{toctree}\n:glob:\n\nguide\nerrors/*/*\n```\n")
    result = project.build()
    assert result.returncode == 0, result.stderr
    page = (project.out / "guide.html").read_text()
    assert page.count('<span class="xref err">DEMO1: Demo device ran out of memory</span>') == 2


def test_parallel_build_gives_the_same_pages(project: Project, tmp_path: Path):
    for n in range(6):
        project.add_record(id=f"demo-e{n}", text=record_text(id=f"demo-e{n}", code=f"E{n}").replace(
            "DemoError: could", f"DemoError{n}: could"))
    serial = project.build()
    assert serial.returncode == 0, serial.stderr
    pages = {p.relative_to(project.out): p.read_text() for p in project.out.rglob("errors/**/*.html")}
    parallel_out = tmp_path / "parallel"
    import subprocess, sys
    result = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-q", "-j", "2", "-b", "html",
                             str(project.root), str(parallel_out)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    for rel, text in pages.items():
        assert (parallel_out / rel).read_text() == text, rel


def test_real_site_builds(site: Path):
    page = (site / "errors/xla/xla-e1000.html").read_text()
    assert "E1000: Program needs more HBM than the TPU has" in page
    assert "docs/memory-profile.html" in page
    guide = (site / "docs/memory-profile.html").read_text()
    assert "errors/xla/xla-e1000.html" in guide
