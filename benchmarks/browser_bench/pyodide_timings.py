"""What benchmarks/browser_vs_tfjs.py times inside Pyodide (its page's worker runs this file); CPython runs it too
(tests/benchmarks/test_browser_vs_tfjs.py's smoke test), where the C library is the native one.

    run_json('{"what": "gemm", "sizes": [64, 128], "budget_ms": 300, "repeats": 3}')
    run_json('{"what": "mlp", "steps": 20, "repeats": 3}')
    run_json('{"what": "profile", "n": 64, "calls": 200, "top": 12}')

GEMM, C = A B of n x n float32 matrices, down webflow's stack, so the cost of each layer shows: in Pyodide only,
`js_standalone` (a standalone instance of the kernels' module in this worker, called from JS: the kernel alone)
and `js_direct` (Pyodide's loaded copy of the module, its export called from JS); `kernel` calls wf_gemm_f32
through ctypes on array.array buffers (what every op pays at least), `eager` is `wf.matmul(a, b)` on
EagerTensors, `graph` is `Session.run` of a TF1 `tf.matmul` of two variables (the result fetched).
`profile` is cProfile's view of small eager and graph products (where the fixed cost per op goes).
The MLP step is the MNIST demo's own (`MnistDemo.time_steps`: one Session.run of train_op + loss).
Figures are milliseconds per call, the fastest of many short batches (best_ms); the GEMM ways alternate.
"""

from __future__ import annotations

import array
import contextlib
import json
import random
import sys
import time
from collections.abc import Callable, Iterator

BATCH_MS = 2.0


def calls_per_batch(function: Callable[[], object]) -> int:
    function()
    started, calls = time.perf_counter(), 0
    while (time.perf_counter() - started) * 1e3 < BATCH_MS:
        function()
        calls += 1
    return max(1, calls)


def best_ms(functions: list[Callable[[], object]], budget_ms: float, repeats: int) -> list[float]:
    """Milliseconds per call of each function: the fastest of many short batches (about BATCH_MS each), the
    functions' batches alternating, for about budget_ms per function and at least `repeats` batches (on a loaded
    machine a short batch often runs unpreempted: the fastest is close to the unloaded speed)."""
    numbers = [calls_per_batch(function) for function in functions]
    best = [float("inf")] * len(functions)
    deadline, batches = time.perf_counter() + budget_ms * len(functions) / 1e3, 0
    while batches < repeats or time.perf_counter() < deadline:
        for i, (function, number) in enumerate(zip(functions, numbers, strict=True)):
            started = time.perf_counter()
            for _ in range(number):
                function()
            best[i] = min(best[i], (time.perf_counter() - started) * 1e3 / number)
        batches += 1
    return best


def random_floats(count: int, seed: int) -> array.array:
    generator = random.Random(seed)
    return array.array("f", (generator.random() - 0.5 for _ in range(count)))


@contextlib.contextmanager
def eager_mode() -> Iterator[None]:
    """Eager execution for the block: MnistDemo (the MLP job) calls tf.disable_v2_behavior(), after which
    `wf.matmul` would only add nodes to the default graph; the previous mode comes back afterwards."""
    import webflow as wf
    import webflow.compat.v1 as tf

    was_eager = wf.executing_eagerly()
    tf.enable_eager_execution()
    try:
        yield
    finally:
        if not was_eager:
            tf.disable_eager_execution()


