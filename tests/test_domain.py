"""The ``err`` domain and the links between pages: role, index, related both ways, Referenced by,
generated index pages and the catalogue, in full, incremental and parallel builds."""

from __future__ import annotations

import re
import shutil

import pytest
from sphinx.util.inventory import InventoryFile

from conftest import Project, record_text

INDEX = "# Demo\n\n```{err:catalogue}\n```\n\n```{toctree}\n:glob:\n\nerrors/*/*\ndocs/*\n```\n"
TITLE = "Demo device ran out of memory"


def record(id_: str, code: str, related: str = "[]", body_link: str = "") -> str:
    text = record_text(id=id_, code=code, related=related).replace("DemoError", f"DemoError{code}")
    return text.replace("Print the memory in use before the failing step.",
                        f"Print the memory in use before the failing step. {body_link}".rstrip())


def site(project: Project, records: dict[str, tuple[str, str]], guide: str = "# Guide\n\nText.\n") -> None:
    """Records id -> (code, related), a guide in docs/guide.md, and a landing page with the catalogue."""
    project.write("index.md", INDEX)
    for id_, (code, related) in records.items():
        project.add_record(record(id_, code, related), id=id_)
    project.write("docs/guide.md", guide)


def html(project: Project, page: str) -> str:
    return (project.out / page).read_text(encoding="utf-8")


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
    """The HTML from ``marker`` to the end of its block, to look at one list."""
    start = text.index(marker)
    return text[start:text.index("</ul>", start)]


def test_role_links_by_id_and_code_with_code_and_title(project: Project) -> None:
    site(project, {"demo-oom": ("DEMO1", "[]")},
         guide="# Guide\n\nBy id {err}`demo-oom`, by code {err}`demo1`, in reST style {err:err}`DEMO1`, "
               "with own text {err}`this one <demo-oom>`.\n")
    result = project.build()
    assert result.returncode == 0, result.stderr
    found = [link for link in links(html(project, "docs/guide.html")) if link[0] != "#guide"]
    page = "../errors/demo/demo-oom.html"
    assert found == [(page, f"DEMO1: {TITLE}")] * 3 + [(page, "this one")]


def test_unknown_target_warns_with_file_and_line(project: Project) -> None:
    site(project, {"demo-oom": ("DEMO1", "[]")}, guide="# Guide\n\nSome text.\n\nSee {err}`no-such-error`.\n")
    result = project.build()
    assert result.returncode != 0
    assert re.search(r"docs/guide\.md:5: WARNING: unknown error 'no-such-error'", result.stderr), result.stderr


def test_errors_in_general_index_and_inventory(project: Project) -> None:
    site(project, {"demo-oom": ("DEMO1", "[]")})
    project.add_record(record_text().replace("related: []", "related: []\naliases: [old-demo]"))
    result = project.build()
    assert result.returncode == 0, result.stderr
    genindex = html(project, "genindex.html")
    assert f"DEMO1: {TITLE}" in genindex and "errors/demo/demo-oom.html" in genindex
    with (project.out / "objects.inv").open("rb") as stream:
        inventory = InventoryFile.load(stream, "", lambda base, uri: uri)
    objects = inventory.data["err:error"] if hasattr(inventory, "data") else inventory["err:error"]
    for name in ("demo-oom", "DEMO1", "old-demo"):
        item = objects[name]
        uri = item.uri if hasattr(item, "uri") else item[2]
        display = item.display_name if hasattr(item, "display_name") else item[3]
        assert uri == "errors/demo/demo-oom.html" and display == f"DEMO1: {TITLE}"


def test_related_shown_on_both_sides_and_referenced_by(project: Project) -> None:
    site(project, {"demo-a": ("DEMOA", "[demo-b]"), "demo-b": ("DEMOB", "[]"),
                   "demo-c": ("DEMOC", "[]", )},
         guide="# Guide\n\nSee {err}`demo-b`.\n")
    project.add_record(record("demo-c", "DEMOC", body_link="Compare {err}`demo-b`."), id="demo-c")
    result = project.build()
    assert result.returncode == 0, result.stderr
    a, b = html(project, "errors/demo/demo-a.html"), html(project, "errors/demo/demo-b.html")
    assert "demo-b.html" in section(a, 'id="related-errors"')
    assert "demo-a.html" in section(b, 'id="related-errors"')  # shown although only demo-a declares it
    referenced = dict(links(section(b, 'id="referenced-by"')))
    assert referenced == {"../../docs/guide.html": "Guide", "demo-c.html": f"DEMOC: {TITLE}"}
    assert 'id="referenced-by"' not in a  # nothing links to demo-a with the role
    assert 'id="referenced-by"' not in html(project, "errors/demo/demo-c.html")  # generated links do not count


