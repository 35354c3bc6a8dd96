"""Writes webflow/backends/bfloat16_kernels.py: the op types TensorFlow runs on bfloat16 on a CPU.

Run with TensorFlow's Python (the oracle venv): `.venv-tf/bin/python tools/make_bfloat16_kernels.py`.
An op counts when its OpDef lets a type attr be bfloat16 and a CPU (or DEFAULT-device) kernel accepts
bfloat16 for that attr. Ops of webflow's registry only; webflow-only op types (WhileGrad) are added by hand.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.path.join(ROOT, "webflow", "backends", "bfloat16_kernels.py")
BFLOAT16 = 14
WEBFLOW_ONLY = ("WhileGrad",)


def webflow_op_types() -> list:
    code = ("import importlib, pkgutil, webflow, webflow.ops, webflow.compat.v1, webflow.keras\n"
            "for m in pkgutil.iter_modules(webflow.ops.__path__): importlib.import_module('webflow.ops.' + m.name)\n"
            "from webflow.ops.registry import OPS; print(' '.join(sorted(OPS)))")
    python = os.path.join(ROOT, ".venv", "bin", "python")
    return subprocess.run([python, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()


def runs_on_bfloat16(op_type: str) -> bool:
    from tensorflow.python.framework import kernels, op_def_registry

    op_def = op_def_registry.get(op_type)
    if op_def is None:
        return False
    names = [a.name for a in op_def.attr if a.type in ("type", "list(type)")
             and (not a.allowed_values.list.type or BFLOAT16 in a.allowed_values.list.type)]
    for kernel in kernels.get_registered_kernels_for_op(op_type).kernel:
        if kernel.device_type not in ("CPU", "DEFAULT"):
            continue
        constraints = {c.name: list(c.allowed_values.list.type) for c in kernel.constraint}
        if any(name not in constraints or BFLOAT16 in constraints[name] for name in names):
            return True
    return False


TYPE_NAMES = {1: "float32", 2: "float64", 3: "int32", 4: "uint8", 5: "int16", 6: "int8", 7: "string", 9: "int64",
              10: "bool", 14: "bfloat16", 17: "uint16", 19: "float16", 20: "resource", 21: "variant", 22: "uint32",
              23: "uint64", 8: "complex64", 18: "complex128"}


def refusals(op_type: str) -> tuple | None:
    """For an op whose OpDef lets no input be bfloat16: (input name, expected dtype or None, allowed dtypes) per
    input, from which webflow words TensorFlow's graph-build TypeError; None for other ops."""
    from tensorflow.python.framework import op_def_registry

    op_def = op_def_registry.get(op_type)
    if op_def is None or runs_on_bfloat16(op_type):
        return None
    attrs = {a.name: a for a in op_def.attr}
    if any(a.type in ("type", "list(type)") and (not a.allowed_values.list.type or BFLOAT16 in
                                                  a.allowed_values.list.type) for a in op_def.attr):
        return None   # the OpDef allows bfloat16: refused by the kernel registry instead (CPU_KERNELS)
    rows = []
    for arg in op_def.input_arg:
        if arg.type:
            rows.append((arg.name, TYPE_NAMES.get(arg.type, str(arg.type)), ()))
        elif arg.type_attr:
            allowed = attrs[arg.type_attr].allowed_values.list.type
            rows.append((arg.name, None, tuple(TYPE_NAMES.get(t, str(t)) for t in allowed)))
        else:
            rows.append((arg.name, None, ()))
    return tuple(rows)


def main() -> None:
    import tensorflow as tf

    types = webflow_op_types()
    found = sorted([t for t in types if runs_on_bfloat16(t)] + list(WEBFLOW_ONLY))
    title = f"The op types with a bfloat16 kernel on a CPU in TensorFlow {tf.__version__}, among webflow's ops."
    lines = ["# ruff: noqa: E501 - generated rows", f'"""{title}',
             "", "Made by tools/make_bfloat16_kernels.py from TensorFlow's kernel registry; do not edit by hand.",
             '"""', "", "CPU_KERNELS = frozenset({"]
    row = "   "
    for name in found:
        if len(row) + len(name) + 4 > 116:
            lines.append(row)
            row = "   "
        row += f' "{name}",'
    lines += [row, "})", "", "# ops whose OpDef refuses bfloat16 (a graph-build TypeError): their inputs as "
              "(name, fixed dtype, allowed dtypes)", "OP_DEF_INPUTS = {"]
    for name in types:
        rows = refusals(name)
        if rows and any(expected != "bfloat16" for _, expected, _ in rows):
            lines.append(f"    {name!r}: {rows!r},")
    lines += ["}", ""]
    with tempfile.NamedTemporaryFile("w", dir=os.path.dirname(TARGET), delete=False, suffix=".tmp") as handle:
        handle.write("\n".join(lines))
    os.replace(handle.name, TARGET)
    print(f"{len(found)} op types -> {TARGET}", file=sys.stderr)


if __name__ == "__main__":
    main()
