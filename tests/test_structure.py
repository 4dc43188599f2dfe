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
                    node.func.attr in ("get_domain", "domains") and name != "errorkb.domain":
                found.append(f"{name}: {node.func.attr}()")
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and \
                    node.value.attr == "domains" and name != "errorkb.domain":
                found.append(f"{name}: domains[...]")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr", "setattr") \
                    and len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and str(node.args[1].value).startswith("errorkb_"):
                found.append(f"{name}: {node.func.id}(..., {node.args[1].value!r})")
    assert found == []
