"""Which kernel runs an op, where its code is, and how to stop in it with a debugger.

For an op this finds (without running it):
- the Python function: the NumPy kernel registered with `register_op` (ops/*.py), or for the C backends
  the adapter in backends/c/<source>.py that makes the ctypes call;
- the C symbol: the pattern of the C kernel the op's stanza names (`CKernel.symbol`, e.g. `wf_gemm_<t>`), with
  `<t>` (and `<i>`, `<bits>`) filled in from the op's dtypes.
  A name is only reported when c_library declares exactly that function; otherwise it is None.
- hints: `breakpoint()` / pdb for Python kernels, a ready `gdb -p <pid>` command for the native library,
  the DevTools function name for the wasm module in Pyodide.
"""

from __future__ import annotations

import ast
import functools
import inspect
import os
import textwrap
from typing import Any

from webflow.backends import selection
from webflow.backends.c import library as c_library
from webflow.backends.c.adapters import SUFFIX

_INTEGER_SUFFIXES = ("i32", "i64")


def kernel_info(op: Any, backend: str | None = None) -> dict | None:
    """The schema's `kernel` object for a graph Operation; `backend` is the one that ran it, if known."""
    opdef = getattr(op, "_opdef", None)
    if opdef is None:
        return None
    if backend is None:
        backend = predicted_backend(op)
    symbol = c_symbol(op)
    on_c = backend in (selection.NATIVE, selection.WASM) and opdef.c_adapter is not None
    function = opdef.c_adapter.adapter if on_c else python_kernel(opdef)
    where = python_location(function)
    return {"backend": backend, "python": where, "c_symbol": symbol, "hints": _hints(backend, where, symbol)}


def predicted_backend(op: Any) -> str:
    """The backend the executor would pick for `op` now (backends/selection.py decides; NumPy if it cannot)."""
    try:
        return selection.node_kernel(op)[1]
    except Exception:  # a display must never fail because a kernel cannot be chosen (e.g. no library)
        return selection.NUMPY


def python_kernel(opdef: Any) -> Any:
    """The op's reference kernel, looking through selection.py's no-NumPy wrapper to the function it wraps."""
    kernel = opdef.kernels.get(selection.NUMPY, opdef.kernel)
    if getattr(kernel, "__module__", None) == selection.__name__:
        for cell in getattr(kernel, "__closure__", None) or ():
            inner = cell.cell_contents
            if callable(inner) and getattr(inner, "__module__", None) != selection.__name__:
                return inner
    return kernel


def python_location(function: Any) -> dict | None:
    """{"function", "file", "line"}: line is the first statement of the body, where a breakpoint stops."""
    function = inspect.unwrap(function)
    code = getattr(function, "__code__", None)
    if code is None:
        return None
    name = f"{function.__module__}.{function.__qualname__}"
    return {"function": name, "file": code.co_filename, "line": _first_statement_line(function)}


@functools.lru_cache(maxsize=1024)  # a graph has many ops of few types: parse each kernel's source once
def _first_statement_line(function: Any) -> int:
    """The line of the first statement after the docstring (co_firstlineno is the decorator's line)."""
    try:
        lines, start = inspect.getsourcelines(function)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError):
        return function.__code__.co_firstlineno
    node = tree.body[0]
    body = getattr(node, "body", [])
    if len(body) > 1 and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        body = body[1:]  # skip the docstring: it is not executed, so a breakpoint there never stops
    return start + (body[0].lineno if body else node.lineno) - 1


def c_symbol(op: Any) -> str | None:
    """The exact C function the op's adapter calls for the op's dtypes, or None when it cannot be told."""
    found = getattr(getattr(op, "_opdef", None), "c_adapter", None)
    if found is None:
        return None
    template = found.symbol
    if template is None:
        return None
    declared = set(c_library.declared())
    inputs = list(getattr(op, "inputs", ()))
    if "<t>" in template:
        if found.dtype_input >= len(inputs):
            return None
        template = template.replace("<t>", SUFFIX.get(inputs[found.dtype_input].dtype.base_dtype.name, "?"))
    if "<i>" in template:  # the index dtype: the first int32/int64 input other than the data input
        indices = [SUFFIX.get(t.dtype.base_dtype.name) for i, t in enumerate(inputs) if i != found.dtype_input]
        index = next((s for s in indices if s in _INTEGER_SUFFIXES), None)
        template = template.replace("<i>", index or "?")
    if "<bits>" in template:  # the element width of the values (Select's output)
        outputs = getattr(op, "outputs", ())
        size = outputs[0].dtype.base_dtype.size if outputs else 0
        template = template.replace("<bits>", str(8 * size))
    return template if template in declared else None


def _hints(backend: str, where: dict | None, symbol: str | None) -> list[str]:
    hints = []
    if where is not None:
        place = f"{where['file']}:{where['line']}"
        hints.append(f"breakpoint() at {place} stops in {where['function']} when this op runs")
        hints.append(f"pdb / %debug: break {place}")
    if symbol is None:
        return hints
    if backend == selection.NATIVE:
        hints.append(f"gdb -p {os.getpid()} -ex 'break {symbol}' -ex continue   "
                     "(then run the op again; needs ptrace permission)")
    elif backend == selection.WASM:
        hints.append(f"Chrome DevTools > Sources > webflow_kernels.wasm: set a breakpoint in function ${symbol}")
    else:
        hints.append(f"runs on NumPy here; webflow.config.set_backend('{selection.C_BACKEND}') runs the C "
                     f"function {symbol} instead")
    return hints


__all__ = ["kernel_info", "predicted_backend", "python_kernel", "python_location", "c_symbol"]
