"""sphinx-design components on built pages: framework tabs, folded examples, source cards."""

from __future__ import annotations

import re

from conftest import DEMO_SCHEMA, Project, record_text
from design_records import design_record
from errorkb.records import load_record


def built_page(project: Project, builder: str = "html") -> str:
    result = project.build(builder=builder)
    assert result.returncode == 0, result.stderr
    return (project.out / "errors/demo/demo-oom.html").read_text()


def test_framework_sub_headings_are_the_variants_of_a_fix(project: Project):
    design_record(project)
    record = load_record(project.root / "errors/demo/demo-oom.md", root=project.root, schema=DEMO_SCHEMA)
    assert [(f.title, f.variants) for f in record.fixes] == [
        ("Use a smaller batch", ("pytorch", "jax")), ("Free what you no longer need", ("pytorch", "jax"))]


def test_a_fix_cannot_have_two_variants_for_one_framework(project: Project):
    design_record(project)
    path = project.root / "errors/demo/demo-oom.md"
    path.write_text(path.read_text().replace("#### JAX", "#### pytorch"))
    result = project.build()
    assert result.returncode == 1
    assert re.search(r"errors/demo/demo-oom.md:\d+: ERROR: fix 'Use a smaller batch' has two variants for PyTorch", result.stderr)


def test_variants_are_synchronised_tabs_outside_the_table_of_contents(project: Project):
    design_record(project)
    project.write("conf.py", project.CONF + 'html_theme = "furo"\n')  # a theme with the page's contents
    page = built_page(project)
    labels = re.findall(r'<label [^>]*data-sync-group="([^"]+)" data-sync-id="([^"]+)"[^>]*>\s*([^<]+?)\s*</label>', page)
    assert labels == [("framework", "pytorch", "PyTorch"), ("framework", "jax", "JAX"),
                      ("framework", "pytorch", "PyTorch"), ("framework", "jax", "JAX")]  # labels as the vocabulary writes them
    assert page.count('class="sd-tab-set errorkb-variants') == 2
    assert "Pass <code" in page and "Why it helps" in page  # the content stays; a plain sub-heading too
    toc = page[page.index('<div class="toc-tree">'):]
    toc = toc[: toc.index("</div>")]
    assert "Use a smaller batch" in toc and "PyTorch" not in toc and "JAX" not in toc


def test_examples_beyond_the_first_three_and_long_logs_fold(project: Project):
    design_record(project)
    page = built_page(project)
    opened, more = page.split("errorkb-more-examples", 1)
    assert re.findall(r"DemoError: could not allocate (\d).00 GiB on device 0", opened) == ["2", "3", "4"]
    assert re.search(r'<summary class="[^"]*">\s*<span class="sd-summary-text">3 more examples</span>', more)
    assert re.findall(r"DemoError: could not allocate (\d).00 GiB on device 0", more) == ["5", "6"]
    assert "A log of 21 lines ending: DemoError: could not allocate 9.00 GiB on device 1" in more


def test_landing_page_has_a_card_per_source_linking_to_its_index_page(project: Project):
    project.add_record()
    project.add_record(id="other-oom", code="OTHER1", source="other",
                       text=record_text(id="other-oom", code="OTHER1", source="other").replace("DemoError", "OtherError"))
    project.write("index.md", "# Demo\n\n```{err:sources}\n```\n\n```{toctree}\n:glob:\n\nerrors/*/*\n```\n")
    for builder, suffix in (("html", ".html"), ("dirhtml", "/")):
        result = project.build(builder=builder)
        assert result.returncode == 0, result.stderr
        index = (project.out / "index.html").read_text()
        cards = re.findall(r'errorkb-source-card.*?<div class="sd-card-title[^>]*>\s*(\w+)\s*</div>\s*<p class="sd-card-text">'
                           r'([^<]+)</p>.*?href="([^"]+)"', index, re.S)
        assert cards == [("demo", "1 error", f"by/source/demo{suffix}"), ("other", "1 error", f"by/source/other{suffix}")]


def test_records_need_no_toctree_and_the_sidebar_lists_sources(project: Project):
    """Navigation that does not grow with the catalogue: sources in the sidebar, records as orphans."""
    project.add_record()
    project.add_record(id="other-oom", code="OTHER1", source="other",
                       text=record_text(id="other-oom", code="OTHER1", source="other").replace("DemoError", "OtherError"))
    project.write("index.md", "# Demo\n\nNo toctree lists the records.\n")
    project.write("conf.py", project.CONF + 'html_sidebars = {"**": ["errorkb-sources.html"]}\n')
    result = project.build()
    assert result.returncode == 0, result.stderr
    page = (project.out / "errors/demo/demo-oom.html").read_text()
    block = page[page.index("errorkb-sidebar-sources"):]
    links = re.findall(r'<a class="reference internal" href="([^"]+)">(\w+) <span class="errorkb-count">(\d+)</span>', block)
    assert links == [("../../by/source/demo.html", "demo", "1"), ("../../by/source/other.html", "other", "1")]
