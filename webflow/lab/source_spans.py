"""Find, in a learner's source line, the expression that built a failing op, and its operands.

`locate(file, line, position=...)` parses the whole file with `ast` (so multi-line statements and
lines inside `with`/`if` blocks work) and returns the BinOp (`x + b`, `a @ w`) or Call
(`tf.matmul(a, b)`) that made the op, with each operand's text and character offsets into the shown
code. With Python 3.11+ a traceback entry knows the exact columns of the failing instruction
(`code.co_positions()`); without them (an op that failed later, at run time) the candidates are the
BinOps/Calls on that line that could have made an op of that type, in evaluation order.

`safe_value(node, frame)` reads the value of an operand expression that is a name, an attribute of a
name, or a constant subscript of a list/tuple/dict, WITHOUT running user code: attributes are read
with `inspect.getattr_static` and properties are not evaluated.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import inspect
import itertools
import linecache
import types
from typing import Any

MISSING = object()

BINOP_SYMBOLS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
                 ast.Pow: "**", ast.MatMult: "@"}
# the op types each Python operator can make (webflow's OPERATORS table, ops/math_ops.py and friends)
BINOP_OP_TYPES = {ast.Add: ("AddV2", "Add"), ast.Sub: ("Sub",), ast.Mult: ("Mul",), ast.Div: ("RealDiv", "Cast"),
                  ast.FloorDiv: ("FloorDiv",), ast.Mod: ("FloorMod",), ast.Pow: ("Pow",),
                  ast.MatMult: ("MatMul", "BatchMatMulV2")}
# wrapper names that differ from their op type (compared after lower-casing and removing "_")
CALL_ALIASES = {"add": "addv2", "multiply": "mul", "subtract": "sub", "divide": "realdiv", "truediv": "realdiv",
                "concat": "concatv2", "pow": "pow", "matmul": "matmul"}


@dataclasses.dataclass
class Operand:
    text: str
    start: int            # character offsets into Located.code
    end: int
    node: ast.AST
    keyword: str | None = None
    position: int | None = None  # index among positional arguments (BinOp: 0 left, 1 right)


@dataclasses.dataclass
class Located:
    file: str
    line: int
    code: str              # the source line(s) of the expression, dedented
    first_line: int        # file line number of code's first line
    node: ast.AST
    symbol: str            # "+" for a BinOp, "tf.matmul()" for a call
    operands: list
    exact: bool            # found from the traceback's column positions (not guessed)

    @property
    def is_binop(self) -> bool:
        return isinstance(self.node, ast.BinOp)


def position_of(code: types.CodeType, lasti: int) -> tuple | None:
    """(lineno, end_lineno, col, end_col) of the instruction at byte offset `lasti` (Python 3.11+)."""
    positions = getattr(code, "co_positions", None)
    if positions is None or lasti < 0:
        return None
    found = next(itertools.islice(positions(), lasti // 2, None), None)
    if found is None or None in found:
        return None
    return found


def _parse(file: str) -> tuple[ast.AST, list[str]] | None:
    lines = linecache.getlines(file)
    if not lines:
        return None
    try:
        return ast.parse("".join(lines)), lines
    except (SyntaxError, ValueError):
        return None


def _post_order(node: ast.AST) -> Any:
    """Nodes children-first, left to right: Python's evaluation order for operators and calls."""
    for child in ast.iter_child_nodes(node):
        yield from _post_order(child)
    yield node


def locate(file: str, line: int, *, position: tuple | None = None, op_type: str | None = None,
           default_name: str | None = None, occurrence: int = 0) -> Located | None:
    """The expression that built the op (see module docstring), or None if the source is not readable."""
    parsed = _parse(file)
    if parsed is None:
        return None
    tree, lines = parsed
    node, exact = None, False
    if position is not None:
        start_line, end_line, col, end_col = position
        for candidate in ast.walk(tree):
            if (getattr(candidate, "lineno", None), getattr(candidate, "end_lineno", None),
                    getattr(candidate, "col_offset", None), getattr(candidate, "end_col_offset", None)) == \
                    (start_line, end_line, col, end_col) and isinstance(candidate, ast.expr):
                node, exact = candidate, True
                break
    if node is None:
        candidates = [n for n in _post_order(tree) if isinstance(n, (ast.BinOp, ast.Call))
                      and n.lineno <= line <= n.end_lineno and _could_make(n, op_type, default_name)]
        candidates = [n for n in candidates if n.lineno == line] or candidates  # prefer ones starting here
        if not candidates:
            return None
        node = candidates[occurrence % len(candidates)]
    return _located(file, line, lines, node, exact)


