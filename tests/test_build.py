"""Building sites with the extension: a record page, bad records stopping ``sphinx-build``
cleanly, and the real site."""

import re
from pathlib import Path

import pytest

from conftest import Project, page, record_text


@pytest.mark.sphinx("html", testroot="basic")
def test_record_page(app):
    app.build()
    text = page(app, "errors/demo/demo-a.html")
    assert "DEMOA: Demo device ran out of memory" in text
    assert 'class="errorkb-placeholder errorkb-type-size"' in text
    assert "DemoErrorA: could not allocate 2.00 GiB on device 0" in text
    assert text.index("Use a smaller batch") < text.index("Free what you no longer need")
    assert '<meta name="description" content="The demo device could not allocate' in text
    [link] = re.findall(r'<p class="errorkb-seen[^"]*">Seen at <a [^>]*href="([^"]+)"[^>]*>([^<]+)</a></p>', text)
    assert link == ("https://github.com/demo/demo/issues/12345678901234567890123456789012345678901234567890",
                    "github.com/demo/demo/issues/" + "1234567890" * 3 + "1…")  # cut to 60 characters


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda t: t.replace("on device 0\"", "on GPU zero\""),
         "errors/demo/demo-oom.md:14: ERROR: messages[0].examples[0] does not match its template: matching stops at "
         "character 39, where ' on device ' should follow but the line has ' on GPU zero'"),
        (lambda t: t.replace("title: Demo", "title: [Demo"), "errors/demo/demo-oom.md:4: ERROR: invalid YAML"),
        (lambda t: t.replace("category: device-memory\n", ""), "errors/demo/demo-oom.md:2: ERROR: missing required field 'category'"),
        (lambda t: t.replace("related: []", "related: [nope]"),
         "errors/demo/demo-oom.md:15: ERROR: related[0]: no record has the id 'nope'"),
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


def test_real_site_builds(site: Path):
    page = (site / "errors/xla/xla-e1000.html").read_text()
    assert "E1000: Program needs more HBM than the TPU has" in page
    assert "docs/memory-profile.html" in page
    guide = (site / "docs/memory-profile.html").read_text()
    assert "errors/xla/xla-e1000.html" in guide
