"""The extension's modules import each other without cycles, at the top of a module or inside a
function alike: each has a place in one order, and none reaches back.  The build's state is
reached through the ``err`` domain's one accessor."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "ext" / "errorkb"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """The errorkb modules that ``path`` imports, wherever in the file."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.startswith("errorkb"):
                found.add(target)
                found.update(f"{target}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("errorkb"))
    return found


def test_no_import_cycle_in_the_extension():
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {name: sorted(m for m in imports_of(path) if m in modules and m != name) for name, path in modules.items()}
    # A package's __init__ sets its modules up; a module that imports a name from its own
    # package (``from . import sandbox``, ``__version__``) is not a step back into that set-up.
    packages = {name for name, path in modules.items() if path.name == "__init__.py"}
    cycles = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in graph[node]:
            if nxt in packages and node.startswith(nxt + "."):
                continue
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert cycles == []


def test_the_build_state_is_reached_through_the_domain_alone():
    """Every module reaches the build's state through ``err_domain(env)``: none asks Sphinx for
    the domain itself or keeps state in attributes of its own on the environment."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr.startswith("errorkb_") and \
                    isinstance(node.value, ast.Name) and node.value.id == "env":
                found.append(f"{name}: env.{node.attr}")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr in ("get_domain", "domains") and name != "errorkb.site.domain":
                found.append(f"{name}: {node.func.attr}()")
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and \
                    node.value.attr == "domains" and name != "errorkb.site.domain":
                found.append(f"{name}: domains[...]")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr", "setattr") \
                    and len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and str(node.args[1].value).startswith("errorkb_"):
                found.append(f"{name}: {node.func.id}(..., {node.args[1].value!r})")
    assert found == []


def test_only_the_domain_touches_its_data():
    """The build's state is typed (``SiteState``) and changed through the domain's methods: no
    module but the domain indexes a ``.data`` (the domain's raw data) or Sphinx's ``domaindata``."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path)
        if name == "errorkb.site.domain":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and \
                    node.value.attr in ("data", "domaindata"):
                found.append(f"{name}:{node.lineno}: .{node.value.attr}[...]")
    assert found == []


#: The layers, lowest first; a module imports only from its own layer or lower ones.  ``site``
#: (the Sphinx side) and ``tools`` (the terminal tools) stand side by side and never import each
#: other; so do the examples' build side and their pytest plugin, above them.
EXAMPLES_ENGINE = {"accelerators", "cache", "extract", "hardware", "judge", "launch", "numbers", "requirements", "rules", "runner",
                   "sandbox", "sandbox_ids", "session", "spec", "verified"}


def layer_of(name: str) -> tuple[int, str]:
    parts = name.split(".")
    if len(parts) == 1 or parts[1] in ("hook", "_compat"):
        return 4, "manifest"
    if parts[1] == "core":
        return 0, "core"
    if parts[1] == "examples":
        if len(parts) == 2 or parts[2] in EXAMPLES_ENGINE:
            return 1, "examples"
        return 3, "pytest" if parts[2] == "pytest_plugin" else "examples-build"
    return 2, parts[1]  # site, tools


def test_the_layers_import_only_downward():
    """core imports nothing outside core; the examples' engine only core; the Sphinx side and the
    terminal tools only those and never each other; the examples' build side the Sphinx side, their
    pytest plugin the tools; the package's manifest anything."""
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    assert {layer_of(m)[1] for m in modules} == {"manifest", "core", "examples", "site", "tools", "examples-build",
                                                  "pytest"}
    apart = {("site", "tools"), ("tools", "site"), ("examples-build", "tools"), ("pytest", "site"),
             ("pytest", "examples-build"), ("examples-build", "pytest"), ("tools", "examples-build"),
             ("site", "examples-build")}
    wrong = []
    for name, path in sorted(modules.items()):
        level, layer = layer_of(name)
        for target in sorted(imports_of(path)):
            if target not in modules or target == "errorkb":
                continue
            to_level, to_layer = layer_of(target)
            if to_level > level or (layer, to_layer) in apart:
                wrong.append(f"{name} ({layer}) imports {target} ({to_layer})")
    assert wrong == []


def test_the_terminal_tools_start_without_sphinx():
    """What ``errorkb`` and the hook load imports neither Sphinx nor docutils, nor the Sphinx side."""
    import subprocess
    import sys

    code = ("import sys, errorkb.tools.cli, errorkb.tools.answers, errorkb.tools.run, errorkb.hook, "
            "errorkb.examples.extract, errorkb.examples.runner\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('sphinx', 'docutils', 'myst_parser') "
            "or m.startswith('errorkb.site')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_old_import_paths_still_work_with_a_warning():
    import importlib
    import warnings

    from errorkb.core import records

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = importlib.import_module("errorkb.records")
    assert old is records
    assert [str(w.message) for w in caught] == [
        "errorkb.records is now errorkb.core.records; the old name goes in the next release"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ErrorDomain = importlib.import_module("errorkb.domain").ErrorDomain  # as intersphinx users name it
    from errorkb.site.domain import ErrorDomain as moved
    assert ErrorDomain is moved
