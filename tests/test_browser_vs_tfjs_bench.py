"""benchmarks/browser_vs_tfjs.py without a browser: its Pyodide timing module run in CPython with tiny counts (the
products it times are right, eager stays eager after the MNIST demo switches to TF1 graph mode), its rows and
ratios from made-up figures, and the report section make_report.py writes from its JSON lines. No timing is
asserted (benchmarks are scripts; PLATFORM.md); the browser run itself is `make bench` / the script."""

from __future__ import annotations

import argparse
import json
import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(REPO, "benchmarks", "browser_bench"), os.path.join(REPO, "site", "demo"),
                os.path.join(REPO, "benchmarks")]

import browser_vs_tfjs  # noqa: E402
import make_report  # noqa: E402
import pyodide_timings  # noqa: E402
import run_all  # noqa: E402


def naive_product(a: list, b: list, n: int) -> list:
    return [sum(a[i * n + p] * b[p * n + j] for p in range(n)) for i in range(n) for j in range(n)]


def test_the_timed_products_are_the_product_of_the_inputs():
    from webflow.backends.c import library

    if not library.available():
        pytest.skip(library.unavailable_reason())
    n = 8
    calls = pyodide_timings.gemm_calls(n)
    expected = naive_product(list(pyodide_timings.random_floats(n * n, 1 + n)),
                             list(pyodide_timings.random_floats(n * n, 2 + n)), n)
    for way in ("eager", "graph"):
        got = [float(v) for row in (calls[way]().numpy() if way == "eager" else calls[way]()).tolist() for v in row]
        assert got == pytest.approx(expected, abs=1e-5), way


def test_timing_jobs_run_and_eager_survives_the_demo_switching_to_graph_mode():
    import webflow as wf

    mlp = json.loads(pyodide_timings.run_json('{"what": "mlp", "steps": 1, "repeats": 1}'))
    assert mlp["sizes"] == [784, 128, 10] and mlp["batch"] == 100 and mlp["ms_per_step"] > 0
    assert not wf.executing_eagerly()   # MnistDemo called tf.disable_v2_behavior()
    rows = json.loads(pyodide_timings.run_json('{"what": "gemm", "sizes": [8, 16], "budget_ms": 3, "repeats": 1}'))
    assert [row["n"] for row in rows] == [8, 16]
    assert all(row[f"{way}_ms"] > 0 for row in rows for way in ("kernel", "eager", "graph"))
    assert not wf.executing_eagerly()   # the mode it found is restored
    found = json.loads(pyodide_timings.run_json('{"what": "profile", "n": 8, "calls": 3, "top": 4}'))
    assert found["eager_python_calls_per_product"] > 1 and len(found["graph"]) == 4
    assert any("matmul" in entry["function"] for entry in found["eager"])


FIGURES = {
    "one_thread": {"version": "4.22.0", "backend": "wasm", "simd": True, "multithread": False, "threads": 1,
                   "cross_origin_isolated": True},
    "threaded": {"version": "4.22.0", "backend": "wasm", "simd": True, "multithread": True, "threads": 1,
                 "cross_origin_isolated": True},
    "ready": {"backend": "WASM-SIMD", "wasm_variant": "relaxed-simd", "python": "3.14.2"}, "boot_s": 7.0,
    "kernels": [{"n": 64, "tfjs_ms": 0.02, "kernel_simd128_ms": 0.011, "kernel_relaxed_ms": 0.01,
                 "kernel_relaxed_max_error": 1e-7}],
    "pyodide_gemm": [{"n": 64, "kernel_ms": 0.015, "eager_ms": 0.04, "graph_ms": 0.05, "js_direct_ms": 0.0101,
                      "js_standalone_ms": 0.0102}],
    "threaded_gemm": [{"n": 64, "tfjs_ms": 0.08}],
    "mlp": {"sizes": [784, 128, 10], "batch": 100, "learning_rate": 0.002, "ms_per_step": 4.0, "all_ms": [4.0, 5.0]},
    "tfjs_mlp": {"ms_per_step": 8.0, "first_loss": 2.3, "last_loss": 1.9, "all_ms": [8.0]},
    "threaded_mlp": None,
    "profile": {"n": 64, "calls": 200, "eager_python_calls_per_product": 112.0, "graph_python_calls_per_product": 42.0,
                "eager": [{"function": "matmul_ops.py:106 matmul", "calls": 1.0, "own_ms": 0.003,
                           "cumulative_ms": 0.04}], "graph": []},
}


def test_rows_put_tfjs_time_over_webflow_time_and_take_the_kernel_pyodide_runs():
    (row,) = browser_vs_tfjs.gemm_rows(FIGURES)
    assert row["ratio_tfjs1_over_kernel_js"] == 2.0         # 0.02 / 0.01: the relaxed kernel, which Pyodide loads
    assert row["ratio_tfjs1_over_eager"] == 0.5             # 0.02 / 0.04: webflow slower
    assert row["ratio_tfjs_threaded_over_eager"] == 2.0
    assert row["gflops_kernel_js"] == round(2 * 64**3 / 0.01 / 1e6, 1)
    mlp = browser_vs_tfjs.mlp_row(FIGURES, steps=10)
    assert mlp["ratio_tfjs1_over_webflow"] == 2.0 and mlp["ratio_tfjs_threads_over_webflow"] is None
    assert browser_vs_tfjs.best_rows([[{"n": 1, "a_ms": 3.0, "b_ms": None}], [{"n": 1, "a_ms": 2.0, "b_ms": 5.0}]]) \
        == [{"n": 1, "a_ms": 2.0, "b_ms": 5.0}]


def test_make_report_writes_the_section_from_the_json_lines(tmp_path):
    options = argparse.Namespace(rounds=1, repeats=1, mlp_repeats=1, budget_ms=1, quick=True)
    rows = [browser_vs_tfjs.setup_row(FIGURES, (1.0, 2.0, 3.0), options), *browser_vs_tfjs.gemm_rows(FIGURES),
            browser_vs_tfjs.mlp_row(FIGURES, 10), browser_vs_tfjs.profile_row(FIGURES)]
    (tmp_path / "browser_vs_tfjs.log").write_text("noise\n" + "\n".join(json.dumps(row) for row in rows) + "\n")
    make_report.write_json(str(tmp_path / "status.json"), {"browser_vs_tfjs": {"status": "ok"}})
    text = make_report.markdown(make_report.build(str(tmp_path), None, None))
    section = text.split("## browser_vs_tfjs", 1)[1]
    assert "load_average_before [1.0, 2.0, 3.0]" in section
    assert "ratio_tfjs1_over_eager" in section and "| 64 |" in section
    assert "ratio_tfjs1_over_webflow" in section
    assert "112.0 Python calls per product" in section and "matmul_ops.py:106 matmul 0.04" in section


def test_run_all_plans_it_and_names_what_is_missing(monkeypatch):
    args = argparse.Namespace(tf_python=None, torch_python=None, data=None, out="/tmp")
    monkeypatch.setattr(run_all.shutil, "which", lambda name: None)
    plan = {name: (command, missing) for name, command, missing, _ in run_all.plan(args)}
    command, missing = plan["browser_vs_tfjs"]
    assert command[1] == "browser_vs_tfjs.py" and "chromium" in missing