def _could_make(node: ast.AST, op_type: str | None, default_name: str | None) -> bool:
    if op_type is None:
        return True
    if isinstance(node, ast.BinOp):
        return op_type in BINOP_OP_TYPES.get(type(node.op), ())
    return call_matches(node, op_type, default_name)


def call_matches(node: ast.AST, op_type: str, default_name: str | None = None) -> bool:
    """Is this call (tf.matmul, tf.add, tf.reduce_sum ...) the wrapper of op type `op_type`?"""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    key = name.lower().replace("_", "").removeprefix("reduce")
    key = CALL_ALIASES.get(name.lower(), key)
    wanted = {op_type.lower(), op_type.lower().rstrip("0123456789").removesuffix("v")}
    if default_name:
        wanted.add(default_name.lower().replace("_", ""))
    return key in wanted


def _located(file: str, line: int, lines: list[str], node: ast.AST, exact: bool) -> Located:
    first, last = node.lineno, node.end_lineno
    raw = [lines[i - 1].rstrip("\n") for i in range(first, last + 1)]
    indent = len(raw[0]) - len(raw[0].lstrip())
    shown = [text[min(indent, len(text) - len(text.lstrip())):] for text in raw]
    code = "\n".join(shown)
    starts = list(itertools.accumulate([0] + [len(text) + 1 for text in shown]))  # offset of each shown line

    def offset(line_no: int, byte_col: int) -> int:
        text = raw[line_no - first]
        column = len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="replace"))  # AST cols are bytes
        removed = len(raw[line_no - first]) - len(shown[line_no - first])
        return starts[line_no - first] + column - removed

    def operand(expr: ast.AST, keyword: str | None = None, index: int | None = None) -> Operand:
        start = offset(expr.lineno, expr.col_offset)
        end = offset(expr.end_lineno, expr.end_col_offset)
        return Operand(code[start:end], start, end, expr, keyword, index)

    if isinstance(node, ast.BinOp):
        symbol = BINOP_SYMBOLS.get(type(node.op), "?")
        operands = [operand(node.left, index=0), operand(node.right, index=1)]
    elif isinstance(node, ast.Call):
        func_start, func_end = offset(node.func.lineno, node.func.col_offset), offset(
            node.func.end_lineno, node.func.end_col_offset)
        symbol = code[func_start:func_end] + "()"
        operands = [operand(arg, index=i) for i, arg in enumerate(node.args) if not isinstance(arg, ast.Starred)]
        operands += [operand(k.value, keyword=k.arg) for k in node.keywords if k.arg is not None]
    else:
        symbol = ast.get_source_segment("\n".join(raw), node) or "?"
        operands = []
    return Located(file, line, code, first, node, symbol, operands, exact)


# --- reading operand values without running user code ---------------------------------------------
def safe_value(node: ast.AST, frame: Any) -> Any:
    """The value of a Name / Attribute / constant Subscript / Constant in `frame`, or MISSING."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        for namespace in (frame.f_locals, frame.f_globals, vars(builtins)):
            if node.id in namespace:
                return namespace[node.id]
        return MISSING
    if isinstance(node, ast.Attribute):
        base = safe_value(node.value, frame)
        if base is MISSING:
            return MISSING
        value = inspect.getattr_static(base, node.attr, MISSING)
        if hasattr(type(value), "__get__") and not isinstance(value, (types.FunctionType, type)):
            return MISSING  # a property or other descriptor: reading it would run code
        return value
    if isinstance(node, ast.Subscript):
        base = safe_value(node.value, frame)
        key = safe_value(node.slice, frame)
        if type(base) not in (list, tuple, dict) or key is MISSING or isinstance(key, slice):
            return MISSING
        try:
            return base[key]
        except (KeyError, IndexError, TypeError):
            return MISSING
    return MISSING


__all__ = ["locate", "position_of", "safe_value", "call_matches", "Located", "Operand", "MISSING"]
