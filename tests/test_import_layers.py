"""Imports point down the layers (DESIGN.md), checked with tools/import_graph.py: no import cycle among webflow's
modules, and no import that a package README's "May import:" line forbids. Lazy imports inside functions count.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))
import import_graph  # noqa: E402  (tools/import_graph.py)


def test_no_import_cycle_among_webflow_modules() -> None:
    edges = import_graph.import_edges(import_graph.module_files())
    found = import_graph.cycles(edges)
    described = [f"{len(component)} modules: {', '.join(component)}\n    for example: "
                 + "; ".join(import_graph.example_cycle(component, edges)) for component in found]
    assert not found, (
        "webflow's modules import each other in a cycle (lazy imports count too). Break it where the upper module "
        "is imported by the lower one: move the shared thing down, or let the upper layer register it in the lower "
        "one on import.\n" + "\n".join(described))


def test_no_import_forbidden_by_a_package_readme() -> None:
    edges = import_graph.import_edges(import_graph.module_files())
    problems = import_graph.forbidden_imports(edges, import_graph.allowed_imports())
    problems += import_graph.unruled_packages()
    assert not problems, (
        "Each package's README.md says on its 'May import:' line which webflow packages (written `name/`) it may "
        "import. Fix the import, or, if the layering allows it, the README's line:\n" + "\n".join(problems))


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_the_checker_finds_a_cycle_and_a_forbidden_import(tmp_path: Path) -> None:
    """A made-up package: low/a.py and low/b.py import each other (b lazily), low/ imports top/ although its
    README allows only mid/, and top/ has no README line; mid/ and the package module top (__init__) are fine."""
    root = tmp_path / "webflow"
    _write(root, {
        "__init__.py": "",
        "low/__init__.py": "",
        "low/README.md": "# low/\n\nMay import: mid/ (NumPy only through mid/arrays/numpy.py).\n",
        "low/a.py": "from webflow.low import b\nfrom webflow.mid import m\n",
        "low/b.py": "def f():\n    from webflow.low.a import x\n    from webflow import top\n    return x, top\n",
        "mid/__init__.py": "",
        "mid/README.md": "# mid/\n\nMay import: nothing from webflow.\n",
        "mid/m.py": "import os\n",
        "top/__init__.py": "from webflow.top import t\n",
        "top/t.py": "import os\n",
    })
    edges = import_graph.import_edges(import_graph.module_files(str(root)))
    assert edges["webflow.low.b"] == {"webflow.low.a": 2, "webflow.top": 3}

    found = import_graph.cycles(edges)
    assert found == [["webflow.low.a", "webflow.low.b"]]
    assert import_graph.example_cycle(found[0], edges) == ["webflow.low.a:1 imports webflow.low.b",
                                                           "webflow.low.b:2 imports webflow.low.a"]

    allowed = import_graph.allowed_imports(str(root))
    assert allowed["low"] == {"low", "mid"}  # not "arrays": a path inside a package only explains
    assert import_graph.forbidden_imports(edges, allowed) == [
        "webflow.low.b:3 imports webflow.top (top/ is not in its README's May import line)"]
    assert import_graph.unruled_packages(str(root)) == ["webflow/top/README.md has no 'May import:' line"]


def test_the_package_table_repeats_each_readme_line() -> None:
    """webflow/README.md's table ("folder | role | may import") says what each folder README's May-import line
    says, so the overview cannot drift from the lines the checks above enforce."""
    allowed = import_graph.allowed_imports()
    rows = {}
    with open(os.path.join(REPO, "webflow", "README.md"), encoding="utf-8") as file:
        for line in file:
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if len(cells) == 3 and cells[0].startswith("`") and cells[0].endswith("/`"):
                rows[cells[0].strip("`/")] = cells[2]
    packages = {name for name in allowed if name}
    assert set(rows) == packages, f"table rows {sorted(rows)} vs packages with a README {sorted(packages)}"
    for name, cell in rows.items():
        listed = None if cell == "anything" else {n for n in cell.replace(",", " ").split() if n.endswith("/")}
        expected = allowed[name]
        expected = None if expected is None else {f"{p}/" for p in expected - {name}}
        assert listed == expected, f"{name}/: the table says {cell!r}, its README allows {expected}"
