"""The ``err`` domain and the links between pages: role, index, related both ways, Referenced by,
generated index pages and the catalogue, in full, incremental and parallel builds.

Most tests build ``tests/roots/test-basic``: demo-a lists demo-b as related, cuda-c's prose
links to demo-b, and ``docs/guide.md`` links to demo-b in every way the role allows.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from sphinx.util.inventory import InventoryFile

from conftest import page
from errorkb.site.domain import ErrorDomain, err_domain

basic = pytest.mark.sphinx("html", testroot="basic")


def main(text: str) -> str:
    """The page's own content, without the theme's navigation."""
    if 'role="main"' not in text:
        return text
    start = text.index('role="main"')
    ends = [i for i in (text.find('class="sphinxsidebar"', start), text.find("<footer", start)) if i > 0]
    return text[start:min(ends, default=len(text))]


def links(text: str) -> list[tuple[str, str]]:
    """(href, link text) of every link in the main content, in order."""
    return [(m[1], re.sub(r"<[^>]+>", "", m[2]))
            for m in re.finditer(r'<a [^>]*href="([^"]+)"[^>]*>(.*?)</a>', main(text), re.S)]


def section(text: str, marker: str) -> str:
    """The HTML from ``marker`` to the end of its list, to look at one list."""
    start = text.index(marker)
    return text[start:text.index("</ul>", start)]


def rebuild(app, make_app):
    """Build ``app``'s project again, incrementally, as the next ``sphinx-build`` would."""
    app.cleanup()
    again = make_app("html", srcdir=app.srcdir, builddir=app.outdir.parent)
    again.build()
    assert again.warning.getvalue() == ""
    return again


def write(app, relpath: str, text: str) -> None:
    (Path(app.srcdir) / relpath).write_text(text, encoding="utf-8")


def edit(app, relpath: str, old: str, new: str) -> None:
    path = Path(app.srcdir) / relpath
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new), encoding="utf-8")


@basic
def test_role_links_by_id_code_and_alias_with_code_and_title(app) -> None:
    app.build()
    assert app.warning.getvalue() == ""
    found = [link for link in links(page(app, "docs/guide.html")) if link[0] != "#guide"]
    target = "../errors/demo/demo-b.html"
    assert found == [(target, "DEMOB: Demo host ran out of pinned memory")] * 4 + [(target, "this one")]


@pytest.mark.sphinx("html", testroot="basic", srcdir="basic-dangling")
def test_unknown_target_warns_with_file_and_line(app) -> None:
    write(app, "docs/guide.md", "# Guide\n\nSome text.\n\nSee {err}`no-such-error`.\n")
    app.build()
    assert re.search(r"docs/guide\.md:5: WARNING: unknown error 'no-such-error'", app.warning.getvalue())


@basic
def test_errors_in_general_index_and_inventory(app) -> None:
    app.build()
    genindex = page(app, "genindex.html")
    assert "DEMOA: Demo device ran out of memory" in genindex and "errors/demo/demo-a.html" in genindex
    with (app.outdir / "objects.inv").open("rb") as stream:
        inventory = InventoryFile.load(stream, "", lambda base, uri: uri)
    objects = inventory.data["err:error"] if hasattr(inventory, "data") else inventory["err:error"]
    for name in ("demo-b", "DEMOB", "old-demo"):
        item = objects[name]
        uri = item.uri if hasattr(item, "uri") else item[2]
        display = item.display_name if hasattr(item, "display_name") else item[3]
        # At the record's summary, an anchor the page has (search results link to it too).
        assert uri == "errors/demo/demo-b.html#demo-b" and display == "DEMOB: Demo host ran out of pinned memory"


@basic
def test_related_shown_on_both_sides_and_referenced_by(app) -> None:
    app.build()
    a, b, c = (page(app, f"errors/{p}.html") for p in ("demo/demo-a", "demo/demo-b", "cuda/cuda-c"))
    assert "demo-b.html" in section(a, 'id="related-errors"')
    assert "demo-a.html" in section(b, 'id="related-errors"')  # shown although only demo-a declares it
    referenced = links(section(b, 'id="referenced-by"'))
    assert referenced == [("../cuda/cuda-c.html", "CUDAC: Demo kernel image too large to load"),
                          ("../../docs/guide.html", "Guide")]  # records first
    assert 'id="referenced-by"' not in a  # the related list's links are generated: they do not count
    assert "No related errors, references or pages that link here yet." in c


@pytest.mark.sphinx("html", testroot="basic", srcdir="basic-incremental")
def test_incremental_build_rewrites_pages_whose_links_changed(app, make_app) -> None:
    app.build()
    assert "demo-a.html" in page(app, "errors/demo/demo-b.html")

    # demo-a lists cuda-c instead of demo-b; the guide links to cuda-c instead of demo-b.
    edit(app, "errors/demo/demo-a.md", "related: [demo-b]", "related: [cuda-c]")
    write(app, "docs/guide.md", "# Guide\n\nSee {err}`cuda-c`.\n")
    again = rebuild(app, make_app)
    b, c = page(again, "errors/demo/demo-b.html"), page(again, "errors/cuda/cuda-c.html")
    assert 'id="related-errors"' not in b
    assert [href for href, _ in links(section(b, 'id="referenced-by"'))] == ["../cuda/cuda-c.html"]
    assert "demo-a.html" in section(c, 'id="related-errors"')
    assert "../../docs/guide.html" in dict(links(section(c, 'id="referenced-by"')))

    # A changed title shows on the pages that link to the record, and in the catalogue.
    edit(again, "errors/cuda/cuda-c.md", "title: Demo kernel image too large to load", "title: Renamed demo error")
    third = rebuild(again, make_app)
    assert "Renamed demo error" in page(third, "docs/guide.html")
    assert "Renamed demo error" in section(page(third, "errors/demo/demo-a.html"), 'id="related-errors"')
    assert "Renamed demo error" in page(third, "index.html")


