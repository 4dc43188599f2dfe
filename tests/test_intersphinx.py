"""Another Sphinx project links to our errors through intersphinx and our ``objects.inv``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from conftest import Project, record_text

OTHER_INDEX = """\
Notes
=====

By id :err:`demo-oom`, by code :err:`DEMO1`, by old id :err:`old-demo`,
and through the explicit form :external+kb:err:err:`demo-oom`.
"""


def build_other(kb: Project, root: Path, index: str) -> subprocess.CompletedProcess[str]:
    """A project that knows nothing of our records: only the domain, and intersphinx to our inventory."""
    inventory = kb.out / "objects.inv"
    (root / "conf.py").write_text(
        'extensions = ["errorkb.site.domain", "sphinx.ext.intersphinx"]\n'
        f"intersphinx_mapping = {{'kb': ({str(kb.out)!r}, {str(inventory)!r})}}\n",
        encoding="utf-8",
    )
    (root / "index.rst").write_text(index, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(root), str(root / "_build")],
                          capture_output=True, text=True, timeout=300)


def test_second_project_links_to_errors_through_objects_inv(project: Project, tmp_path_factory) -> None:
    project.add_record(record_text().replace("related: []", "related: []\naliases: [old-demo]"))
    assert project.build().returncode == 0
    other = tmp_path_factory.mktemp("other")
    result = build_other(project, other, OTHER_INDEX)
    assert result.returncode == 0, result.stderr

    page = (other / "_build" / "index.html").read_text(encoding="utf-8")
    found = re.findall(r'<a class="reference external" href="([^"]+)"[^>]*>(.*?)</a>', page, re.S)
    assert len(found) == 4
    for href, text in found:
        path, _, anchor = href.partition("#")
        assert Path(path) == project.out / "errors/demo/demo-oom.html" and Path(path).is_file()
        assert anchor == "demo-oom" and 'id="demo-oom"' in Path(path).read_text(encoding="utf-8")
        assert re.sub(r"<[^>]+>", "", text) == "DEMO1: Demo device ran out of memory"


def test_second_project_warns_on_an_unknown_error(project: Project, tmp_path_factory) -> None:
    project.add_record()
    assert project.build().returncode == 0
    result = build_other(project, tmp_path_factory.mktemp("other"), "Notes\n=====\n\nSee :err:`no-such-error`.\n")
    assert result.returncode != 0
    assert "index.rst:4: WARNING: unknown error 'no-such-error'" in result.stderr
