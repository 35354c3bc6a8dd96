"""webflow next to TensorFlow.js's wasm backend in headless Chromium: GEMMs and the MNIST demo's training step.

    make site && python benchmarks/browser_vs_tfjs.py [--sizes 64,128,256,512] [--quick] [--json]

Needs site/_build (`make site`: the offline Pyodide and webflow's wheel), webflow/wasm/webflow_kernels*.wasm,
/usr/bin/chromium + Python playwright, and @tensorflow/tfjs + tfjs-backend-wasm 4.22 in
benchmarks/wasm/node_modules (`npm ci` there). One page, benchmarks/browser_bench/vs_tfjs.html, served from
127.0.0.1 with the built site (nothing else is let out), with COOP/COEP headers so that it is cross-origin
isolated and tfjs-wasm may load its threaded SIMD build.

Measured, in one browser:
- GEMM C = A B, n x n float32: tf.matMul on tfjs-wasm (SIMD; its one-thread build, then its threaded build with
  navigator.hardwareConcurrency threads asked: on 2 vCPUs tfjs 4.22 still reports a pool of 1), webflow's
  wf_gemm_f32 called straight from the page's JS (both wasm builds: simd128 and relaxed-simd), and webflow in
  Pyodide in a Web Worker (browser_bench/pyodide_timings.py): the same kernel from JS (a standalone instance and
  Pyodide's loaded copy), through ctypes, eager `wf.matmul`, graph `Session.run` - each layer's cost shows.
- The MNIST demo's training step (site/demo/mnist_model.py's MLP, its batch and Adam, in Pyodide in the worker:
  `MnistDemo.time_steps`) next to the same model in tfjs-wasm (`optimizer.minimize` + the loss read back).
- A cProfile of a small eager and graph product in Pyodide (Python calls per product; where the fixed cost goes).
Ratios are tfjs's time / webflow's (above 1: webflow is faster). Each figure is the fastest of many ~2 ms batches,
and the page's and the worker's timings alternate over --rounds; still noisy on a shared machine: the load
average is printed with the figures. Prints a table, then one JSON line per figure (make_report.py).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import json
import os
import sys
import threading
import time
from collections.abc import Iterator

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "browser"))
from chromium import chromium_page, unavailable_reason  # noqa: E402
from static_server import MountedHandler  # noqa: E402

BUILD = os.path.join(REPO, "site", "_build")
TFJS = os.path.join(HERE, "wasm", "node_modules", "@tensorflow")
KERNELS = os.path.join(REPO, "webflow", "wasm")
PAGES = os.path.join(HERE, "browser_bench")
MOUNTS = {"/": BUILD, "/tfjs/": TFJS, "/kernels/": KERNELS, "/bench/": PAGES}
BOOT_TIMEOUT_MS = 300_000


class IsolatedHandler(MountedHandler):
    """The static server's handler plus the two headers that make a page cross-origin isolated
    (SharedArrayBuffer, hence tfjs-wasm's threads). Every file is same-origin, so require-corp blocks nothing."""

    def end_headers(self) -> None:
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        super().end_headers()


@contextlib.contextmanager
def serve_isolated(mounts: dict[str, str]) -> Iterator[str]:
    """Serves `mounts` on 127.0.0.1 and a free port with IsolatedHandler; yields the origin."""
    handler = functools.partial(IsolatedHandler, mounts={k: os.path.abspath(v) for k, v in mounts.items()})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def missing_requirement() -> str | None:
    """Why this benchmark cannot run here (None when it can)."""
    reason = unavailable_reason()
    checks = ((os.path.exists(os.path.join(BUILD, "common", "webflow_pyodide.mjs")), "run `make site` first"),
              (os.path.isdir(os.path.join(TFJS, "tfjs-backend-wasm")), "run `npm ci` in benchmarks/wasm"),
              (os.path.exists(os.path.join(KERNELS, "webflow_kernels.wasm")),
               "build the wasm kernels: python -m webflow.wasm.build --wasm"))
    return reason or next((why for ok, why in checks if not ok), None)


def open_page(page, origin: str, threads: bool) -> dict:  # noqa: ANN001 - a Playwright page
    page.goto(f"{origin}/bench/vs_tfjs.html?threads={int(threads)}")
    page.wait_for_function("document.body.dataset.state === 'ready'", timeout=60_000)
    return page.evaluate("() => window.bench.setupTfjs()")


def best_rows(rounds: list[list[dict]]) -> list[dict]:
    """Per size, the smallest value of each "..._ms" figure over the rounds (the other keys from the first)."""
    merged = [dict(row) for row in rounds[0]]
    for rows in rounds[1:]:
        for best, row in zip(merged, rows, strict=True):
            for key, value in row.items():
                if key.endswith("_ms") and value is not None:
                    best[key] = value if best.get(key) is None else min(best[key], value)
    return merged


def best_step(runs: list[dict]) -> dict:
    """The fastest of several MLP timings, with every repeat's figure kept."""
    best = dict(min(runs, key=lambda run: run["ms_per_step"]))
    best["all_ms"] = [ms for run in runs for ms in run.get("all_ms", [run["ms_per_step"]])]
    return best


def page_call(page, function: str, *args: object) -> object:  # noqa: ANN001 - a Playwright page
    """window.bench.<function>(...args) in the page, awaited."""
    return page.evaluate(f"(args) => window.bench.{function}(...args)", list(args))


def measure(sizes: list[int], budget_ms: float, repeats: int, steps: int, mlp_repeats: int, rounds: int) -> dict:
    """Every figure, from one Chromium: the one-thread page with its worker, then the threaded page. The page's
    and the worker's timings alternate over `rounds` (the best of each is kept), so that on a loaded machine
    both sides sample the same minutes."""
    with serve_isolated(MOUNTS) as origin, chromium_page(origin) as (page, log):
        page.set_default_timeout(BOOT_TIMEOUT_MS)
        one_thread = open_page(page, origin, threads=False)
        started = time.perf_counter()
        ready = page_call(page, "startWorker")
        boot_s = time.perf_counter() - started
        kernels, pyodide, mlp, tfjs_mlp = [], [], [], []
        for _ in range(rounds):
            kernels.append(page_call(page, "gemm", sizes, budget_ms, repeats))
            pyodide.append(page_call(page, "workerTime", {"what": "gemm", "sizes": sizes, "budget_ms": budget_ms,
                                                          "repeats": repeats})["value"])
            mlp.append(page_call(page, "workerTime", {"what": "mlp", "steps": steps, "repeats": mlp_repeats})["value"])
            mlp_args = [mlp[0]["sizes"], mlp[0]["batch"], mlp[0]["learning_rate"], steps, mlp_repeats]
            tfjs_mlp.append(page_call(page, "tfjsMlp", *mlp_args))
        profile = page_call(page, "workerTime", {"what": "profile", "n": min(sizes), "calls": 200, "top": 10})
        threaded = open_page(page, origin, threads=True)
        threaded_gemm, threaded_mlp = [], []
        if threaded["multithread"]:   # the threaded build loaded (its pool may still be one thread)
            for _ in range(rounds):
                threaded_gemm.append(page_call(page, "gemm", sizes, budget_ms, repeats))
                threaded_mlp.append(page_call(page, "tfjsMlp", *mlp_args))
        if log.foreign or log.errors:
            raise RuntimeError(f"requests left the origin: {log.foreign}; errors: {log.errors}")
    return {"one_thread": one_thread, "threaded": threaded, "ready": ready, "boot_s": boot_s,
            "kernels": best_rows(kernels), "pyodide_gemm": best_rows(pyodide), "mlp": best_step(mlp),
            "tfjs_mlp": best_step(tfjs_mlp), "profile": profile["value"],
            "threaded_gemm": best_rows(threaded_gemm) if threaded_gemm else None,
            "threaded_mlp": best_step(threaded_mlp) if threaded_mlp else None}


def ratio(theirs: float | None, ours: float | None) -> float | None:
    """tfjs's time / webflow's: above 1, webflow is faster."""
    return round(theirs / ours, 2) if theirs and ours else None


def rounded(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def gemm_rows(figures: dict) -> list[dict]:
    """One row per size: every side's ms per product and tfjs / webflow ratios."""
    variant = "relaxed" if figures["ready"].get("wasm_variant") == "relaxed-simd" else "simd128"
    threaded = {row["n"]: row["tfjs_ms"] for row in figures["threaded_gemm"] or []}
    rows = []
    for js, py in zip(figures["kernels"], figures["pyodide_gemm"], strict=True):
        n, tfjs1, tfjs_n, kernel = js["n"], js["tfjs_ms"], threaded.get(js["n"]), js[f"kernel_{variant}_ms"]
        rows.append({
            "benchmark": "browser_vs_tfjs", "part": "gemm", "n": n, "unit": "ms",
            "tfjs_wasm_1_thread": rounded(tfjs1), "tfjs_wasm_threaded_build": rounded(tfjs_n),
            "kernel_js_simd128": rounded(js.get("kernel_simd128_ms")),
            "kernel_js_relaxed": rounded(js.get("kernel_relaxed_ms")),
            "worker_kernel_standalone": rounded(py.get("js_standalone_ms")),
            "worker_kernel_pyodide_module": rounded(py.get("js_direct_ms")),
            "pyodide_ctypes_kernel": rounded(py["kernel_ms"]), "pyodide_eager": rounded(py["eager_ms"]),
            "pyodide_graph": rounded(py["graph_ms"]),
            "gflops_kernel_js": round(2 * n**3 / kernel / 1e6, 1),
            "gflops_pyodide_eager": round(2 * n**3 / py["eager_ms"] / 1e6, 1),
            "gflops_tfjs_1_thread": round(2 * n**3 / tfjs1 / 1e6, 1),
            "ratio_tfjs1_over_kernel_js": ratio(tfjs1, kernel),
            "ratio_tfjs1_over_eager": ratio(tfjs1, py["eager_ms"]),
            "ratio_tfjs1_over_graph": ratio(tfjs1, py["graph_ms"]),
            "ratio_tfjs_threaded_over_eager": ratio(tfjs_n, py["eager_ms"]),
            "max_error_kernel_vs_tfjs": js.get(f"kernel_{variant}_max_error")})
    return rows


def profile_row(figures: dict) -> dict:
    """cProfile's top functions (own time) for a small eager and graph product in Pyodide."""
    found = figures["profile"]
    return {"benchmark": "browser_vs_tfjs", "part": "profile", "n": found["n"], "calls": found["calls"],
            "unit": "ms per product", "eager_python_calls_per_product": found["eager_python_calls_per_product"],
            "graph_python_calls_per_product": found["graph_python_calls_per_product"],
            "eager": found["eager"], "graph": found["graph"]}


def mlp_row(figures: dict, steps: int) -> dict:
    mlp, tfjs1, threaded = figures["mlp"], figures["tfjs_mlp"], figures["threaded_mlp"]
    ours, tfjs_n = mlp["ms_per_step"], threaded["ms_per_step"] if threaded else None
    return {"benchmark": "browser_vs_tfjs", "part": "mlp_step", "unit": "ms per step",
            "model": f"{'-'.join(map(str, mlp['sizes']))} relu MLP, softmax xent, Adam (the MNIST demo's)",
            "batch": mlp["batch"], "timed_steps": steps, "webflow_pyodide": rounded(ours, 3),
            "webflow_all_repeats": [rounded(v, 3) for v in mlp["all_ms"]],
            "tfjs_wasm_1_thread": rounded(tfjs1["ms_per_step"], 3), "tfjs_wasm_threads": rounded(tfjs_n, 3),
            "ratio_tfjs1_over_webflow": ratio(tfjs1["ms_per_step"], ours),
            "ratio_tfjs_threads_over_webflow": ratio(tfjs_n, ours),
            "tfjs_loss_first_last": [rounded(tfjs1["first_loss"], 3), rounded(tfjs1["last_loss"], 3)]}


def setup_row(figures: dict, load_before: tuple, options: argparse.Namespace) -> dict:
    one, threaded, ready = figures["one_thread"], figures["threaded"], figures["ready"]
    return {"benchmark": "browser_vs_tfjs", "part": "setup", "browser": "chromium (headless)",
            "tfjs": one["version"], "tfjs_backend": one["backend"], "tfjs_simd": one["simd"],
            "cross_origin_isolated": threaded["cross_origin_isolated"],
            "tfjs_threads": threaded["threads"] if threaded["multithread"] else 1,
            "webflow_backend": ready.get("backend"), "webflow_wasm_variant": ready.get("wasm_variant"),
            "pyodide_python": ready.get("python"), "webflow_boot_s": round(figures["boot_s"], 1),
            "load_average_before": [round(v, 2) for v in load_before],
            "load_average_after": [round(v, 2) for v in os.getloadavg()], "rounds": options.rounds,
            "repeats": options.repeats, "mlp_repeats": options.mlp_repeats, "budget_ms": options.budget_ms,
            "quick": options.quick}


def show(value: object, width: int = 11) -> str:
    return ("-" if value is None else str(value)).rjust(width)


COLUMNS = {"tfjs 1t": "tfjs_wasm_1_thread", "tfjs thr": "tfjs_wasm_threaded_build", "kern JS": "kernel_js_simd128",
           "relax JS": "kernel_js_relaxed", "wk alone": "worker_kernel_standalone",
           "wk pyod": "worker_kernel_pyodide_module", "ctypes": "pyodide_ctypes_kernel", "eager": "pyodide_eager",
           "graph": "pyodide_graph", "t1/kern": "ratio_tfjs1_over_kernel_js", "t1/eager": "ratio_tfjs1_over_eager",
           "t1/graph": "ratio_tfjs1_over_graph", "tthr/eag": "ratio_tfjs_threaded_over_eager"}


def print_table(setup: dict, gemms: list[dict], mlp: dict, profile: dict) -> None:
    print(f"\nwebflow vs TensorFlow.js {setup['tfjs']} ({setup['tfjs_backend']}, SIMD {setup['tfjs_simd']}; its "
          f"threaded build: {setup['tfjs_threads']} thread(s)) in headless Chromium; webflow: Pyodide "
          f"{setup['pyodide_python']}, {setup['webflow_backend']} ({setup['webflow_wasm_variant']}), one thread.")
    print(f"Load average before {setup['load_average_before']}, after {setup['load_average_after']} (2 shared "
          "cores: compare ratios, not absolute times). Ratios: tfjs time / webflow time (above 1: webflow faster).")
    print("\nGEMM C = A B, float32, ms per product. kern/relax JS: webflow's kernels called from the page's JS; "
          "wk alone / wk pyod: from JS in the worker (a standalone module / Pyodide's copy); ctypes, eager, graph: "
          "from Python in Pyodide.")
    print("    n" + "".join(show(c, 9) for c in COLUMNS))
    for row in gemms:
        print(f"{row['n']:5d}" + "".join(show(row[k], 9) for k in COLUMNS.values()))
    print(f"\nTraining step, {mlp['model']}, batch {mlp['batch']}: webflow in Pyodide {mlp['webflow_pyodide']} ms, "
          f"tfjs-wasm {mlp['tfjs_wasm_1_thread']} ms on 1 thread (x{mlp['ratio_tfjs1_over_webflow']}), "
          f"{mlp['tfjs_wasm_threads']} ms threaded build (x{mlp['ratio_tfjs_threads_over_webflow']})")
    for way in ("eager", "graph"):
        print(f"\nProfile, {way} {profile['n']}x{profile['n']} product in Pyodide: "
              f"{profile[f'{way}_python_calls_per_product']} Python calls per product; by cumulative time "
              "(per product: calls, own ms, cumulative ms; inflated by cProfile)")
        for entry in profile[way]:
            print(f"  {entry['calls']:6} {entry['own_ms']:8.4f} {entry['cumulative_ms']:8.4f}  {entry['function']}")
    print()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="64,128,256,512", help="GEMM sizes n (n x n times n x n)")
    parser.add_argument("--steps", type=int, default=10, help="timed MLP steps per repeat (short: less preempted)")
    parser.add_argument("--mlp-repeats", type=int, default=15, help="MLP repeats per round (the best is kept)")
    parser.add_argument("--repeats", type=int, default=5, help="least GEMM batches per round (the best is kept)")
    parser.add_argument("--rounds", type=int, default=3, help="alternations of the page's and the worker's timings")
    parser.add_argument("--budget-ms", type=float, default=600, help="ms of timed GEMM calls per side and size")
    parser.add_argument("--quick", action="store_true", help="fewer steps, repeats and a smaller budget")
    parser.add_argument("--json", action="store_true", help="print only the JSON lines")
    args = parser.parse_args(argv)
    why = missing_requirement()
    if why:
        sys.exit(f"browser_vs_tfjs: {why}")
    if args.quick:
        args.steps, args.repeats, args.budget_ms = min(args.steps, 5), min(args.repeats, 3), min(args.budget_ms, 150)
        args.mlp_repeats = min(args.mlp_repeats, 5)
        args.rounds = min(args.rounds, 2)
    load_before = os.getloadavg()
    sizes = [int(n) for n in args.sizes.split(",")]
    figures = measure(sizes, args.budget_ms, args.repeats, args.steps, args.mlp_repeats, args.rounds)
    setup, gemms, mlp = setup_row(figures, load_before, args), gemm_rows(figures), mlp_row(figures, args.steps)
    profile = profile_row(figures)
    if not args.json:
        print_table(setup, gemms, mlp, profile)
    for row in (setup, *gemms, mlp, profile):
        print(json.dumps(row))


if __name__ == "__main__":
    main()
