"""Runs every row of the op test tables (tests/ops/test_*_table.py) and prints the results as JSON.

    python tests/no_numpy_tables.py --no-numpy   # webflow imported with NumPy blocked (as in Pyodide)
    python tests/no_numpy_tables.py              # the reference: webflow's NumPy kernels

Used by tests/test_no_numpy_tables.py, which runs it both ways and compares. With --no-numpy, webflow is
imported while `import numpy` fails, so it runs on CArrays with its C and pure-Python kernels; only then
is NumPy let in, for the table modules to build their inputs, which are turned into (list, dtype) pairs,
and NumPy is blocked again before any row runs. Each row's forward runs eagerly on `wf.constant(list,
dtype)`; for rows with `grad=True`, the GradientTape gradient of sum(weights * outputs) w.r.t. the float
inputs (in float64, as the harness checks it) runs too. A row that raises reports "error".
"""

from __future__ import annotations

import importlib
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TABLES = ("array", "control_flow", "conv", "core", "indexing", "linalg", "logic", "math", "moments", "nn_activation",
          "nn", "pool", "random", "reduction", "state", "summary", "training", "checkpoint", "string",
          "image", "parsing", "dataset", "audio", "queue", "tensor_array",
          "candidate_sampling", "rnn_block", "script",
          "depthwise_conv", "stateless_random", "space_batch", "sparse_cross", "numerics", "activation_grad",
          "bfloat16", "scatter", "assert_print", "dynamic_stitch")
CASE_LISTS = ("CASES", "MASK_CASES")


def load_rows() -> list:
    """(table, case) for every row of every table (needs NumPy in sys.modules)."""
    sys.path[:0] = [HERE, os.path.join(HERE, "ops")]
    rows = []
    for table in TABLES:
        module = importlib.import_module(f"test_{table}_table")
        for name in CASE_LISTS:
            for case in getattr(module, name, []):
                case = case.values[0] if hasattr(case, "values") else case  # a pytest.param(...) row
                rows.append((table, case))
    return rows


def row_id(table: str, case: object) -> str:
    return f"{table}:{case}"


def plain_inputs(case: object) -> list:
    """Each input as (nested list, dtype name): what a learner would type, no NumPy array."""
    import numpy

    return [(numpy.asarray(x).tolist(), _dtype_name(numpy.asarray(x).dtype)) for x in case.inputs]


def _dtype_name(dtype: object) -> str:
    return "string" if dtype.kind in "OSU" else dtype.name  # (object arrays of bytes: tf.string)


def weights(count: int) -> list:
    """Fixed weights in [0.5, 1.5) for the gradient's objective (the same in both runs)."""
    return [0.5 + ((7 * i + 3) % 11) / 10 for i in range(count)]


def _outputs(result: object) -> list:
    return list(result) if isinstance(result, (list, tuple)) else [result]


def _value(tensor: object) -> dict:
    import webflow as wf

    tensor = wf.convert_to_tensor(tensor)
    value = tensor.numpy()
    flat = value.reshape(-1).tolist() if hasattr(value, "reshape") else [value]
    flat = [v.decode("latin-1") if isinstance(v, bytes) else v for v in flat]  # strings (summaries) as JSON text
    return {"shape": list(tensor.shape.as_list()), "dtype": tensor.dtype.name, "values": flat}


def run_row(case: object, inputs: list) -> dict:
    import webflow as wf
    from webflow.framework import random_seed

    random_seed.set_global_seed(None)  # the random table's fixture: each row starts fresh streams
    result: dict = {}
    try:
        tensors = [wf.constant(v, dtype=wf.as_dtype(d)) for v, d in inputs]
        result["outputs"] = [_value(o) for o in _outputs(case.build(*tensors))]
    except Exception as error:  # noqa: BLE001 - reported to the parent, which lists it
        result["error"] = f"{type(error).__name__}: {error}"[:400]
        return result
    float_inputs = [i for i, (_, d) in enumerate(inputs) if d.startswith("float")]
    indices = list(case.grad_inputs) if case.grad_inputs is not None else float_inputs
    if not case.grad or not indices:
        return result
    try:
        tensors = [wf.constant(v, dtype=wf.float64 if i in indices else wf.as_dtype(d))
                   for i, (v, d) in enumerate(inputs)]
        with wf.GradientTape() as tape:
            for i in indices:
                tape.watch(tensors[i])
            outs = _outputs(case.build(*tensors))
            terms = []
            for o in outs:
                w = wf.reshape(wf.constant(weights(math.prod(o.shape.as_list())), dtype=o.dtype), o.shape)
                terms.append(wf.reduce_sum(o * w))
            objective = wf.add_n(terms)
        grads = tape.gradient(objective, [tensors[i] for i in indices])
        result["grads"] = [None if g is None else _value(g) for g in grads]
    except Exception as error:  # noqa: BLE001
        result["grad_error"] = f"{type(error).__name__}: {error}"[:400]
    return result


def main() -> None:
    no_numpy = "--no-numpy" in sys.argv
    if no_numpy:
        sys.modules["numpy"] = None  # type: ignore[assignment]
    import webflow  # noqa: F401
    import webflow.compat.v1  # noqa: F401
    from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY

    assert HAVE_NUMPY is not no_numpy
    if no_numpy:
        del sys.modules["numpy"]  # the tables build their inputs with NumPy ...
    rows = [(row_id(table, case), case, plain_inputs(case)) for table, case in load_rows()]
    if no_numpy:
        sys.modules["numpy"] = None  # type: ignore[assignment]  # ... and no row may reach it
    results = {name: run_row(case, inputs) for name, case, inputs in rows}
    from no_numpy_graph_rows import GRAPH_TABLES, run_row_in_graph  # the rows whose kernels only a graph runs

    for name, case, inputs in rows:
        if name.split(":")[0] in GRAPH_TABLES:
            results[name].update(run_row_in_graph(case, inputs, weights, _value, _outputs))
    print(json.dumps(results))


if __name__ == "__main__":
    main()
