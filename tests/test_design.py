"""sphinx-design components on built pages: framework tabs, folded examples, source cards.

They build ``tests/roots/test-design``: ``demo-oom`` has fixes with framework variants, six
examples and a whole log as one; ``other-oom`` is a second source; no toctree lists the records.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import DEMO_SCHEMA, page
from errorkb.core.records import load_catalogue, load_record

DESIGN = Path(__file__).parent / "roots" / "test-design"


def test_framework_sub_headings_are_the_variants_of_a_fix() -> None:
    record = load_record(DESIGN / "errors/demo/demo-oom.md", root=DESIGN, schema=DEMO_SCHEMA)
    assert [(f.title, f.variants) for f in record.fixes] == [
        ("Use a smaller batch", ("pytorch", "jax")), ("Free what you no longer need", ("pytorch", "jax"))]


def test_a_fix_cannot_have_two_variants_for_one_framework(tmp_path: Path) -> None:
    text = (DESIGN / "errors/demo/demo-oom.md").read_text(encoding="utf-8")
    path = tmp_path / "errors/demo/demo-oom.md"
    path.parent.mkdir(parents=True)
    path.write_text(text.replace("#### JAX", "#### pytorch"), encoding="utf-8")
    _, problems = load_catalogue(tmp_path / "errors", schema=DEMO_SCHEMA, root=tmp_path)
    line = text.splitlines().index("#### JAX") + 1
    assert [str(p) for p in problems] == [
        f"errors/demo/demo-oom.md:{line}: fix 'Use a smaller batch' has two variants for PyTorch"]


@pytest.mark.sphinx("html", testroot="design", confoverrides={"html_theme": "furo"})  # a theme with the page's contents
def test_variants_are_synchronised_tabs_outside_the_table_of_contents(app) -> None:
    app.build()
    text = page(app, "errors/demo/demo-oom.html")
    labels = re.findall(r'<label [^>]*data-sync-group="([^"]+)" data-sync-id="([^"]+)"[^>]*>\s*([^<]+?)\s*</label>', text)
    assert labels == [("framework", "pytorch", "PyTorch"), ("framework", "jax", "JAX"),
                      ("framework", "pytorch", "PyTorch"), ("framework", "jax", "JAX")]  # labels as the vocabulary writes them
    assert text.count('class="sd-tab-set errorkb-variants') == 2
    assert "Pass <code" in text and "Why it helps" in text  # the content stays; a plain sub-heading too
    toc = text[text.index('<div class="toc-tree">'):]
    toc = toc[: toc.index("</div>")]
    assert "Use a smaller batch" in toc and "PyTorch" not in toc and "JAX" not in toc


@pytest.mark.sphinx("html", testroot="design")
def test_examples_beyond_the_first_and_long_logs_fold(app) -> None:
    """The first wording shows its first example; the others fold, so the page stays short."""
    app.build()
    opened, more = page(app, "errors/demo/demo-oom.html").split("errorkb-more-examples", 1)
    assert re.findall(r"DemoError: could not allocate (\d).00 GiB on device 0", opened) == ["2"]
    assert re.search(r'<summary class="[^"]*">\s*<span class="sd-summary-text">5 more examples</span>', more)
    assert re.findall(r"DemoError: could not allocate (\d).00 GiB on device 0", more) == ["3", "4", "5", "6"]
    assert "A log of 21 lines ending: DemoError: could not allocate 9.00 GiB on device 1" in more


@pytest.mark.parametrize("suffix", [
    pytest.param(".html", marks=pytest.mark.sphinx("html", testroot="design")),
    pytest.param("/", marks=pytest.mark.sphinx("dirhtml", testroot="design")),
])
def test_landing_page_has_a_card_per_source_linking_to_its_index_page(app, suffix: str) -> None:
    app.build()
    cards = re.findall(r'errorkb-source-card.*?<div class="sd-card-title[^>]*>\s*(\w+)\s*</div>\s*<p class="sd-card-text">'
                       r'([^<]+)</p>.*?href="([^"]+)"', page(app, "index.html"), re.S)
    assert cards == [("demo", "1 error", f"by/source/demo{suffix}"), ("other", "1 error", f"by/source/other{suffix}")]


@pytest.mark.sphinx("html", testroot="design", confoverrides={"html_sidebars": {"**": ["errorkb-sources.html"]}})
def test_records_need_no_toctree_and_the_sidebar_lists_sources(app) -> None:
    """Navigation that does not grow with the catalogue: sources in the sidebar, records as orphans."""
    app.build()
    assert app.warning.getvalue() == ""  # no "document isn't included in any toctree"
    text = page(app, "errors/demo/demo-oom.html")
    block = text[text.index("errorkb-sidebar-sources"):]
    links = re.findall(r'<a class="reference internal" href="([^"]+)">(\w+) <span class="errorkb-count">(\d+)</span>', block)
    assert links == [("../../by/source/demo.html", "demo", "1"), ("../../by/source/other.html", "other", "1")]
