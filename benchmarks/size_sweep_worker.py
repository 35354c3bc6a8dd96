"""One engine's side of size_sweep.py: times the cases the driver names, one block of calls per request.

    python benchmarks/size_sweep_worker.py webflow|tensorflow|pytorch

Reads JSON requests on stdin, one a line: {"case": {...}, "mode": "eager"|"graph"}; answers each with
{"seconds": per-call seconds of one block} (or {"error": text}) on stdout. The first request for a case builds
its inputs (and, in graph mode, its graph and Session), warms it up and picks how many calls make a block of
about BLOCK_SECONDS, so that every later block of that case measures the same work.
Runs under webflow's interpreter, TensorFlow's or PyTorch's (each imports only its own engine).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOCK_SECONDS = 0.004  # long enough for perf_counter, short enough that a block seldom spans a neighbour's burst


def inputs(case: dict) -> list:
    """The case's input arrays (float32, seeded: every engine gets the same values)."""
    rng = np.random.default_rng(0)
    return [rng.standard_normal(shape).astype(np.float32) for shape in case["shapes"]]


# --- TensorFlow-API engines (webflow and TensorFlow run the same code) -------------------------------------
def tf_apply(tf, case: dict, tensors: list):
    """The case's op on `tensors` (eager tensors or graph variables) with a TensorFlow-style module `tf`."""
    op = case["op"]
    if op == "matmul":
        return tf.matmul(tensors[0], tensors[1], transpose_a=case["ta"], transpose_b=case["tb"])
    if op == "conv2d":
        return tf.nn.conv2d(tensors[0], tensors[1], strides=[1, 1, 1, 1], padding="SAME")
    if op in ("add", "mul"):
        return (tf.add if op == "add" else tf.multiply)(tensors[0], tensors[1])
    if op == "relu":
        return tf.nn.relu(tensors[0])
    if op in ("sum", "mean"):
        return (tf.reduce_sum if op == "sum" else tf.reduce_mean)(tensors[0])
    if op == "softmax":
        return tf.nn.softmax(tensors[0])
    raise ValueError(op)


def tf_callable(engine: str, case: dict, mode: str) -> Callable[[], object]:
    if engine == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf2
        import tensorflow.compat.v1 as tf1
    else:
        sys.path.insert(0, REPO)
        import webflow as tf2
        import webflow.compat.v1 as tf1
    arrays = inputs(case)
    if mode == "eager":
        tensors = [tf2.constant(array) for array in arrays]
        return lambda: tf_apply(tf2, case, tensors)
    graph = tf1.Graph()
    with graph.as_default():
        # Variables, not constants: TensorFlow's grappler would fold a constant expression away.
        variables = [tf1.Variable(array) for array in arrays]
        output = tf_apply(tf1, case, variables)
        session = tf1.Session(graph=graph)
        session.run(tf1.global_variables_initializer())
    return lambda: session.run(output)  # fetching the value: both engines hand back a NumPy array


# --- PyTorch (eager only) ----------------------------------------------------------------------------------
def torch_callable(case: dict, mode: str) -> Callable[[], object]:
    import torch

    if mode != "eager":
        raise ValueError("PyTorch: eager mode only")
    tensors = [torch.from_numpy(array) for array in inputs(case)]
    op = case["op"]
    if op == "matmul":
        a, b = (t.t() if flag else t for t, flag in zip(tensors, (case["ta"], case["tb"])))
        return lambda: torch.matmul(a, b)
    if op == "conv2d":  # NHWC values laid out as PyTorch's NCHW / OIHW (its native layout, contiguous)
        x = tensors[0].permute(0, 3, 1, 2).contiguous()
        w = tensors[1].permute(3, 2, 0, 1).contiguous()
        padding = w.shape[-1] // 2
        return lambda: torch.nn.functional.conv2d(x, w, padding=padding)
    functions = {"add": torch.add, "mul": torch.mul, "relu": torch.relu, "sum": torch.sum, "mean": torch.mean,
                 "softmax": lambda t: torch.softmax(t, dim=-1)}
    function = functions[op]
    return (lambda: function(*tensors)) if len(tensors) > 1 else (lambda: function(tensors[0]))


# --- the request loop --------------------------------------------------------------------------------------
def prepare(engine: str, case: dict, mode: str) -> tuple:
    """(call, number of calls per block), after warm-up."""
    call = torch_callable(case, mode) if engine == "pytorch" else tf_callable(engine, case, mode)
    for _ in range(3):
        call()
    started = time.perf_counter()
    call()
    once = max(time.perf_counter() - started, 1e-7)
    return call, max(1, min(10000, int(BLOCK_SECONDS / once)))


def block(call: Callable[[], object], number: int) -> float:
    call()  # untimed: wakes this engine's own thread pool, asleep while the other engines ran
    started = time.perf_counter()
    for _ in range(number):
        call()
    return (time.perf_counter() - started) / number


def versions(engine: str) -> dict:
    if engine == "pytorch":
        import torch
        return {"engine": engine, "version": torch.__version__, "threads": torch.get_num_threads()}
    if engine == "tensorflow":
        import tensorflow as tf
        return {"engine": engine, "version": tf.__version__}
    sys.path.insert(0, REPO)
    import webflow
    from webflow.backends.c import parallel
    return {"engine": engine, "version": getattr(webflow, "__version__", "?"), "threads": parallel.threads()}


def main() -> None:
    engine = sys.argv[1]
    prepared: dict = {}
    print(json.dumps(versions(engine)), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        key = (json.dumps(request["case"], sort_keys=True), request["mode"])
        try:
            if key not in prepared:
                prepared.clear()  # one case at a time: the driver finishes a case before the next (memory)
                prepared[key] = prepare(engine, request["case"], request["mode"])
            answer = {"seconds": block(*prepared[key])}
        except Exception as error:  # noqa: BLE001 - reported to the driver, which prints n/a
            answer = {"error": f"{type(error).__name__}: {error}"[:300]}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