@pytest.mark.sphinx("html", testroot="basic", srcdir="basic-parallel", parallel=2)
def test_parallel_build_gives_the_same_site(app, make_app, tmp_path: Path) -> None:
    write(app, "docs/other.md", "# Other\n\nSee {err}`DEMOA`.\n")
    serial_src = tmp_path / "serial"
    shutil.copytree(app.srcdir, serial_src)
    merged: list[str] = []
    app.connect("env-merge-info", lambda app, env, docnames, other: merged.extend(docnames))
    app.build()
    assert len(merged) == 6  # every page was read by a worker and merged back
    app.cleanup()
    serial = make_app("html", srcdir=serial_src)
    serial.build()
    pages = ["index.html", "docs/guide.html", "docs/other.html", "errors.json", "llms.txt",
             "errors/demo/demo-a.html", "errors/demo/demo-b.html", "errors/cuda/cuda-c.html"]
    for name in pages:
        assert page(app, name) == page(serial, name), name
    assert "other.html" in page(app, "errors/demo/demo-a.html")
    assert app.warning.getvalue() == serial.warning.getvalue() == ""


@basic
def test_state_lives_in_the_domain_alone(app) -> None:
    app.build()
    domain = err_domain(app.env)
    assert isinstance(domain, ErrorDomain)
    assert set(domain.catalogue.records) == {"demo-a", "demo-b", "cuda-c"}
    assert domain.related["demo-b"] == ["demo-a"]
    assert domain.backlinks["demo-b"] == {"docs/guide", "errors/cuda/cuda-c"}
    assert getattr(domain.record_for("errors/demo/demo-a"), "id", None) == "demo-a" and domain.record_for("docs/guide") is None
    assert set(domain.data) == {*ErrorDomain.initial_data, "version"}
    assert set(vars(domain)) - set(vars(ErrorDomain(app.env))) == set()
    assert [name for name in vars(app.env) if name.startswith("errorkb")] == []


@basic
def test_generated_index_pages_and_badges(app) -> None:
    app.build()
    expected = {"source/demo": ["demo-a", "demo-b"], "source/cuda": ["cuda-c"],
                "platform/gpu": ["cuda-c", "demo-a", "demo-b"], "framework/pytorch": ["cuda-c", "demo-a", "demo-b"],
                "phase/run-time": ["demo-a", "demo-b"], "phase/load-time": ["cuda-c"],
                "category/device-memory": ["cuda-c", "demo-a"], "category/host-memory": ["demo-b"]}
    for name, ids in expected.items():
        hrefs = [h for h, _ in links(page(app, f"by/{name}.html")) if h.startswith("../../errors/")]
        assert [h.rsplit("/", 1)[-1].removesuffix(".html") for h in hrefs] == ids, name
    overview = dict(links(page(app, "by/index.html")))
    assert {"platform/gpu.html", "phase/load-time.html", "source/cuda.html"} <= set(overview)
    badges = dict(links(section(page(app, "errors/demo/demo-a.html").replace("</p>", "</ul>"), "errorkb-badges")))
    # Each badge says what it is to screen readers (the field's label, visually hidden).
    assert badges == {"../../by/source/demo.html": "Source: demo", "../../by/platform/gpu.html": "Platform: GPU",
                      "../../by/framework/pytorch.html": "Framework: PyTorch",
                      "../../by/phase/run-time.html": "Phase: Run time",
                      "../../by/category/device-memory.html": "Category: Device memory"}


@basic
def test_catalogue_table_has_every_record_with_filter_values(app) -> None:
    app.build()
    index = page(app, "index.html")
    rows = re.findall(r'<tr class="(errorkb-row[^"]*)">(.*?)</tr>', index, re.S)
    links = [re.search(r'href="([^"]+)"', row) for _, row in rows]
    assert [link and link[1] for link in links] == [
        "errors/cuda/cuda-c.html", "errors/demo/demo-a.html", "errors/demo/demo-b.html"]
    classes = rows[1][0].split()
    assert {"errorkb-f-source-demo", "errorkb-f-platform-gpu", "errorkb-f-phase-run-time",
            "errorkb-f-framework-pytorch", "errorkb-f-category-device-memory"} <= set(classes)
    assert "DemoErrorA: could not allocate {requested:size}" in re.sub(r"<[^>]+>", "", rows[1][1])
    assert '<form class="errorkb-filters" hidden>' in index and '<option value="gpu">GPU</option>' in index
    assert "errorkb-catalogue.js" in index
    assert "errorkb-catalogue.js" not in page(app, "docs/guide.html")
    assert (app.outdir / "_static" / "errorkb-catalogue.js").is_file()
