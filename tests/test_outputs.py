"""Outputs for machines and search engines, and a crawl of the real site for dead links."""

from __future__ import annotations

import html
import json
import re
import shutil
import xml.etree.ElementTree as ET
from collections import deque
from pathlib import Path
from urllib.parse import unquote

from conftest import Project, record_text

BASE = "https://kb.example.org/docs/"
SUMMARY = "The demo device could not allocate a buffer because its memory was full."
INDEX = "# Demo\n\n```{err:catalogue}\n```\n\n```{toctree}\n:glob:\n\nerrors/*/*\ndocs/*\n```\n"


def with_aliases(aliases: str, **fields: str) -> str:
    return record_text(**fields).replace("related: []", f"related: []\naliases: {aliases}")


def small_site(project: Project, base_url: str = "") -> None:
    """Two related records, one with aliases, and a guide that links to one of them."""
    project.write("conf.py", Project.CONF + 'project = "Demo KB"\n' + (f"errorkb_base_url = {base_url!r}\n" if base_url else ""))
    project.write("index.md", INDEX)
    project.add_record(with_aliases("[old-demo]"))
    project.add_record(record_text(id="demo-two", code="DEMO2", related="[demo-oom]").replace("DemoError", "DemoTwo"),
                       id="demo-two")
    project.write("docs/guide.md", "# Guide\n\nSee {err}`demo-oom`.\n")
    result = project.build()
    assert result.returncode == 0, result.stderr


def meta(page: str) -> dict[str, str]:
    return {m[1]: html.unescape(m[2]) for m in re.finditer(r'<meta (?:property|name)="([^"]+)" content="([^"]*)"', page)}


def test_errors_json_has_every_record_with_urls(project: Project) -> None:
    small_site(project)
    data = json.loads((project.out / "errors.json").read_text(encoding="utf-8"))
    assert data["schema_version"] == 3 and data["base_url"] is None
    errors = {e["id"]: e for e in data["errors"]}
    assert list(errors) == ["demo-oom", "demo-two"]
    demo = errors["demo-oom"]
    assert demo["url"] == "errors/demo/demo-oom.html" and (project.out / demo["url"]).is_file()
    assert demo["code"] == "DEMO1" and demo["summary"] == SUMMARY and demo["aliases"] == ["old-demo"]
    assert demo["messages"][0]["examples"] == [{"text": "DemoError: could not allocate 2.00 GiB on device 0", "seen": None}]
    assert [f["title"] for f in demo["fixes"]] == ["Use a smaller batch", "Free what you no longer need"]
    assert demo["related"] == ["demo-two"] and errors["demo-two"]["related"] == ["demo-oom"]
    assert demo["referenced_by"] == [{"title": "Guide", "url": "docs/guide.html"}]


def test_llms_txt_lists_records_and_guides(project: Project) -> None:
    small_site(project, BASE)
    text = (project.out / "llms.txt").read_text(encoding="utf-8")
    assert text.startswith("# Demo KB\n\n> ")
    assert f"- [DEMO1: Demo device ran out of memory]({BASE}errors/demo/demo-oom.html): {SUMMARY}\n" in text
    assert f"## Guides\n\n- [Guide]({BASE}docs/guide.html)\n" in text
    assert f"({BASE}errors.json)" in text


def test_description_and_open_graph(project: Project) -> None:
    small_site(project)
    tags = meta((project.out / "errors/demo/demo-oom.html").read_text(encoding="utf-8"))
    assert tags["description"] == SUMMARY == tags["og:description"]
    assert tags["og:title"] == "DEMO1: Demo device ran out of memory" and tags["og:type"] == "article"
    assert "og:url" not in tags
    assert meta((project.out / "docs/guide.html").read_text(encoding="utf-8"))["og:title"] == "Guide"
    generated = meta((project.out / "by/platform/gpu.html").read_text(encoding="utf-8"))
    assert generated["og:title"] == "Platform: GPU" and "2 errors" in generated["description"]
    assert generated["description"] == generated["og:description"]


