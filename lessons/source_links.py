"""Links from a lesson to the line of webflow's source that does the work (learners read the engine).

    source_link("webflow.runtime.session:BaseSession.run")   # a module and a qualified name in it
    source_link("op:MatMul")                                  # a registered op type's kernel, in its stanza
    source_link("op:MatMul/grad")                             # ... its gradient rule (also /portable)

The file and the line are found by inspection when the cell runs, never written down, so a link stays true when
the code moves. The link's text names the function (`def matmul_kernel`), which the anchored line contains.
A link is shown as HTML with up to two targets:
- the file itself, relative to the notebook's folder, when the lessons sit in a webflow checkout (JupyterLab
  opens it in its editor; a static export written beside the notebook opens the raw file);
- the site's read-only page of that file at the line (`make site` writes `source/<path>.html#L<line>`,
  site/source_pages.py): in JupyterLite an absolute link into the site the lab is served from; in CPython
  `$WEBFLOW_SOURCE_URL/<path>.html` when set (a served site's `source/` folder), else the checkout's built
  site relative to the notebook (`../site/_build/source/...`, for JupyterLab and an export beside the notebook).
Outside a notebook (`repr`) a link is one line of text: `def matmul_kernel: webflow/ops/matmul_ops.py line N`.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import os
import sys
from dataclasses import dataclass
from html import escape

SITE_SOURCE_FOLDER = "source"   # where site/source_pages.py writes the pages, under the site's root
_DEFINITION = ("def ", "async def ", "class ")
_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass(frozen=True)
class SourceSpot:
    """Where a symbol is defined: `path` on disk, `relative` to the folder holding the webflow package
    (`webflow/ops/math_ops.py`, the site page's name), the `line` (1-based) of its `def`/`class` (`kind`) and
    its `name`."""
    symbol: str
    path: str
    relative: str
    line: int
    name: str
    kind: str = "def"

    @property
    def definition(self) -> str:
        """What the anchored line contains: `def name` (or `class name`)."""
        return f"{self.kind} {self.name}"


def _decorated_by(node: ast.AST, decorator: str, op_type: str) -> bool:
    """Whether a def carries `@decorator("op_type", ...)` (register_op / register_gradient)."""
    for call in getattr(node, "decorator_list", ()):
        function = call.func if isinstance(call, ast.Call) else None
        name = getattr(function, "id", None) or getattr(function, "attr", None)
        if name == decorator and call.args and isinstance(call.args[0], ast.Constant) and call.args[0].value == op_type:
            return True
    return False


def _stanza_files(opdef: object) -> list[str]:
    """Where to look for an op's stanza: the modules of its gradient rule and shape rule first, then webflow/ops/,
    then the whole package (the kernel itself may be wrapped by the backend selection, so its module is no guide)."""
    import webflow

    package = os.path.dirname(os.path.abspath(webflow.__file__))
    first = [_file_of(function) for function in (opdef.grad, opdef.shape) if function is not None]
    rest = sorted(os.path.join(folder, name) for folder, _, names in os.walk(package) for name in names
                  if name.endswith(".py"))
    ops = [path for path in rest if os.path.dirname(path) == os.path.join(package, "ops")]
    return list(dict.fromkeys([path for path in first if path] + ops + rest))


def _file_of(function: object) -> str | None:
    try:
        return inspect.getsourcefile(function)
    except TypeError:   # a builtin or a functools.partial: no file of its own
        return None


def _locate_op(symbol: str) -> SourceSpot:
    """`op:Type` is the stanza's kernel (the def under `@register_op("Type", ...)`), `op:Type/grad` its gradient
    rule (`@register_gradient("Type")`), `op:Type/portable` its no-NumPy kernel."""
    from webflow.ops.registry import OPS

    op_type, _, part = symbol[3:].partition("/")
    opdef = OPS[op_type]
    if part == "portable":
        if opdef.portable is None:
            raise LookupError(f"{symbol}: op {op_type} has no portable kernel")
        return _inspected(symbol, inspect.unwrap(opdef.portable))
    decorator = {"": "register_op", "kernel": "register_op", "grad": "register_gradient"}[part]
    for path in _stanza_files(opdef):
        with open(path, encoding="utf-8") as file:
            text = file.read()
        if f'"{op_type}"' not in text:
            continue   # cheap filter before parsing
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, _NODES[:2]) and _decorated_by(node, decorator, op_type):
                return _spot(symbol, path, node.lineno, node.name, "def")
    raise LookupError(f"{symbol}: no @{decorator}({op_type!r}) found in webflow's source")


def _definition_in_file(path: str, qualname: str) -> ast.AST | None:
    """The `def`/`class` node of `Qual.name` in a Python file, read without importing it (a module that needs
    NumPy can still be linked to from the browser, where NumPy is absent); None when the name is not defined
    there (e.g. imported from another module)."""
    with open(path, encoding="utf-8") as file:
        body = ast.parse(file.read()).body
    node = None
    for part in qualname.split("."):
        node = next((item for item in body if isinstance(item, _NODES) and item.name == part), None)
        if node is None:
            return None
        body = node.body
    return node


def _spot(symbol: str, path: str, line: int, name: str, kind: str) -> SourceSpot:
    import webflow

    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(webflow.__file__)))
    relative = os.path.relpath(os.path.abspath(path), package_parent).replace(os.sep, "/")
    return SourceSpot(symbol, path, relative, line, name, kind)


def _inspected(symbol: str, target: object) -> SourceSpot:
    """By inspection of a live object: its file and the line of its `def`/`class`, past its decorators."""
    lines, start = inspect.getsourcelines(target)
    offset = next((i for i, text in enumerate(lines) if text.lstrip().startswith(_DEFINITION)), 0)
    kind = "class" if lines[offset].lstrip().startswith("class ") else "def"
    name = getattr(target, "__name__", symbol.rpartition(".")[2])
    return _spot(symbol, inspect.getsourcefile(target), start + offset, name, kind)


def locate(symbol: str) -> SourceSpot:
    """Finds the file and the line of the `def`/`class` of `symbol`: `module:Qual.name` (read from the module's
    file; imported and inspected when the name comes from elsewhere) or `op:Type[/grad|/portable]`."""
    if symbol.startswith("op:"):
        return _locate_op(symbol)
    module_name, _, qualname = symbol.partition(":")
    spec = importlib.util.find_spec(module_name)
    if spec is None or not spec.origin:
        raise LookupError(f"{symbol}: no module {module_name}")
    node = _definition_in_file(spec.origin, qualname)
    if node is not None:
        kind = "class" if isinstance(node, ast.ClassDef) else "def"
        return _spot(symbol, spec.origin, node.lineno, node.name, kind)
    target = importlib.import_module(module_name)
    for part in qualname.split("."):
        target = getattr(target, part)
    return _inspected(symbol, inspect.unwrap(target))


def site_root_of(worker_url: str) -> str | None:
    """The site's root URL from the URL of JupyterLite's kernel worker, which is served from
    <site>/lite/extensions/...: the site's pages (source/ among them) live beside lite/."""
    lite_root, found, _ = worker_url.rpartition("/extensions/")
    scheme, _, rest = lite_root.partition("://")
    if not found or "/" not in rest:
        return None   # JupyterLite served on its own, at an origin's root: no site around it
    return f"{scheme}://{rest.rpartition('/')[0]}"


def _site_root_in_browser() -> str | None:
    try:
        import js  # Pyodide's bridge to the browser: in JupyterLite the kernel runs in a Web Worker
    except ImportError:
        return None
    location = getattr(js, "location", None)   # none in Node (Pyodide outside a browser)
    return site_root_of(str(location.href)) if location is not None else None


def page_href(spot: SourceSpot) -> str | None:
    """The URL of the site's page of spot's file, at its line (None when no site is known)."""
    page = f"{spot.relative}.html#L{spot.line}"
    if sys.platform == "emscripten":
        root = _site_root_in_browser()
        return f"{root}/{SITE_SOURCE_FOLDER}/{page}" if root else None
    served = os.environ.get("WEBFLOW_SOURCE_URL")
    if served:
        return f"{served.rstrip('/')}/{page}"
    if file_href(spot) and os.path.isdir(os.path.join(os.getcwd(), "..", "site")):   # a checkout's own webflow
        return f"../site/_build/{SITE_SOURCE_FOLDER}/{page}"
    return None


def file_href(spot: SourceSpot) -> str | None:
    """The file relative to the notebook's folder when it is in the same tree (a checkout), else None."""
    if sys.platform == "emscripten":
        return None   # JupyterLite's file browser holds the lessons only
    beside = os.path.join(os.getcwd(), "..", spot.relative)
    if os.path.isfile(beside) and os.path.samefile(beside, spot.path):
        return f"../{spot.relative}"
    return None


class SourceLink:
    """One link to a symbol's line; shown as HTML in a notebook, as one line of text elsewhere."""

    def __init__(self, symbol: str, note: str = ""):
        self.spot = locate(symbol)
        self.note = note

    def html(self) -> str:
        spot = self.spot
        where = f"{spot.relative} line {spot.line}"
        page, file = page_href(spot), file_href(spot)
        code = f"<code>{escape(spot.definition)}</code>"
        main = (f'<a href="{escape(page)}" target="_blank" rel="noopener">{code} — {escape(where)}</a>'
                if page else f"{code} — {escape(where)}")
        extra = f' (<a href="{escape(file)}">open the file</a>)' if file else ""
        note = f" {escape(self.note)}" if self.note else ""
        return f'<div class="webflow-source-link">📄 {main}{extra}{note}</div>'

    def _repr_html_(self) -> str:
        return self.html()

    def __repr__(self) -> str:
        spot = self.spot
        return f"{spot.definition}: {spot.relative} line {spot.line}" + (f" ({self.note})" if self.note else "")


class SourceLinks:
    """Several links, one per line."""

    def __init__(self, *symbols: str):
        self.links = [SourceLink(symbol) for symbol in symbols]

    def _repr_html_(self) -> str:
        return "".join(link.html() for link in self.links)

    def __repr__(self) -> str:
        return "\n".join(repr(link) for link in self.links)


def source_link(symbol: str, note: str = "") -> SourceLink:
    """A link to the line where `symbol` is defined (see the module's docstring for the symbol forms)."""
    return SourceLink(symbol, note)


def source_links(*symbols: str) -> SourceLinks:
    """Links to several symbols, shown one per line."""
    return SourceLinks(*symbols)
