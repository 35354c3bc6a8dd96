"""webflow's C kernels, native and in wasm, next to NumPy (with and without BLAS) and TensorFlow.js, in one run.

    PYTHONPATH=. python benchmarks/wasm_vs_tfjs.py [--numpy-noblas-python PATH] [--quick] [--no-npm-ci]
    make bench-wasm                                  # the same, building what it needs first

Steps: build webflow_kernels.wasm and webflow_kernels_relaxed.wasm if stale (python -m webflow.wasm.build --wasm);
`npm ci` in benchmarks/wasm
(when node_modules is missing or older than package-lock.json); native GEMM vs NumPy/OpenBLAS
(benchmarks/c_gemm.py), native conv and per-call cost (here, via ctypes); NumPy without BLAS
(benchmarks/numpy_noblas_gemm.py under --numpy-noblas-python, else "not measured"); both wasm modules vs
tfjs-wasm in one Node run with --experimental-wasm-relaxed-simd (benchmarks/wasm/wasm_vs_tfjs.mjs).
Prints a side-by-side table, then every figure as a JSON line. Everything runs on one thread; the figures
are the best of several repeats, and still noisy on a shared machine. Ratios are "times faster" (above 1:
the first-named side wins).
"""

from __future__ import annotations

import argparse
import ctypes
import functools
import json
import os
import subprocess
import sys

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before NumPy loads OpenBLAS

import numpy as np  # noqa: E402
from bench_timing import seconds_per_call  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
NODE_DIR = os.path.join(HERE, "wasm")
sys.path.insert(0, REPO)  # webflow itself, when not installed
NOBLAS_DEFAULT = os.path.join(REPO, ".venv-numpy-noblas", "bin", "python")
MNIST_LAYERS = {"conv1": ((50, 28, 28, 1), (5, 5, 1, 32)), "conv2": ((50, 14, 14, 32), (5, 5, 32, 64))}
OPS = ("A.B", "A.BT", "AT.B", "AT.BT")


def run_json_lines(command: list[str], cwd: str = REPO) -> list[dict]:
    """Run a benchmark script and return its JSON lines (stderr passes through; a failure stops the run)."""
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    print("$", " ".join(command), file=sys.stderr, flush=True)
    result = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.PIPE, text=True, check=True)
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


def prepare(options: argparse.Namespace) -> None:
    """The wasm module and the npm packages, when missing or stale."""
    # (-W: webflow.wasm's __init__ imports build, which makes runpy warn when it then runs it as __main__)
    build = [sys.executable, "-W", "ignore::RuntimeWarning", "-m", "webflow.wasm.build", "--wasm"]
    subprocess.run(build, cwd=REPO, check=True)
    installed = os.path.join(NODE_DIR, "node_modules", ".package-lock.json")
    lock = os.path.join(NODE_DIR, "package-lock.json")
    stale = not os.path.exists(installed) or os.path.getmtime(installed) < os.path.getmtime(lock)
    if options.npm_ci or (stale and not options.no_npm_ci):
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=NODE_DIR, check=True)


def native_conv_and_calls(quick: bool) -> list[dict]:
    """Native C conv2d at the MNIST shapes and the per-call cost of a 4x4 GEMM (ctypes) vs NumPy's matmul."""
    from webflow.backends.c import conv as c_conv  # noqa: F401  (declare the signatures)
    from webflow.backends.c import gemm as c_gemm  # noqa: F401  (declare the signatures)
    from webflow.backends.c import library as c

    if not c.available():
        return []
    budget, repeat = (0.1, 3) if quick else (0.4, 5)
    rows, rng = [], np.random.default_rng(0)
    for layer, (x_shape, f_shape) in MNIST_LAYERS.items():
        s = c_conv.conv2d_shape(x_shape, f_shape[:2], f_shape[3], padding="SAME")
        x = rng.standard_normal(x_shape).astype(np.float32)
        f = rng.standard_normal(f_shape).astype(np.float32)
        dy = rng.standard_normal(x_shape[:3] + (f_shape[3],)).astype(np.float32)
        dx, df, y = np.empty_like(x), np.empty_like(f), np.empty_like(dy)
        shape, at = ctypes.addressof(s), c.address
        work = np.empty(c.function("wf_conv2d_workspace_f32")(shape), np.float32)
        calls = {  # the arguments of each kernel after the shape, ending with the workspace
            "forward": ("wf_conv2d_f32", at(x), at(f), at(y)),
            "backprop_input": ("wf_conv2d_backprop_input_f32", at(f), at(dy), at(dx)),
            "backprop_filter": ("wf_conv2d_backprop_filter_f32", at(x), at(dy), at(df)),
        }
        for kernel, (name, *arrays) in calls.items():
            call = functools.partial(c.function(name), shape, *arrays, at(work), work.size)
            if call() != 0:
                raise RuntimeError(f"{name} returned an error status")
            rows.append({"benchmark": "conv2d", "layer": layer, "kernel": kernel, "unit": "ms",
                         "native_c": round(seconds_per_call(call, budget, repeat) * 1e3, 3)})
    a, b, out = np.ones((4, 4), np.float32), np.ones((4, 4), np.float32), np.empty((4, 4), np.float32)
    gemm, pa, pb, po = c.function("wf_gemm_f32"), c.address(a), c.address(b), c.address(out)
    ours = seconds_per_call(lambda: gemm(0, 0, 4, 4, 4, 1.0, pa, 4, pb, 4, 0.0, po, 4), budget, repeat)
    theirs = seconds_per_call(lambda: np.matmul(a, b, out=out), budget, repeat)
    rows.append({"benchmark": "per_call", "op": "matmul 4x4", "unit": "us/call", "native_c": round(ours * 1e6, 3),
                 "numpy_openblas": round(theirs * 1e6, 3)})
    return rows


