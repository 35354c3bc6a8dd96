"""The import graph of webflow's modules, read with `ast` (lazy imports inside functions included).

    python tools/import_graph.py            # prints every import cycle and every import a README forbids

tests/test_import_layers.py runs the same checks. A package's README says what it may import on one line,
`May import: framework/, ops/.` (webflow's own packages written as `name/`; anything else on the line, such as
NumPy or the standard library, or a path inside a package such as `backends/arrays/numpy_arrays.py`, only
explains and is not checked). A package may always import itself; every package's README has such a line.
The functions take the package folder (`root`) so the tests can check a small made-up package too.
"""

from __future__ import annotations

import ast
import os
import re
import sys
from collections.abc import Collection, Iterator

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "webflow")


def module_files(root: str = ROOT) -> dict[str, str]:
    """Every module under `root` (webflow/) by dotted name -> its file (a package by its __init__.py)."""
    found = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith((".", "_")) and d != "node_modules"]
        for name in files:
            if not name.endswith(".py"):
                continue
            relative = os.path.relpath(os.path.join(folder, name), os.path.dirname(root))[:-3]
            parts = relative.split(os.sep)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = os.path.join(folder, name)
    return found


def _imported_names(tree: ast.AST, module: str, is_package: bool) -> Iterator[tuple[str, int]]:
    """(dotted name, line) for every import statement anywhere in the module, relative ones resolved."""
    base = module.split(".") if is_package else module.split(".")[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                prefix = ".".join(base[:len(base) - node.level + 1])
                source = f"{prefix}.{node.module}" if node.module else prefix
            else:
                source = node.module or ""
            for alias in node.names:
                yield f"{source}.{alias.name}", node.lineno


def _resolve(name: str, modules: dict[str, str]) -> str | None:
    """The webflow module a dotted import name refers to (`from a.b import c`: a.b.c if a module, else a.b)."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def import_edges(modules: dict[str, str] | None = None) -> dict[str, dict[str, int]]:
    """module -> {module it imports: line of the first such import}, modules of the checked package only."""
    modules = module_files() if modules is None else modules
    packages = {module.split(".")[0] for module in modules}  # "webflow"
    edges: dict[str, dict[str, int]] = {}
    for module, path in modules.items():
        with open(path, encoding="utf-8") as file:
            tree = ast.parse(file.read(), path)
        targets: dict[str, int] = {}
        for name, line in _imported_names(tree, module, path.endswith("__init__.py")):
            if name.split(".")[0] not in packages:
                continue
            target = _resolve(name, modules)
            if target is not None and target != module and target not in targets:
                targets[target] = line
        edges[module] = targets
    return edges


def cycles(edges: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, {})))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def example_cycle(component: list[str], edges: dict[str, dict[str, int]]) -> list[str]:
    """One shortest import loop through the first module of a cycle: 'a:12 imports b', ..., back to a."""
    start = component[0]
    members = set(component)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier and start not in came_from:
        following = []
        for module in frontier:
            for target in sorted(edges.get(module, {})):
                if target in members and target not in came_from:
                    came_from[target] = module
                    following.append(target)
        frontier = following
    steps, target = [], start
    while True:
        module = came_from[target]
        steps.append(f"{module}:{edges[module][target]} imports {target}")
        target = module
        if target == start:
            return steps[::-1]


def package_of(module: str, packages: Collection[str] = ()) -> str:
    """The top-level folder of webflow a module belongs to: X for webflow.X.* and for webflow.X itself when X is
    a folder (its __init__.py; `packages` names the folders); '' for webflow/__init__.py and webflow/*.py files."""
    parts = module.split(".")
    if len(parts) > 2 or (len(parts) == 2 and parts[1] in packages):
        return parts[1]
    return ""


def packages_of(edges: dict[str, dict[str, int]]) -> set[str]:
    """The folders of webflow: the X of every module webflow.X.Y."""
    return {module.split(".")[1] for module in edges if module.count(".") >= 2}


MAY_IMPORT = re.compile(r"^May import:(.*)$", re.MULTILINE)
# `name/` not inside a longer path: "backends/ (NumPy only through backends/arrays/numpy_arrays.py)" -> backends
_PACKAGE_WORD = re.compile(r"(?<![\w./])([a-z_]+)/")


def allowed_imports(root: str = ROOT) -> dict[str, set[str] | None]:
    """package -> the webflow packages its README allows (None: anything, or no README line)."""
    allowed: dict[str, set[str] | None] = {}
    for name in sorted(os.listdir(root)):
        readme = os.path.join(root, name, "README.md")
        if not os.path.isfile(readme):
            continue
        with open(readme, encoding="utf-8") as file:
            match = MAY_IMPORT.search(file.read())
        if match is None or "anything in webflow" in match.group(1):
            allowed[name] = None
            continue
        allowed[name] = set(_PACKAGE_WORD.findall(match.group(1))) | {name}
    return allowed


def unruled_packages(root: str = ROOT) -> list[str]:
    """The folders of `root` that are Python packages but whose README.md has no "May import:" line."""
    missing = []
    for name in sorted(os.listdir(root)):
        if not os.path.isfile(os.path.join(root, name, "__init__.py")):
            continue
        readme = os.path.join(root, name, "README.md")
        text = open(readme, encoding="utf-8").read() if os.path.isfile(readme) else ""
        if MAY_IMPORT.search(text) is None:
            missing.append(f"{os.path.basename(root)}/{name}/README.md has no 'May import:' line")
    return missing


def forbidden_imports(edges: dict[str, dict[str, int]], allowed: dict[str, set[str] | None]) -> list[str]:
    """'module:line imports target' for each import its package README does not allow."""
    problems = []
    packages = packages_of(edges)
    for module, targets in sorted(edges.items()):
        permitted = allowed.get(package_of(module, packages))
        if permitted is None:
            continue
        for target, line in sorted(targets.items()):
            target_package = package_of(target, packages)
            if target_package not in permitted:
                problems.append(f"{module}:{line} imports {target} ({target_package or module.split('.')[0]}/ is "
                                f"not in its README's May import line)")
    return problems


def main(root: str = ROOT) -> int:
    edges = import_edges(module_files(root))
    found = cycles(edges)
    for component in found:
        print(f"cycle of {len(component)} modules: {', '.join(component)}")
        print("    for example: " + "; ".join(example_cycle(component, edges)))
    problems = forbidden_imports(edges, allowed_imports(root)) + unruled_packages(root)
    for problem in problems:
        print(problem)
    return 1 if found or problems else 0


if __name__ == "__main__":
    sys.exit(main())
