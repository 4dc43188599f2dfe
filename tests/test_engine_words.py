"""The engine speaks of any project's errors: its own texts hold none of this site's words.

This site is about accelerator memory errors; errorkb serves any project whose software prints
errors.  Its help, messages, warnings and option defaults, the scaffold it writes, the
descriptions its MCP server gives and the pages it writes say nothing
of accelerators, of machine-learning frameworks, nor of this site's records.  A site's own
wording lives in its ``conf.py``.  The bundled hardware profile for snippets
(``errorkb.examples.accelerators``), which a site opts into, is the one module about
accelerators.
"""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

import pytest

from conftest import DEMO_SCHEMA, ROOT, SITE_SCHEMA
from errorkb.core.records import load_catalogue
from errorkb.tools.cli import build_parser
from errorkb.tools.scaffold import scaffold

PACKAGE = ROOT / "ext" / "errorkb"
#: Where the engine may name accelerators: the profile that reads a snippet's hardware needs.
PROFILE = PACKAGE / "examples" / "accelerators.py"
#: Words of this site's domain; the site's record ids, codes and snippet ids are added to them.
SITE_WORDS = {
    "accelerator", "accelerators", "gpu", "gpus", "tpu", "tpus", "npu", "cuda", "rocm", "hip", "xla", "hlo",
    "hbm", "vram", "neuron", "nvidia", "pytorch", "torch", "jax", "tensorflow", "tensor", "tensors", "cudnn",
    "cublas", "nccl", "oom", "torchrun", "dtype", "bf16", "float16", "training", "trn2",
}


def site_words() -> set[str]:
    catalogue, _ = load_catalogue(ROOT / "errors", schema=SITE_SCHEMA, root=ROOT)
    words = set(SITE_WORDS)
    for record in catalogue.records.values():
        words.add(record.id)
        words.update(code.lower() for code in record.codes if len(code) >= 4 and re.search(r"[0-9_]", code))
        words.update(re.findall(r"^:id: *([a-z0-9-]+-[a-z0-9-]+)$", record.body, re.M))
    return words


@pytest.fixture(scope="module")
def vocabulary() -> re.Pattern[str]:
    words = sorted(site_words(), key=len, reverse=True)
    return re.compile(r"(?<![A-Za-z0-9_])(?:" + "|".join(map(re.escape, words)) + r")(?![A-Za-z0-9_])", re.IGNORECASE)


def texts_of(path: Path) -> list[tuple[int, str]]:
    """The strings of a module that people read: every string with a space in it but the
    docstrings, which are for the code's readers (those that become help or a tool's
    description are read where they are shown, below)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and " " in node.value
            and id(node) not in docstrings]


def test_the_package_s_strings_hold_none_of_the_site_s_words(vocabulary):
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PROFILE:
            continue
        for line, text in texts_of(path):
            found += [f"{path.relative_to(ROOT)}:{line}: {m.group()!r}" for m in vocabulary.finditer(text)]
    for path in sorted([*PACKAGE.glob("site/static/*"), *PACKAGE.glob("site/layouts/*")]):
        text = path.read_text(encoding="utf-8")
        found += [f"{path.relative_to(ROOT)}:{text[:m.start()].count(chr(10)) + 1}: {m.group()!r}"
                  for m in vocabulary.finditer(text)]
    assert found == []


def test_the_help_of_every_command_holds_none_of_them(vocabulary):
    parser = build_parser()
    helps = [parser.format_help()]
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps += [sub.format_help() for sub in commands.choices.values()]
    assert [m.group() for text in helps for m in vocabulary.finditer(text)] == []


def test_the_scaffold_holds_none_of_them(vocabulary):
    text = scaffold("push-rejected", "", "git", "Git refused a push", "error: failed to push some refs to 'origin'",
                    DEMO_SCHEMA.__class__())
    assert [m.group() for m in vocabulary.finditer(text)] == []


def test_the_mcp_server_s_descriptions_hold_none_of_them(vocabulary, tmp_path):
    pytest.importorskip("mcp")
    import asyncio
    import concurrent.futures

    from errorkb.tools.answers import Answers
    from errorkb.tools.mcp_server import build_server
    from lookup_records import write_records

    write_records(tmp_path)
    server = build_server(Answers.load(tmp_path))
    # In a thread of its own: a browser test's event loop may still be set in this one.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        tools = pool.submit(asyncio.run, server.list_tools()).result(timeout=60)
    texts = [server.instructions or ""] + [repr(t) for t in tools]
    assert [m.group() for text in texts for m in vocabulary.finditer(text)] == []
