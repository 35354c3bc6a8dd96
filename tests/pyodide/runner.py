"""Runs inside Pyodide (no NumPy): calls webflow's wasm kernels through c_library and the c_* declarations.

Loaded by pyodide_server.mjs. A job is a JSON file written by pytest (tests/pyodide/kernel_jobs.py):
    {"buffers": [{"file": "b0.bin", "nbytes": 48, "out": true}, ...],
     "calls": [["wf_gemm_f32", 0, 0, 2, 2, 3, 1.0, {"buffer": 0, "offset": 0}, 3, ...], ...]}
An argument is a number (ctypes converts it by the declared signature: 32-bit sizes on wasm32), the
address of a buffer plus a byte offset, {"sizes": [...]} (a wf_size array, built by
c_elementwise.size_array) or {"conv": [15 ints]} (a pointer to a c_conv.Conv2DShape). Buffers live in
Pyodide's memory (bytearrays) and their addresses go to the kernels zero-copy, exactly as webflow does it.
"""

from __future__ import annotations

import ast
import ctypes
import json
import os
import sys
import types

# `import webflow` runs webflow/__init__.py, which needs NumPy; the kernel layer does not. A bare package
# object lets `webflow.backends.c.library` import on its own, as a NumPy-free Pyodide would use it.
if "webflow" not in sys.modules:
    _package = types.ModuleType("webflow")
    _package.__path__ = [os.path.join(os.path.dirname(os.path.abspath(__file__)), "webflow")]
    sys.modules["webflow"] = _package

# each c_<family> module declares its family's signatures when imported
from webflow.backends.c import activations as c_activations  # noqa: E402, F401
from webflow.backends.c import cast as c_cast  # noqa: E402, F401
from webflow.backends.c import conv as c_conv  # noqa: E402, F401
from webflow.backends.c import elementwise as c_elementwise  # noqa: E402, F401
from webflow.backends.c import gather as c_gather  # noqa: E402, F401
from webflow.backends.c import gemm as c_gemm  # noqa: E402, F401
from webflow.backends.c import library as c  # noqa: E402
from webflow.backends.c import optimizers as c_optimizers  # noqa: E402, F401
from webflow.backends.c import philox as c_philox  # noqa: E402, F401
from webflow.backends.c import pool as c_pool  # noqa: E402, F401
from webflow.backends.c import reduce as c_reduce  # noqa: E402, F401
from webflow.backends.c import softmax as c_softmax  # noqa: E402, F401
from webflow.backends.c import sparse_xent as c_sparse_xent  # noqa: E402, F401

EXCHANGE = "/exchange"


def _argument(spec: object, buffers: list, keep: list) -> object:
    if not isinstance(spec, dict):
        return spec
    if "buffer" in spec:
        return c.address(buffers[spec["buffer"]]) + spec.get("offset", 0)
    if "sizes" in spec:
        value = c_elementwise.size_array(spec["sizes"])
    elif "conv" in spec:
        value = c_conv.Conv2DShape(*spec["conv"])
    else:
        raise ValueError(f"unknown argument {spec!r}")
    keep.append(value)  # alive until the call returns
    return ctypes.addressof(value)


def run_job(name: str) -> str:
    """Loads the job's buffers, makes its calls in order, writes the output buffers back; JSON of the results."""
    with open(os.path.join(EXCHANGE, name)) as handle:
        job = json.load(handle)
    buffers = []
    for entry in job["buffers"]:
        with open(os.path.join(EXCHANGE, entry["file"]), "rb") as handle:
            data = handle.read()
        # at least 16 bytes: an empty buffer still has a valid, distinct address (as NumPy's have)
        buffers.append(bytearray(data) + bytearray(max(16 - len(data), 0)))
    results = []
    for name_and_args in job["calls"]:
        keep: list = []
        arguments = [_argument(spec, buffers, keep) for spec in name_and_args[1:]]
        results.append(c.function(name_and_args[0])(*arguments))
    for entry, buffer in zip(job["buffers"], buffers):
        if entry["out"]:
            with open(os.path.join(EXCHANGE, entry["file"] + ".out"), "wb") as handle:
                handle.write(bytes(buffer[:entry["nbytes"]]))
    return json.dumps({"results": results})


def evaluate(code: str) -> str:
    """Runs `code` (statements, then an expression) in a fresh namespace; JSON of the last expression."""
    tree = ast.parse(code)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    namespace = {"c": c, "__name__": "__pyodide_job__"}
    exec(compile(tree, "<pytest>", "exec"), namespace)
    value = eval(compile(ast.Expression(last.value), "<pytest>", "eval"), namespace) if last else None
    return json.dumps(value)
