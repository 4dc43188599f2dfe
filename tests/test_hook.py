"""The Python hook: ``python -m errorkb.hook``, the sitecustomize line and the IPython extension,
in real subprocesses and a real kernel; the traceback and exit status are the interpreter's own."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT
from errorkb.tools.catalogue_cache import compiled_site

# The line docs/never-paste.md gives for a sitecustomize.py.
SITECUSTOMIZE = "import errorkb.hook; errorkb.hook.install()\n"

# Fills the address space up to a limit just above what the interpreter uses, then fails: the
# process is out of memory when the hook runs.
OUT_OF_MEMORY = """\
import resource, sys
print("argv", sys.argv, __name__, __file__, sys.path[0])
with open("/proc/self/status") as status:
    size = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize"))
resource.setrlimit(resource.RLIMIT_AS, (size + (8 << 20), size + (8 << 20)))
hold = []
while True:
    hold.append(bytearray(1 << 20))
"""


def python(*argv: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=120, cwd=cwd,
                          env={**os.environ, "ERRORKB_ROOT": str(ROOT), **(env or {})})


@pytest.fixture(scope="module", autouse=True)
def compiled_catalogue() -> None:
    """The catalogue compiled, as by any run before: a program out of memory gets its block from
    the compiled catalogue, and compiling the records takes more than the hook's reserve."""
    compiled_site(ROOT)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "oom.py").write_text(OUT_OF_MEMORY, encoding="utf-8")
    return tmp_path


def test_a_script_runs_as_the_interpreter_runs_it_and_gets_the_block_under_its_traceback(folder: Path):
    direct = python("app/oom.py", "--epochs", "2", cwd=folder)
    hooked = python("-m", "errorkb.hook", "app/oom.py", "--epochs", "2", cwd=folder)
    assert direct.returncode == hooked.returncode == 1
    assert hooked.stdout == direct.stdout  # argv, __name__, __file__, sys.path[0]
    assert f"argv ['app/oom.py', '--epochs', '2'] __main__ {folder / 'app' / 'oom.py'} {folder / 'app'}" in direct.stdout
    assert direct.stderr.endswith("MemoryError\n")
    assert hooked.stderr.startswith(direct.stderr)  # the same traceback, then the block
    block = hooked.stderr[len(direct.stderr):]
    assert block.startswith("errorkb: python-memoryerror: ")
    assert "  fix 1: " in block


def test_a_module_runs_as_with_python_m(folder: Path):
    (folder / "app" / "__init__.py").write_text("")
    direct = python("-m", "app.oom", cwd=folder)
    hooked = python("-m", "errorkb.hook", "-m", "app.oom", cwd=folder)
    assert direct.returncode == hooked.returncode == 1
    assert hooked.stdout.split()[:4] == direct.stdout.split()[:4]
    assert "errorkb: python-memoryerror: " in hooked.stderr


@pytest.mark.parametrize(("code", "status", "stderr"), [
    ("print('fine')", 0, ""),
    ("raise SystemExit(3)", 3, ""),
    ("import sys; sys.exit('stopped')", 1, "stopped\n"),
])
def test_the_exit_status_is_the_programs(folder: Path, code: str, status: int, stderr: str):
    (folder / "prog.py").write_text(code)
    done = python("-m", "errorkb.hook", "prog.py", cwd=folder)
    assert (done.returncode, done.stderr) == (status, stderr)


def test_an_error_no_record_knows_gets_its_traceback_alone(folder: Path):
    (folder / "prog.py").write_text("{}['missing']\n")
    direct = python("prog.py", cwd=folder)
    hooked = python("-m", "errorkb.hook", "prog.py", cwd=folder)
    assert (hooked.returncode, hooked.stderr) == (direct.returncode, direct.stderr)
    assert direct.stderr.endswith("KeyError: 'missing'\n")


def test_a_missing_script_is_reported_as_the_interpreter_does(folder: Path):
    done = python("-m", "errorkb.hook", "nowhere.py", cwd=folder)
    assert done.returncode == 2
    assert "can't open file" in done.stderr and "Traceback" not in done.stderr


def test_installing_the_hook_imports_next_to_nothing(folder: Path):
    """Every interpreter with the sitecustomize line pays for these imports at start-up."""
    done = python("-c", SITECUSTOMIZE + "import sys; print(sorted(sys.modules))", cwd=folder)
    loaded = set(ast.literal_eval(done.stdout))
    assert not loaded & {"typing", "pathlib", "re", "traceback", "yaml", "pydantic", "sphinx", "errorkb.tools.answers"}


def test_the_sitecustomize_line_adds_the_block_to_every_program(folder: Path):
    (folder / "site").mkdir()
    (folder / "site" / "sitecustomize.py").write_text(SITECUSTOMIZE)
    done = python("app/oom.py", cwd=folder, env={"PYTHONPATH": str(folder / "site")})
    assert done.returncode == 1
    assert "MemoryError\nerrorkb: python-memoryerror: " in done.stderr


def test_with_no_room_at_all_the_hook_is_silent_and_the_traceback_whole(folder: Path):
    """The limit is set before the hook is installed: its reserve cannot be mapped either."""
    (folder / "site").mkdir()
    (folder / "site" / "sitecustomize.py").write_text(
        OUT_OF_MEMORY.split("hold = []")[0].replace('print("argv", sys.argv, __name__, __file__, sys.path[0])\n', "")
        + SITECUSTOMIZE)
    (folder / "fill.py").write_text("hold = []\nwhile True:\n    hold.append(bytearray(1 << 20))\n")
    done = python("fill.py", cwd=folder, env={"PYTHONPATH": str(folder / "site")})
    assert done.returncode == 1
    assert done.stderr.startswith("Traceback (most recent call last):\n")
    assert done.stderr.endswith("MemoryError\n")
    assert "errorkb" not in done.stderr and "excepthook" not in done.stderr


def test_the_ipython_extension_adds_the_block_under_a_cells_error_in_a_real_kernel(tmp_path: Path):
    manager_module = pytest.importorskip("jupyter_client.manager")
    code = textwrap.dedent("""\
        import numpy as np
        activations = np.ones((1 << 40,))
    """)
    manager, client = manager_module.start_new_kernel(
        kernel_name="python3", cwd=str(tmp_path), env={**os.environ, "ERRORKB_ROOT": str(ROOT)})
    try:
        client.execute_interactive("%load_ext errorkb", timeout=60)
        outputs: list[dict] = []
        reply = client.execute_interactive(code, timeout=120, output_hook=lambda msg: outputs.append(msg))
        client.execute_interactive("%unload_ext errorkb", timeout=60)
        again: list[dict] = []
        client.execute_interactive(code, timeout=120, output_hook=lambda msg: again.append(msg))
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    assert reply["content"]["status"] == "error"
    kinds = [(m["msg_type"], m["content"].get("name")) for m in outputs if m["msg_type"] in ("error", "stream")]
    assert kinds == [("error", None), ("stream", "stderr")]  # the traceback first, then the block
    error = next(m["content"] for m in outputs if m["msg_type"] == "error")
    assert "MemoryError" in error["ename"] and error["evalue"].startswith("Unable to allocate 8.00 TiB")
    block = next(m["content"]["text"] for m in outputs if m["msg_type"] == "stream")
    assert block.startswith("errorkb: python-memoryerror: ")
    assert "Requested: 8.00 TiB (8,796,093,022,208 bytes)" in block
    assert not [m for m in again if m["msg_type"] == "stream"]  # unloaded: no block any more
