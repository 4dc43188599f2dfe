"""The hostile snippets once more, as an ordinary user, where the sandbox rests on a user namespace.

Run as root, this test starts their suite as ``nobody`` in a private mount namespace that lets
that user reach the interpreter and the project even where they live in a folder only root may
enter (pyenv under ``/root``), as root builds do for their snippets.  Run as an ordinary user,
the suite already ran as one.  The hostile records' and tools' suites are not run again: they
run no snippet, and nothing else they check depends on who runs them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import ROOT
from errorkb.examples import sandbox
from system_tools import require

NOBODY = 65534
SUITES = ["tests/test_hostile_snippets.py"]


@pytest.mark.skipif(os.geteuid() != 0, reason="already running as an ordinary user: the suites ran as one")
def test_the_hostile_snippets_pass_as_an_ordinary_user() -> None:
    for tool in ("unshare", "setpriv", "mount"):
        require(tool, "util-linux")
    require("bwrap", "bubblewrap")
    home = Path(tempfile.mkdtemp(prefix="errorkb-nobody-"))
    try:
        os.chown(home, NOBODY, NOBODY)
        python = Path(sys.executable)
        paths = sorted({Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve(), python.resolve().parent.parent,
                        ROOT.resolve()}, key=lambda p: len(p.parts))
        paths = [p for p in paths if not any(q != p and p.is_relative_to(q) for q in paths)]
        script = "\n".join(["set -e", *sandbox.openings(paths)]) + (
            f"\nexec setpriv --reuid={NOBODY} --regid={NOBODY} --clear-groups --inh-caps=-all --bounding-set=-all -- "
            f"'{python}' -m pytest -q -rs -p no:cacheprovider --basetemp '{home}/tmp' " + " ".join(SUITES))
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C.UTF-8",
               "PYTHONDONTWRITEBYTECODE": "1", **({"CI": os.environ["CI"]} if "CI" in os.environ else {})}
        done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script], cwd=ROOT,
                              env=env, capture_output=True, text=True, timeout=1200)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert " passed" in summary and "failed" not in summary and "error" not in summary, summary
    skipped = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
    assert all("run as root only" in line for line in skipped), skipped  # nothing else may be skipped