def test_absolute_urls_with_a_base_url(project: Project) -> None:
    small_site(project, BASE)
    page = (project.out / "errors/demo/demo-oom.html").read_text(encoding="utf-8")
    assert meta(page)["og:url"] == f"{BASE}errors/demo/demo-oom.html"
    assert f'<link rel="canonical" href="{BASE}errors/demo/demo-oom.html"' in page
    data = json.loads((project.out / "errors.json").read_text(encoding="utf-8"))
    assert data["base_url"] == BASE and data["errors"][0]["url"] == f"{BASE}errors/demo/demo-oom.html"


def test_sitemap_needs_a_base_url(project: Project) -> None:
    small_site(project)
    assert not (project.out / "sitemap.xml").exists()
    project.write("conf.py", Project.CONF + f"html_baseurl = {BASE!r}\n")
    assert project.build().returncode == 0
    tree = ET.parse(project.out / "sitemap.xml")
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    urls = [loc.text or "" for loc in tree.getroot().findall("s:url/s:loc", ns)]
    expected = ["index.html", "docs/guide.html", "errors/demo/demo-oom.html", "errors/demo/demo-two.html",
                "by/index.html", "by/platform/gpu.html", "by/source/demo.html"]
    assert {BASE + page for page in expected} <= set(urls)
    assert all(u.startswith(BASE) and (project.out / u[len(BASE):]).is_file() for u in urls)
    assert not any("old-demo" in u or "DEMO1" in u for u in urls)  # redirects are not pages to index


def test_not_found_page_links_work_at_any_address(project: Project) -> None:
    small_site(project)
    page = (project.out / "404.html").read_text(encoding="utf-8")
    assert "<h1>Page not found</h1>" in page and 'href="/index.html"' in page and 'href="/lookup.html"' in page
    assert 'href="/_static/' in page
    project.write("conf.py", Project.CONF + f"errorkb_base_url = {BASE!r}\n")
    assert project.build().returncode == 0
    page = (project.out / "404.html").read_text(encoding="utf-8")
    assert 'href="/docs/index.html"' in page and 'href="/docs/lookup.html"' in page and 'href="/docs/_static/' in page
    assert not re.search(r'\s(?:href|src)="(?!https?:|/|#|mailto:)', page)  # no link relative to the address


def test_not_found_page_of_the_site_s_own(project: Project) -> None:
    small_site(project)
    project.write("conf.py", Project.CONF + 'notfound_context = {"title": "Lost", "body": "<h1>Lost</h1>"}\n'
                  'notfound_urls_prefix = "/kb/"\n')
    assert project.build().returncode == 0
    page = (project.out / "404.html").read_text(encoding="utf-8")
    assert "<h1>Lost</h1>" in page and "Page not found" not in page and 'href="/kb/_static/' in page


def test_redirects_from_aliases_and_codes(project: Project) -> None:
    small_site(project, BASE)
    for name in ("old-demo", "DEMO1"):
        page = (project.out / f"errors/demo/{name}.html").read_text(encoding="utf-8")
        assert '<meta http-equiv="refresh" content="0; url=demo-oom.html">' in page
        assert f'<link rel="canonical" href="{BASE}errors/demo/demo-oom.html">' in page
        assert '<meta name="robots" content="noindex">' in page