def test_incremental_build_rewrites_pages_whose_links_changed(project: Project) -> None:
    site(project, {"demo-a": ("DEMOA", "[demo-b]"), "demo-b": ("DEMOB", "[]"), "demo-c": ("DEMOC", "[]")},
         guide="# Guide\n\nSee {err}`demo-b`.\n")
    assert project.build().returncode == 0
    assert "demo-a.html" in html(project, "errors/demo/demo-b.html")
    assert "guide.html" in html(project, "errors/demo/demo-b.html")

    # demo-a now lists demo-c instead of demo-b; the guide links to demo-c instead of demo-b.
    project.add_record(record("demo-a", "DEMOA", "[demo-c]"), id="demo-a")
    project.write("docs/guide.md", "# Guide\n\nSee {err}`demo-c`.\n")
    result = project.build()
    assert result.returncode == 0, result.stderr
    b, c = html(project, "errors/demo/demo-b.html"), html(project, "errors/demo/demo-c.html")
    assert 'id="related-errors"' not in b and 'id="referenced-by"' not in b
    assert "demo-a.html" in section(c, 'id="related-errors"')
    assert "../../docs/guide.html" in dict(links(section(c, 'id="referenced-by"')))

    # A changed title shows on the pages that link to the record, and in the catalogue.
    project.add_record(record("demo-c", "DEMOC").replace(f"title: {TITLE}", "title: Renamed demo error"), id="demo-c")
    assert project.build().returncode == 0
    assert "Renamed demo error" in html(project, "docs/guide.html")
    assert "Renamed demo error" in section(html(project, "errors/demo/demo-a.html"), 'id="related-errors"')
    assert "Renamed demo error" in html(project, "index.html")


def test_parallel_build_gives_the_same_site(project: Project, tmp_path_factory: pytest.TempPathFactory) -> None:
    ids = [f"demo-{i}" for i in range(6)]
    site(project, {id_: (f"DEMO{i}", f"[{ids[(i + 1) % 6]}]") for i, id_ in enumerate(ids)},
         guide="# Guide\n\n" + " ".join(f"{{err}}`{i}`" for i in ids[::2]) + "\n")
    project.write("docs/other.md", "# Other\n\nSee {err}`DEMO1`.\n")
    serial = Project.__new__(Project)
    serial.root = tmp_path_factory.mktemp("serial")
    shutil.copytree(project.root, serial.root, dirs_exist_ok=True)
    assert serial.build().returncode == 0
    result = project.build("-j", "2")
    assert result.returncode == 0, result.stderr
    pages = ["index.html", "docs/guide.html", "docs/other.html", "errors.json", "llms.txt",
             *(f"errors/demo/{i}.html" for i in ids)]
    for page in pages:
        assert html(project, page) == html(serial, page), page
    assert "guide.html" in html(project, "errors/demo/demo-0.html")
    assert "other.html" in html(project, "errors/demo/demo-1.html")


def test_generated_index_pages_and_badges(project: Project) -> None:
    site(project, {"demo-oom": ("DEMO1", "[]")})
    project.add_record(record_text(id="cuda-oom", code="CUDA1", source="cuda").replace("DemoError", "CudaError")
                       .replace("phase: run-time", "phase: load-time"), id="cuda-oom", source="cuda")
    result = project.build()
    assert result.returncode == 0, result.stderr
    expected = {"source/demo": ["demo-oom"], "source/cuda": ["cuda-oom"], "platform/gpu": ["cuda-oom", "demo-oom"],
                "framework/pytorch": ["cuda-oom", "demo-oom"], "phase/run-time": ["demo-oom"],
                "phase/load-time": ["cuda-oom"], "category/device-memory": ["cuda-oom", "demo-oom"]}
    for page, ids in expected.items():
        hrefs = [h for h, _ in links(html(project, f"by/{page}.html")) if h.startswith("../../errors/")]
        assert [h.rsplit("/", 1)[-1].removesuffix(".html") for h in hrefs] == ids, page
    overview = dict(links(html(project, "by/index.html")))
    assert {"platform/gpu.html", "phase/load-time.html", "source/cuda.html"} <= set(overview)
    badges = dict(links(section(html(project, "errors/demo/demo-oom.html").replace("</p>", "</ul>"), "errorkb-badges")))
    assert badges == {"../../by/source/demo.html": "demo", "../../by/platform/gpu.html": "GPU",
                      "../../by/framework/pytorch.html": "PyTorch", "../../by/phase/run-time.html": "Run time",
                      "../../by/category/device-memory.html": "Device memory"}


def test_catalogue_table_has_every_record_with_filter_values(project: Project) -> None:
    site(project, {"demo-a": ("DEMOA", "[]"), "demo-b": ("DEMOB", "[]")},
         guide="# Guide\n\nNo table here.\n")
    result = project.build()
    assert result.returncode == 0, result.stderr
    index = html(project, "index.html")
    rows = re.findall(r'<tr class="(errorkb-row[^"]*)">(.*?)</tr>', index, re.S)
    assert [re.search(r'href="([^"]+)"', row)[1] for _, row in rows] == ["errors/demo/demo-a.html", "errors/demo/demo-b.html"]
    classes = rows[0][0].split()
    assert {"errorkb-f-source-demo", "errorkb-f-platform-gpu", "errorkb-f-phase-run-time",
            "errorkb-f-framework-pytorch", "errorkb-f-category-device-memory"} <= set(classes)
    assert "DemoErrorDEMOA: could not allocate {requested:size}" in re.sub(r"<[^>]+>", "", rows[0][1])
    assert '<form class="errorkb-filters" hidden>' in index and '<option value="gpu">GPU</option>' in index
    assert "errorkb-catalogue.js" in index
    assert "errorkb-catalogue.js" not in html(project, "docs/guide.html")
    assert (project.out / "_static" / "errorkb-catalogue.js").is_file()
