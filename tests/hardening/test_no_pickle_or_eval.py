"""Nothing in webflow runs code that comes from a file (issue 29): a checkpoint, event file, `.keras` archive,
`.npz` or GraphDef someone sends a learner must not be able to execute anything when it is opened.

A scan of webflow/'s source (its syntax trees, so comments and docstrings do not count): no module that
unpickles or unmarshals (pickle, marshal, shelve, dill, cloudpickle, joblib); no eval / exec / compile /
__import__; every NumPy `load` passes `allow_pickle=False` (NumPy's default is False since 1.16.3, but a
learner copying the call should see it); `importlib.import_module` only of a fixed `webflow.` prefix (the
proto modules chosen by a name read from a file: the prefix keeps that name inside webflow); no `yaml.load`.
Oracle: the rules themselves, checked on small samples here so a broken scanner cannot pass silently.
"""

from __future__ import annotations

import ast
import os

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "webflow")
UNSAFE_MODULES = {"pickle", "cPickle", "_pickle", "marshal", "shelve", "dill", "cloudpickle", "joblib"}
UNSAFE_BUILTINS = {"eval", "exec", "compile", "__import__"}


def _sources() -> list:
    found = []
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [name for name in subfolders if name not in ("__pycache__", "_build", "node_modules")]
        found += [os.path.join(folder, name) for name in files if name.endswith(".py")]
    return sorted(found)


def _is_numpy_load(call: ast.Call) -> bool:
    function = call.func
    return isinstance(function, ast.Attribute) and function.attr == "load" and \
        isinstance(function.value, ast.Name) and function.value.id in ("np", "numpy")


def _refuses_pickles(call: ast.Call) -> bool:
    return any(keyword.arg == "allow_pickle" and isinstance(keyword.value, ast.Constant)
               and keyword.value.value is False for keyword in call.keywords)


def _fixed_webflow_prefix(argument: ast.expr) -> bool:
    """A constant "webflow.x" or an f-string that starts with the constant "webflow." text."""
    if isinstance(argument, ast.Constant):
        return isinstance(argument.value, str) and argument.value.startswith("webflow.")
    return isinstance(argument, ast.JoinedStr) and bool(argument.values) and \
        isinstance(argument.values[0], ast.Constant) and str(argument.values[0].value).startswith("webflow.")


def problems_in(source: str, where: str = "<sample>") -> list:
    """Every use of an unsafe loader or evaluator in `source`, as 'where:line: what'."""
    found = []
    for node in ast.walk(ast.parse(source)):
        line = f"{where}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Import):
            found += [f"{line}: imports {a.name}" for a in node.names if a.name.split(".")[0] in UNSAFE_MODULES]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in UNSAFE_MODULES:
            found.append(f"{line}: imports from {node.module}")
        elif isinstance(node, ast.Call):
            function = node.func
            if isinstance(function, ast.Name) and function.id in UNSAFE_BUILTINS:
                found.append(f"{line}: calls {function.id}()")
            elif _is_numpy_load(node) and not _refuses_pickles(node):
                found.append(f"{line}: np.load without allow_pickle=False")
            elif isinstance(function, ast.Attribute) and function.attr == "import_module" and \
                    not (node.args and _fixed_webflow_prefix(node.args[0])):
                found.append(f"{line}: import_module of a name not under a fixed webflow. prefix")
            elif isinstance(function, ast.Attribute) and function.attr in ("load", "unsafe_load") and \
                    isinstance(function.value, ast.Name) and function.value.id == "yaml":
                found.append(f"{line}: yaml.{function.attr}")
    return found


@pytest.mark.parametrize("sample, expected", [
    ("import pickle\npickle.loads(b'')", "imports pickle"),
    ("from marshal import loads", "imports from marshal"),
    ("eval(open('f').read())", "calls eval()"),
    ("exec(code)", "calls exec()"),
    ("import numpy as np\nnp.load('w.npz')", "np.load without allow_pickle=False"),
    ("import numpy as np\nnp.load('w.npz', allow_pickle=True)", "np.load without allow_pickle=False"),
    ("import importlib\nimportlib.import_module(name)", "import_module of a name"),
    ("import importlib\nimportlib.import_module(f'{name}.x')", "import_module of a name"),
    ("import yaml\nyaml.load(text)", "yaml.load"),
])
def test_the_scanner_finds_each_unsafe_pattern(sample, expected):
    found = problems_in(sample)
    assert len(found) == 1 and expected in found[0], found


@pytest.mark.parametrize("sample", [
    "import numpy as np\nnp.load('w.npz', allow_pickle=False)",
    "import importlib\nimportlib.import_module(f'webflow.protos.{name}')",
    "session.run(t)\nt.eval(session=s)\nmodel.compile('sgd')\nre.compile('x')",  # methods of the same names
])
def test_the_scanner_accepts_the_safe_forms(sample):
    assert problems_in(sample) == []


def test_no_webflow_module_unpickles_or_evaluates_file_data():
    sources = _sources()
    assert len(sources) > 100  # the scan really walked the package
    found = []
    for path in sources:
        with open(path, encoding="utf-8") as file:
            found += problems_in(file.read(), os.path.relpath(path, ROOT))
    assert not found, "\n".join(found)
