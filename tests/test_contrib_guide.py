"""CONTRIBUTING.md's walk-through, run as written: its commands, their output, its record."""

from __future__ import annotations

import json
import re
import shlex

from conftest import ROOT
from test_contrib_make import make

GUIDE = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")


def block_after(marker: str, fence: str = "```") -> str:
    """The first fenced block after ``marker`` in the guide."""
    start = GUIDE.index(marker)
    m = re.compile(rf"^{fence}\w*\n(.*?)^{fence}$", re.S | re.M).search(GUIDE, start)
    assert m is not None, marker
    return m.group(1)


def test_the_walk_through_works_as_written(project):
    command = next(line for line in block_after("### Start the record").splitlines() if line.startswith("make new "))
    made = make(project, *shlex.split(command)[1:])
    assert made.returncode == 0, made.stderr
    assert made.stdout.strip() == block_after("The command answers:").strip()

    path = project.root / "errors/pytorch/torch-cpu-alloc.md"
    scaffold = path.read_text(encoding="utf-8")
    shown_template = block_after("### Read what it wrote").strip()
    assert f"  - template: {json.dumps(shown_template)}" in scaffold
    assert make(project, "check").returncode != 0

    path.write_text(block_after("Here is the finished record:", fence="````"), encoding="utf-8")
    checked = make(project, "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    built = make(project, "html")
    assert built.returncode == 0, built.stderr
    page = (project.root / "_build/html/errors/pytorch/torch-cpu-alloc.html").read_text(encoding="utf-8")
    assert "PyTorch could not allocate host memory for a tensor" in page and "Load large files lazily" in page


def test_the_guide_names_only_targets_that_exist():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in set(re.findall(r"`make (\w+)", GUIDE)):
        assert re.search(rf"^{target}:", makefile, re.M), f"CONTRIBUTING.md mentions make {target}"