def test_a_rebuild_rewrites_only_the_redirects_that_changed(project: Project) -> None:
    small_site(project, BASE)
    alias, other = project.out / "errors/demo/old-demo.html", project.out / "errors/demo/DEMO2.html"
    written = {path: path.stat().st_mtime_ns for path in (alias, other)}
    # The alias's record gets a new title; the other record changes only in its prose.
    record = project.root / "errors/demo/demo-oom.md"
    record.write_text(record.read_text(encoding="utf-8").replace(
        "title: Demo device ran out of memory", "title: Demo device memory is full"), encoding="utf-8")
    two = project.root / "errors/demo/demo-two.md"
    two.write_text(two.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")
    assert project.build().returncode == 0
    assert "Demo device memory is full" in alias.read_text(encoding="utf-8")
    assert alias.stat().st_mtime_ns != written[alias]
    assert other.stat().st_mtime_ns == written[other]


def test_a_code_as_printed_gets_a_redirect_page_named_by_its_slug(project: Project) -> None:
    project.add_record(record_text(code='"HTTP 413"'))
    quiet = record_text(id="demo-quiet", code='"DEMO 9"').replace("DemoError", "DemoQuiet")
    project.add_record(quiet.replace("related: []", "related: []\nredirects: false\naliases: [old-quiet]"), id="demo-quiet")
    result = project.build()
    assert result.returncode == 0, result.stderr
    assert 'content="0; url=demo-oom.html"' in (project.out / "errors/demo/HTTP-413.html").read_text(encoding="utf-8")
    assert not {"DEMO-9.html", "old-quiet.html"} & {p.name for p in (project.out / "errors/demo").iterdir()}


def test_a_site_may_keep_codes_out_of_titles(project: Project) -> None:
    project.write("conf.py", Project.CONF + 'errorkb_code_in_title = False\n')
    project.write("index.md", INDEX)
    project.add_record(record_text(code='"HTTP 413"'))
    project.write("docs/guide.md", "# Guide\n\nSee {err}`HTTP 413`.\n")
    result = project.build()
    assert result.returncode == 0, result.stderr
    page = (project.out / "errors/demo/demo-oom.html").read_text(encoding="utf-8")
    assert re.search(r"<h1>Demo device ran out of memory<", page) and meta(page)["og:title"] == "Demo device ran out of memory"
    assert re.search(r"Printed with the code <code[^>]*><span class=\"pre\">HTTP</span> <span class=\"pre\">413", page)
    assert "- [Demo device ran out of memory](errors/demo/demo-oom.html)" in (project.out / "llms.txt").read_text(encoding="utf-8")
    guide = (project.out / "docs/guide.html").read_text(encoding="utf-8")
    assert '<span class="xref err">Demo device ran out of memory</span>' in guide


def test_the_catalogue_has_a_code_column_only_where_an_error_has_a_code(project: Project) -> None:
    project.write("index.md", INDEX.replace("docs/*\n", ""))
    project.add_record(record_text(code=""))
    assert project.build().returncode == 0
    index = (project.out / "index.html").read_text(encoding="utf-8")
    assert "errorkb-col-error" in index and "errorkb-col-code" not in index
    project.add_record(record_text(id="demo-two", code="DEMO2").replace("DemoError", "DemoTwo"), id="demo-two")
    assert project.build().returncode == 0
    assert "errorkb-col-code" in (project.out / "index.html").read_text(encoding="utf-8")


# ---------------------------------------------------------------------------------------------
# The real site

_URL = re.compile(r'\s(?:href|src)="([^"]*)"')
_ID = re.compile(r'\s(?:id|name)="([^"]*)"')


def crawl(site: Path, served_at: str = "/") -> tuple[list[str], dict[Path, set[Path]]]:
    """Every dead internal link of every page, and which page links to which; a link from the
    server's root (the 404 page's) must start with ``served_at``, the site's path on its server."""
    dead: list[str] = []
    graph: dict[Path, set[Path]] = {}
    anchors: dict[Path, set[str]] = {}
    for page in sorted(site.rglob("*.html")):
        graph[page] = set()
        for url in map(html.unescape, _URL.findall(page.read_text(encoding="utf-8"))):
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//", url):
                continue  # another site, or mailto: and the like
            path, _, fragment = url.partition("#")
            path = unquote(path.split("?", 1)[0])
            if path.startswith("/"):
                if not path.startswith(served_at):
                    dead.append(f"{page.relative_to(site)}: {url}")
                    continue
                path = str(site / path[len(served_at):])
            target = (page.parent / path).resolve() if path else page
            if target.is_dir():
                target = target / "index.html"
            where = f"{page.relative_to(site)}: {url}"
            if not target.is_file() or not target.is_relative_to(site.resolve()):
                dead.append(where)
                continue
            if target.suffix == ".html":
                graph[page].add(target)
                if fragment:
                    if target not in anchors:
                        anchors[target] = set(_ID.findall(target.read_text(encoding="utf-8")))
                    if unquote(fragment) not in anchors[target]:
                        dead.append(where)
    return dead, graph


def test_real_site_has_no_dead_internal_link_and_every_record_is_two_clicks_away(site: Path) -> None:
    site = site.resolve()
    dead, graph = crawl(site)
    assert dead == []
    records = {site / e["url"] for e in json.loads((site / "errors.json").read_text(encoding="utf-8"))["errors"]}
    assert records and all(r.is_file() for r in records)
    depth = {site / "index.html": 0}
    queue = deque([site / "index.html"])
    while queue:
        page = queue.popleft()
        for target in graph.get(page, ()):
            if target not in depth:
                depth[target] = depth[page] + 1
                queue.append(target)
    assert {r: depth.get(r) for r in records if depth.get(r, 99) > 2} == {}


def test_crawler_finds_dead_links_and_anchors(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text('<a href="b.html#here">b</a> <a href="b.html#gone">x</a> <img src="c.png">'
                                     '<a href="https://example.org/">out</a> <a href="/kb/b.html">b</a> '
                                     '<a href="/b.html">x</a>', encoding="utf-8")
    (tmp_path / "b.html").write_text('<h1 id="here">B</h1>', encoding="utf-8")
    dead, graph = crawl(tmp_path.resolve(), served_at="/kb/")
    assert dead == ["a.html: b.html#gone", "a.html: c.png", "a.html: /b.html"]


# ---------------------------------------------------------------------------------------------
# dirhtml


def test_dirhtml_every_link_errorkb_writes_works(project: Project) -> None:
    small_site(project, BASE)
    project.write("index.md", INDEX.replace("# Demo\n", "# Demo\n\n```{errorkb-paste}\n```\n"))
    assert project.build("-E", builder="dirhtml").returncode == 0
    out = project.out
    dead, _ = crawl(out.resolve(), served_at="/docs/")
    assert dead == []
    landing = (out / "index.html").read_text(encoding="utf-8")
    paste_box = re.search(r'<form class="errorkb-paste" action="([^"]*)"', landing)
    assert paste_box is not None
    action = paste_box[1]
    assert action == "lookup/" and (out / action / "index.html").is_file()
    lookup = (out / "lookup/index.html").read_text(encoding="utf-8")
    form = dict(re.findall(r'data-(index|worker|root)="([^"]*)"', lookup))
    assert form["root"] == "../" and all((out / "lookup" / form[k]).is_file() for k in ("index", "worker"))
    data = json.loads((out / "errors.json").read_text(encoding="utf-8"))
    assert data["errors"][0]["url"] == f"{BASE}errors/demo/demo-oom/"
    redirect = (out / "errors/demo/old-demo/index.html").read_text(encoding="utf-8")
    assert '<meta http-equiv="refresh" content="0; url=../demo-oom/">' in redirect
    assert f'<link rel="canonical" href="{BASE}errors/demo/demo-oom/">' in redirect
    locs = re.findall(r"<loc>([^<]*)</loc>", (out / "sitemap.xml").read_text(encoding="utf-8"))
    assert f"{BASE}errors/demo/demo-oom/" in locs and all((out / u[len(BASE):] / "index.html").is_file() or u == BASE
                                                           for u in locs)
    opensearch = (out / "errorkb-opensearch.xml").read_text(encoding="utf-8")
    assert f'template="{BASE}lookup/#q={{searchTerms}}"' in opensearch
    not_found = (out / "404/index.html").read_text(encoding="utf-8")
    assert 'href="/docs/lookup/"' in not_found and 'href="/docs/"' in not_found


# ---------------------------------------------------------------------------------------------
# The site's own words, and its own templates


def test_site_wording_comes_from_configuration(project: Project) -> None:
    small_site(project)
    project.write("index.md", INDEX.replace("# Demo\n", "# Demo\n\n```{errorkb-paste}\n```\n"))
    assert project.build("-E").returncode == 0
    defaults = [(project.out / name).read_text(encoding="utf-8") for name in ("llms.txt", "errorkb-opensearch.xml")]
    landing = (project.out / "index.html").read_text(encoding="utf-8")
    assert 'placeholder="Paste an error message or a log"' in landing
    assert "<Description>Find an error by its message</Description>" in defaults[1]
    assert not any("accelerator" in text.lower() for text in defaults + [landing])
    project.write("conf.py", Project.CONF + 'errorkb_llms_summary = "SQLSTATE errors of the Demo server."\n'
                  'errorkb_opensearch_description = "Find a Demo server error"\n'
                  'errorkb_paste_placeholder = "ERROR: 42P01 <relation> does not exist"\n')
    assert project.build().returncode == 0
    assert "\n> SQLSTATE errors of the Demo server.\n" in (project.out / "llms.txt").read_text(encoding="utf-8")
    opensearch = (project.out / "errorkb-opensearch.xml").read_text(encoding="utf-8")
    assert "<Description>Find a Demo server error</Description>" in opensearch
    landing = (project.out / "index.html").read_text(encoding="utf-8")
    assert 'placeholder="ERROR: 42P01 &lt;relation&gt; does not exist"' in landing


def test_a_site_template_replaces_the_extension_s(project: Project) -> None:
    small_site(project)
    project.write("index.md", INDEX.replace("# Demo\n", "# Demo\n\n```{errorkb-paste}\n```\n"))
    project.write("_templates/errorkb-paste-box.html", '<form class="site-box" action="{{ action }}"></form>\n')
    project.write("conf.py", Project.CONF + 'templates_path = ["_templates"]\n')
    assert project.build("-E").returncode == 0
    landing = (project.out / "index.html").read_text(encoding="utf-8")
    assert '<form class="site-box" action="lookup.html"></form>' in landing
    assert "errorkb-paste-box.js" in landing
    assert "errorkb-paste-box.js" not in (project.out / "docs/guide.html").read_text(encoding="utf-8")


def test_a_parallel_build_writes_the_same_outputs(project: Project) -> None:
    for n in range(6):  # documents enough for every reading process to have some
        project.write(f"docs/more-{n}.md", f"# More {n}\n\nSee {{err}}`demo-two`.\n")
    small_site(project, BASE)
    names = ["errors.json", "llms.txt", "sitemap.xml", "404.html", "errors/demo/old-demo.html",
             "lookup.html", "errorkb-opensearch.xml", "_static/errorkb-lookup-index.json"]
    serial = {name: (project.out / name).read_text(encoding="utf-8") for name in names}
    shutil.rmtree(project.root / "_build")
    assert project.build("-j", "auto").returncode == 0
    assert {name: (project.out / name).read_text(encoding="utf-8") for name in names} == serial


def test_every_code_of_a_record_finds_it_and_the_page_says_what_it_was_checked_against(project: Project) -> None:
    project.write("conf.py", Project.CONF)
    project.write("index.md", INDEX)
    checked = "checked:\n  date: 2026-11\n  against: {Demo SDK: '2.10', Demo driver: '575'}\nrelated:"
    project.add_record(record_text(code="[DEMO1, DEMO7, DEMO9]").replace("related:", checked, 1))
    project.write("docs/guide.md", "# Guide\n\nSee {err}`DEMO9`.\n")
    result = project.build()
    assert result.returncode == 0, result.stderr
    for code in ("DEMO1", "DEMO7", "DEMO9"):
        assert 'url=demo-oom.html"' in (project.out / f"errors/demo/{code}.html").read_text(encoding="utf-8")
    page = (project.out / "errors/demo/demo-oom.html").read_text(encoding="utf-8")
    assert "Also printed with the codes <code" in page and "DEMO9" in page
    assert "Checked against Demo SDK 2.10 and Demo driver 575 on 2026-11." in page
    assert "DEMO1: Demo" in (project.out / "docs/guide.html").read_text(encoding="utf-8")
    [error] = json.loads((project.out / "errors.json").read_text(encoding="utf-8"))["errors"]
    assert error["codes"] == ["DEMO1", "DEMO7", "DEMO9"] and error["checked"]["date"] == "2026-11"
