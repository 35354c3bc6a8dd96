"""The MNIST demo page in headless Chromium: load -> ready time, and one training step of its model,
webflow (TF1 code in Pyodide, wasm kernels, in the page's worker) next to TensorFlow.js's wasm backend.

    make site && python benchmarks/browser_demo.py [--steps 50] [--repeats 3] [--json]

Needs site/_build (`make site`), /usr/bin/chromium + Python playwright, and npm packages
@tensorflow/tfjs + @tensorflow/tfjs-backend-wasm 4.22 in benchmarks/wasm/node_modules (`npm ci` there).
Everything is served from 127.0.0.1 (site/_build at /, tfjs's dist files at /tfjs/); no other request is let out.

The step timed on both sides: the demo's model (site/demo/mnist_model.py: SIZES, BATCH and LEARNING_RATE are
read from the worker's "ready" message), uint8 pixels cast and scaled to [0, 1] inside the step, ReLU
hidden layer, softmax cross-entropy (mean), one Adam update, and the loss read back. webflow times it in
Python inside the worker (`MnistDemo.time_steps`, one fixed batch); tfjs-wasm times
`optimizer.minimize` + `dataSync` on the page's main thread (SIMD, one thread: the page is not
cross-origin isolated, so the threaded build cannot load). Best of the repeats; noisy on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests", "browser"))
from chromium import chromium_page, unavailable_reason  # noqa: E402
from static_server import serve  # noqa: E402

BUILD = os.path.join(REPO, "site", "_build")
TFJS = os.path.join(REPO, "benchmarks", "wasm", "node_modules", "@tensorflow")

TFJS_PAGE = """<!doctype html><meta charset="utf-8"><title>tfjs-wasm step</title>
<script src="/tfjs/tfjs/dist/tf.min.js"></script>
<script src="/tfjs/tfjs-backend-wasm/dist/tf-backend-wasm.min.js"></script>
<script>
// The demo's model in TensorFlow.js: the same layers, loss, optimizer and batch as mnist_model.py.
async function timeTfjsStep(sizes, batch, learningRate, steps, repeats) {
  tf.wasm.setWasmPaths("/tfjs/tfjs-backend-wasm/dist/");
  await tf.setBackend("wasm");
  await tf.ready();
  const variables = [];
  for (let l = 0; l < sizes.length - 1; l++) {
    const limit = Math.sqrt(6 / (sizes[l] + sizes[l + 1]));
    variables.push(tf.variable(tf.randomUniform([sizes[l], sizes[l + 1]], -limit, limit, "float32", 1 + l)));
    variables.push(tf.variable(tf.zeros([sizes[l + 1]])));
  }
  const values = Int32Array.from({length: batch * sizes[0]}, (_, i) => (i * 37) % 256);
  const pixels = tf.tensor2d(values, [batch, sizes[0]], "int32");
  const labels = tf.oneHot(tf.tensor1d(Int32Array.from({length: batch}, (_, i) => (i * 7) % 10), "int32"), 10);
  const optimizer = tf.train.adam(learningRate);
  const step = () => {
    const cost = optimizer.minimize(() => {
      let hidden = tf.div(tf.cast(pixels, "float32"), 255);
      for (let l = 0; l < variables.length / 2; l++) {
        const z = tf.add(tf.matMul(hidden, variables[2 * l]), variables[2 * l + 1]);
        hidden = l < variables.length / 2 - 1 ? tf.relu(z) : z;
      }
      return tf.losses.softmaxCrossEntropy(labels, hidden);
    }, true, variables);
    const value = cost.dataSync()[0];
    cost.dispose();
    return value;
  };
  const first = step();
  for (let i = 0; i < steps; i++) step();  // warm-up, as on webflow's side
  let best = Infinity, last = first;
  for (let r = 0; r < repeats; r++) {
    const start = performance.now();
    for (let i = 0; i < steps; i++) last = step();
    best = Math.min(best, (performance.now() - start) / steps);
  }
  return {ms_per_step: best, first_loss: first, last_loss: last, backend: tf.getBackend(),
          simd: await tf.env().getAsync("WASM_HAS_SIMD_SUPPORT"), version: tf.version.tfjs};
}
</script>
"""


def run(steps: int, repeats: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="wf-bench-") as pages:
        with open(os.path.join(pages, "tfjs.html"), "w") as file:
            file.write(TFJS_PAGE)
        mounts = {"/": BUILD, "/tfjs/": TFJS, "/bench/": pages}
        with serve(mounts) as origin, chromium_page(origin) as (page, log):
            started = time.perf_counter()
            page.goto(origin + "/demo/mnist.html")
            page.wait_for_function("document.body.dataset.state === 'ready'", timeout=240_000)
            load_to_ready = time.perf_counter() - started
            ready = page.evaluate("window.mnistDemo.ready")
            webflow = []
            for _ in range(repeats + 1):   # the first is a warm-up (V8 tiers the wasm and Pyodide up)
                page.evaluate("delete window.mnistDemo.timing; "
                              f"window.mnistDemo.worker.postMessage({{type: 'time_steps', count: {steps}}})")
                page.wait_for_function("window.mnistDemo.timing !== undefined", timeout=300_000)
                webflow.append(page.evaluate("window.mnistDemo.timing.ms_per_step"))
            webflow = webflow[1:]
            info = ready["info"]
            page.goto(origin + "/bench/tfjs.html")
            tfjs = page.evaluate("([s, b, lr, n, r]) => timeTfjsStep(s, b, lr, n, r)",
                                 [info["sizes"], info["batch"], info["learning_rate"], steps, repeats])
            if log.foreign or log.errors:
                raise RuntimeError(f"requests left the origin: {log.foreign}; errors: {log.errors}")
    best = min(webflow)
    return {"benchmark": "browser_demo", "browser": "chromium (headless)", "unit": "ms",
            "load_to_ready_s": round(load_to_ready, 2), "worker_timings_ms": ready["timings"],
            "model": f"{'-'.join(map(str, info['sizes']))} relu MLP, softmax xent, Adam", "batch": info["batch"],
            "webflow_pyodide_wasm_ms_per_step": round(best, 3), "webflow_all_repeats": [round(v, 3) for v in webflow],
            "tfjs_wasm_ms_per_step": round(tfjs["ms_per_step"], 3), "tfjs": tfjs,
            "ratio_tfjs_over_webflow": round(tfjs["ms_per_step"] / best, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50, help="timed steps per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="repeats (the best is kept)")
    parser.add_argument("--json", action="store_true", help="print only the JSON line")
    args = parser.parse_args()
    for missing, reason in ((unavailable_reason(), None),
                            (not os.path.exists(os.path.join(BUILD, "demo", "mnist.html")), "run `make site` first"),
                            (not os.path.isdir(os.path.join(TFJS, "tfjs-backend-wasm")),
                             "run `npm ci` in benchmarks/wasm")):
        if missing:
            sys.exit(f"browser_demo: {reason or missing}")
    result = run(args.steps, args.repeats)
    print(json.dumps(result))
    if not args.json:
        print(f"\nMNIST demo in headless Chromium (noisy on a shared machine): "
              f"load -> ready {result['load_to_ready_s']} s; "
              f"one training step of {result['model']}, batch {result['batch']}: webflow in Pyodide "
              f"{result['webflow_pyodide_wasm_ms_per_step']} ms, tfjs-wasm {result['tfjs_wasm_ms_per_step']} ms "
              f"(tfjs / webflow = x{result['ratio_tfjs_over_webflow']})")


if __name__ == "__main__":
    main()