def collect(options: argparse.Namespace) -> dict:
    """Every figure, keyed by (benchmark, case), merged across the runs that measure it."""
    sizes = ["--sizes", options.sizes]
    quick = ["--quick"] if options.quick else []
    figures: dict[tuple, dict] = {}

    def merge(key: tuple, row: dict) -> None:
        figures.setdefault(key, {}).update({k: v for k, v in row.items() if k != "ratio"})

    for row in run_json_lines([sys.executable, "benchmarks/c_gemm.py", *sizes]):
        if "error" not in row:
            merge(("gemm", row["n"], row["op"]), row)
    for row in native_conv_and_calls(options.quick):
        merge((row["benchmark"], row.get("layer"), row.get("kernel") or row.get("op")), row)
    noblas = options.numpy_noblas_python
    if noblas and os.path.exists(noblas):
        for row in run_json_lines([noblas, "benchmarks/numpy_noblas_gemm.py", *sizes, *quick]):
            if row["benchmark"] == "numpy_build":
                figures[("numpy_noblas_build",)] = row
                continue
            key = ("gemm", row["n"], row["op"]) if row["benchmark"] == "gemm" else ("per_call", None, row["op"])
            merge(key, {"numpy_noblas": row["numpy"]})
    # the flag lets Node 20 run webflow_kernels_relaxed.wasm next to the baseline module (Chromium needs none)
    node = ["node", "--experimental-wasm-relaxed-simd", "wasm_vs_tfjs.mjs", "--json", *sizes, *quick]
    for row in run_json_lines(node, cwd=NODE_DIR):
        if row["benchmark"] == "gemm":
            merge(("gemm", row["n"], row["op"]), row)
        elif row["benchmark"] == "conv2d":
            merge(("conv2d", row["layer"], row["kernel"]), row)
        elif row["benchmark"] == "per_call":
            merge(("per_call", None, row["op"]), row)
        else:
            figures[(row["benchmark"],)] = row
    return figures


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    return round(numerator / denominator, 2) if numerator and denominator else None


def show(value: object, width: int = 13) -> str:
    return ("-" if value is None else str(value)).rjust(width)