def gemm_calls(n: int) -> dict[str, Callable[[], object]]:
    """The three ways to compute one n x n product, each a function of no arguments."""
    import webflow as wf
    import webflow.compat.v1 as tf
    from webflow.backends.c import (
        gemm,  # noqa: F401  (declares wf_gemm_f32's signature)
        library,
    )

    a_values, b_values = random_floats(n * n, 1 + n), random_floats(n * n, 2 + n)
    out = array.array("f", bytes(4 * n * n))
    kernel, at = library.function("wf_gemm_f32"), library.address
    pa, pb, pc = at(a_values), at(b_values), at(out)
    a = wf.reshape(wf.constant(a_values.tolist(), dtype=wf.float32), [n, n])
    b = wf.reshape(wf.constant(b_values.tolist(), dtype=wf.float32), [n, n])
    graph = tf.Graph()
    with graph.as_default():
        x = tf.Variable(tf.reshape(tf.constant(a_values.tolist()), [n, n]))
        y = tf.Variable(tf.reshape(tf.constant(b_values.tolist()), [n, n]))
        product = tf.matmul(x, y)
        session = tf.Session(graph=graph)
        session.run(tf.global_variables_initializer())
    buffers = (a_values, b_values, out)   # the kernel's closure keeps them alive: it only holds their addresses

    def call_kernel() -> None:
        assert buffers
        kernel(0, 0, n, n, n, 1.0, pa, n, pb, n, 0.0, pc, n)

    calls = {"kernel": call_kernel}
    direct = js_export_call(n, pa, pb, pc)
    if direct is not None:
        calls["js_direct"] = lambda: direct(buffers)
        calls["js_standalone"] = js_standalone_call(n, STANDALONE_URL)
    return {**calls,
            "eager": lambda: wf.matmul(a, b),
            "graph": lambda: session.run(product)}


# In Pyodide: the same export of the same loaded module, called from JS (no ctypes, no Python) in batches.
JS_TIMER = """(module, path, n, pa, pb, pc) => {
  const exports = module.LDSO.loadedLibsByName[path].exports;
  return (calls) => { for (let i = 0; i < calls; i++) exports.wf_gemm_f32(0, 0, n, n, n, 1, pa, n, pb, n, 0, pc, n); };
}"""


def js_batch(n: int) -> int:
    """GEMMs per call of the JS timers: a few for small n (one Python call costs microseconds), else one."""
    return 16 if n <= 64 else 4 if n <= 128 else 1


STANDALONE_URL = "/kernels/webflow_kernels_relaxed.wasm"

# The same GEMM in a standalone instance of the kernels' module (its own memory, as the page's main thread
# loads it), in this worker: separates "Pyodide's copy of the module" from "a worker thread".
JS_STANDALONE = """(url, n) => {
  const request = new XMLHttpRequest();
  request.open("GET", url, false);
  request.responseType = "arraybuffer";
  request.send();
  const memory = new WebAssembly.Memory({ initial: 512 });
  const global = (value, mutable) => new WebAssembly.Global({ value: "i32", mutable }, value);
  const env = { memory, __stack_pointer: global(8 << 20, true), __memory_base: global(1 << 20, false),
                __table_base: global(0, false) };
  const k = new WebAssembly.Instance(new WebAssembly.Module(request.response), { env }).exports;
  if (k.__wasm_apply_data_relocs) k.__wasm_apply_data_relocs();
  const bytes = 4 * n * n, pa = 16 << 20, pb = pa + bytes, pc = pb + bytes;
  if (pc + bytes > memory.buffer.byteLength) memory.grow(Math.ceil((pc + bytes - memory.buffer.byteLength) / 65536));
  const view = new Float32Array(memory.buffer, pa, 2 * n * n);
  for (let i = 0; i < view.length; i++) view[i] = ((i * 7919) % 1000) / 1000 - 0.5;
  return (calls) => { for (let i = 0; i < calls; i++) k.wf_gemm_f32(0, 0, n, n, n, 1, pa, n, pb, n, 0, pc, n); };
}"""


def js_export_call(n: int, pa: int, pb: int, pc: int) -> Callable[[object], None] | None:
    """A Python callable running js_batch(n) GEMMs from JS per call, or None outside Pyodide."""
    if sys.platform != "emscripten":
        return None
    import pyodide_js
    from pyodide.code import run_js

    from webflow.backends.c import library

    batch = run_js(JS_TIMER)(pyodide_js._module, library.library_path(), n, pa, pb, pc)
    return lambda buffers: batch(js_batch(n))


def js_standalone_call(n: int, url: str) -> Callable[[], None] | None:
    """js_batch(n) GEMMs from JS in a standalone instance of the module at `url` (in Pyodide only, else None)."""
    if sys.platform != "emscripten":
        return None
    from pyodide.code import run_js

    batch = run_js(JS_STANDALONE)(url, n)
    return lambda: batch(js_batch(n))


