"""A clone of the project under /tmp, with its virtual environment there too (a throw-away
clone, a CI cache, a container), runs every snippet of the records: the sandbox's own /tmp
does not hide the interpreter.  The environment gets what the set-up installs for snippets
(snippet-requirements.txt) and nothing else of the repository's."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from conftest import ROOT, _constraints
from errorkb.examples import sandbox
from system_tools import require, unavailable


def working_tree_clone(into: Path) -> None:
    """``git clone`` of the repository, with the working tree's changes, tracked or new, on top."""
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(into)], check=True, timeout=300)
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True, timeout=60).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, into / name)


def test_a_clone_under_tmp_runs_every_snippet_of_the_records() -> None:
    require("git", "git")
    require("bwrap", "bubblewrap")
    if sandbox.unavailable():
        unavailable(f"the sandbox does not start here: {sandbox.unavailable()}")
    base = Path(tempfile.mkdtemp(prefix="errorkb-clone-", dir="/tmp"))  # under /tmp, whatever TMPDIR says
    try:
        clone = base / "errorkb"
        working_tree_clone(clone)
        venv = clone / ".venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
        pip = subprocess.run([str(venv / "bin/python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                              "-c", str(_constraints(base)), "-r", str(clone / "snippet-requirements.txt"), "-e", str(clone),
                              "pytest"], capture_output=True, text=True, timeout=1800)
        assert pip.returncode == 0, pip.stderr[-3000:]
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        done = subprocess.run([str(venv / "bin/python"), "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rs", "errors"],
                              cwd=clone, env=env, capture_output=True, text=True, timeout=1800)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    assert done.returncode == 0, done.stdout[-6000:]
    summary = done.stdout.strip().splitlines()[-1]
    counted = re.search(r"(\d+) passed", summary)
    assert counted is not None, summary
    passed = int(counted.group(1))
    skipped = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
    hardware = ("needs a CUDA GPU", "needs a GPU", "needs a TPU", "needs an AWS Neuron device")
    assert all(any(need in line for need in hardware) for line in skipped), skipped  # nothing else is skipped
    snippets = sum(path.read_text(encoding="utf-8").count("```{snippet}") for path in (ROOT / "errors").rglob("*.md"))
    assert passed + sum(int(line.split("[", 1)[1].split("]", 1)[0]) for line in skipped) == snippets > 30