def report(figures: dict, noblas_note: str) -> None:
    """The side-by-side table, then one JSON line per figure with its ratios."""
    print("\nOne thread everywhere; best of repeats; the machine is shared, so figures are noisy (compare ratios).")
    setup = figures.get(("setup",), {})
    print(f"tfjs {setup.get('tfjs')} backend {setup.get('tfjs_backend')}, SIMD {setup.get('tfjs_simd')}, "
          f"threads {setup.get('tfjs_threads')} (multithread support: {setup.get('tfjs_multithread')}); {noblas_note}")
    print(f"webflow relaxed-SIMD module: {setup.get('webflow_relaxed')} (node {setup.get('node_flags')})")
    print("\nGEMM f32, GFLOP/s (ratios: native/OpenBLAS, wasm/tfjs-wasm, wasm relaxed/tfjs-wasm [goal], "
          "wasm/NumPy-no-BLAS)")
    print("    n  op    " + "".join(h.rjust(13) for h in
                                   ("native C", "OpenBLAS", "ratio", "wasm", "wasm relaxed", "tfjs-wasm", "ratio",
                                    "ratio relax", "goal", "NumPy-noBLAS", "ratio")))
    lines = []
    for key in sorted(k for k in figures if k[0] == "gemm"):
        row = figures[key]
        goal = {"A.B": 1.3, "A.BT": 10, "AT.B": 10}.get(key[2])
        row.update(ratio_native_openblas=ratio(row.get("webflow_c"), row.get("numpy_openblas")),
                   ratio_wasm_tfjs=ratio(row.get("webflow_wasm"), row.get("tfjs_wasm")),
                   ratio_relaxed_tfjs=ratio(row.get("webflow_relaxed"), row.get("tfjs_wasm")),
                   ratio_wasm_numpy_noblas=ratio(row.get("webflow_wasm"), row.get("numpy_noblas")), goal=goal)
        # the goal counts for the module a browser loads: the relaxed one where it was measured
        best = row["ratio_relaxed_tfjs"] or row["ratio_wasm_tfjs"]
        met = None if goal is None or best is None else best >= goal
        row["goal_met"] = met
        goal_text = "" if goal is None else f"{goal}:{'ok' if met else 'NO'}"
        print(f"{key[1]:5d}  {key[2]:5s} " + "".join(show(v) for v in (
            row.get("webflow_c"), row.get("numpy_openblas"), row["ratio_native_openblas"], row.get("webflow_wasm"),
            row.get("webflow_relaxed"), row.get("tfjs_wasm"), row["ratio_wasm_tfjs"], row["ratio_relaxed_tfjs"],
            goal_text,
            row.get("numpy_noblas", "not measured"), row["ratio_wasm_numpy_noblas"])))
        lines.append(row)
    print("\nconv2d, Deep MNIST shapes, batch 50, ms per call (ratio = tfjs-wasm / wasm)")
    print("layer  kernel           " + "".join(h.rjust(13) for h in ("native C", "wasm", "wasm relaxed", "tfjs-wasm",
                                                                    "ratio", "ratio relax")))
    kernel_order = ("forward", "backprop_input", "backprop_filter")
    for key in sorted((k for k in figures if k[0] == "conv2d"), key=lambda k: (k[1], kernel_order.index(k[2]))):
        row = figures[key]
        row["ratio_wasm_tfjs"] = ratio(row.get("tfjs_wasm"), row.get("webflow_wasm"))
        row["ratio_relaxed_tfjs"] = ratio(row.get("tfjs_wasm"), row.get("webflow_relaxed"))
        theirs = row.get("tfjs_wasm") if row.get("tfjs_wasm") is not None else "n/a*"
        print(f"{key[1]:6s} {key[2]:16s} " + "".join(show(v) for v in (
            row.get("native_c"), row.get("webflow_wasm"), row.get("webflow_relaxed"), theirs, row["ratio_wasm_tfjs"],
            row["ratio_relaxed_tfjs"])))
        lines.append(row)
    print("  * tfjs-wasm 4.22 registers no Conv2DBackpropFilter kernel: it cannot train a conv layer's filter.")
    print("\nper-call cost of a 4x4 matmul, us (native via ctypes from CPython; wasm called from JS)")
    for key in sorted(k for k in figures if k[0] == "per_call"):
        row = figures[key]
        print("  " + ", ".join(f"{name} {row.get(field, 'not measured')}" for name, field in (
            ("native C", "native_c"), ("NumPy/OpenBLAS", "numpy_openblas"), ("NumPy no BLAS", "numpy_noblas"),
            ("wasm", "webflow_wasm"), ("tfjs-wasm", "tfjs_wasm"))))
        lines.append(row)
    mlp = figures.get(("mlp_train_step",))
    if mlp:
        mlp["goal_met"] = min(r for r in (mlp["ratio"], mlp.get("ratio_relaxed")) if r) >= mlp["goal"]
        print(f"\nMLP training step {mlp['model']}, batch {mlp['batch']}: wasm kernels {mlp['webflow_wasm']} ms "
              f"(x{mlp['ratio']}), relaxed {mlp.get('webflow_relaxed')} ms (x{mlp.get('ratio_relaxed')}), "
              f"tfjs-wasm {mlp['tfjs_wasm']} ms (goal >= {mlp['goal']}x: "
              f"{'met' if mlp['goal_met'] else 'NOT met'})")
        print("  webflow side = the C kernel sequence webflow's graph runs, driven from JS; the whole Python engine "
              "in Pyodide: node benchmarks/wasm/pyodide_mlp_vs_tfjs.mjs")
        lines.append(mlp)
    print()
    for row in lines:
        print(json.dumps(row))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="64,128,256,512,1024")
    parser.add_argument("--quick", action="store_true", help="shorter timing budgets")
    parser.add_argument("--numpy-noblas-python", default=os.environ.get("WEBFLOW_NUMPY_NOBLAS_PYTHON", NOBLAS_DEFAULT),
                        help="python of a venv whose NumPy is built without BLAS")
    parser.add_argument("--npm-ci", action="store_true", help="always run npm ci in benchmarks/wasm")
    parser.add_argument("--no-npm-ci", action="store_true", help="never run npm ci")
    options = parser.parse_args()
    prepare(options)
    figures = collect(options)
    build = figures.pop(("numpy_noblas_build",), None)
    if build is None:
        note = f"NumPy without BLAS: not measured (no python at {options.numpy_noblas_python})"
    else:
        note = f"NumPy without BLAS: {build['numpy']} built with blas={build['blas']}"
    report(figures, note)


if __name__ == "__main__":
    main()