def gemm_rows(sizes: list[int], budget_ms: float, repeats: int) -> list[dict]:
    rows = []
    for n in sizes:
        with eager_mode():
            rows.append(gemm_row(n, budget_ms, repeats))
    return rows


def gemm_row(n: int, budget_ms: float, repeats: int) -> dict:
    """The figures of one size (in eager mode: see eager_mode)."""
    calls = gemm_calls(n)
    if type(calls["eager"]()).__name__ != "EagerTensor":
        raise RuntimeError("wf.matmul did not run eagerly: the eager figure would time graph building")
    times = best_ms(list(calls.values()), budget_ms, repeats)
    row = {"n": n, **{f"{name}_ms": ms for name, ms in zip(calls, times, strict=True)}}
    for name in ("js_direct_ms", "js_standalone_ms"):
        if name in row:
            row[name] /= js_batch(n)
    return row


_DEMO: dict = {}


def mlp(steps: int, repeats: int) -> dict:
    """The MNIST demo's training step (site/demo/mnist_model.py must be importable), best of `repeats`."""
    from mnist_model import MnistDemo

    if "demo" not in _DEMO:   # built once: later rounds time the same session
        _DEMO["demo"] = MnistDemo(model="mlp")
    demo = _DEMO["demo"]
    info = demo.info()
    demo.time_steps(steps)   # a warm-up run: V8 tiers the wasm up, the session plans its steps
    times = [demo.time_steps(steps) for _ in range(repeats)]
    return {"sizes": info["sizes"], "batch": info["batch"], "learning_rate": info["learning_rate"],
            "ms_per_step": min(times), "all_ms": times}


def profile(n: int, calls: int, top: int) -> dict:
    """Where the fixed cost of small products goes: cProfile of `calls` eager and graph n x n products. For each
    way, the Python function calls per product (exact, whatever the load) and the `top` functions by
    cumulative time (file:line function, calls per product, own and cumulative ms per product; times are
    inflated by the profiler and, on a loaded machine, noisy)."""
    with eager_mode():
        found = profile_ways(n, calls, top)
    return {"n": n, "calls": calls, **found}


def profile_ways(n: int, calls: int, top: int, runs: int = 5) -> dict:
    """profile()'s figures; of `runs` profiled runs per way, the fastest is kept (a loaded machine preempts
    some runs, and cProfile charges the pause to whatever function was running)."""
    import cProfile
    import pstats

    products = gemm_calls(n)
    found = {}
    for way in ("eager", "graph"):
        function = products[way]
        function()
        fastest = None
        for _ in range(runs):
            profiler = cProfile.Profile()
            profiler.enable()
            for _ in range(calls):
                function()
            profiler.disable()
            stats = pstats.Stats(profiler)
            if fastest is None or stats.total_tt < fastest.total_tt:
                fastest = stats
        found[f"{way}_python_calls_per_product"] = round(fastest.total_calls / calls, 1)
        rows = sorted(fastest.stats.items(), key=lambda item: -item[1][3])[:top]
        found[way] = [{"function": f"{path.rsplit('/', 2)[-1]}:{line} {name}", "calls": round(made / calls, 2),
                       "own_ms": round(own * 1e3 / calls, 4), "cumulative_ms": round(cumulative * 1e3 / calls, 4)}
                      for (path, line, name), (_, made, own, cumulative, _) in rows]
    return found


def about() -> str:
    """Which kernels webflow runs here, as JSON."""
    from webflow.backends.c import library

    return json.dumps({"backend": library.backend_name(), "wasm_variant": library.wasm_variant(),
                       "python": sys.version.split()[0], "platform": sys.platform})


def run_json(options: str) -> str:
    """One timing job described by a JSON object (see the module docstring); its result as JSON."""
    job = json.loads(options)
    if job["what"] == "gemm":
        return json.dumps(gemm_rows(job["sizes"], job.get("budget_ms", 500), job.get("repeats", 5)))
    if job["what"] == "mlp":
        return json.dumps(mlp(job.get("steps", 20), job.get("repeats", 3)))
    if job["what"] == "profile":
        return json.dumps(profile(job.get("n", 64), job.get("calls", 200), job.get("top", 12)))
    raise ValueError(f"unknown timing job {job['what']!r}")
