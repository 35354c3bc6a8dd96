"""The char-RNN page in headless Chromium: training steps/s and characters/s of its LSTM, webflow (TF1 code in
Pyodide, wasm kernels, in the page's Web Worker) next to TensorFlow.js's wasm backend training the same LSTM.

    make site && python benchmarks/browser_char_rnn.py [--steps 60] [--json]

Needs site/_build (`make site`), /usr/bin/chromium + Python playwright, and npm packages
@tensorflow/tfjs + @tensorflow/tfjs-backend-wasm 4.22 in benchmarks/wasm/node_modules (`npm ci` there).
Everything is served from 127.0.0.1 (site/_build at /, tfjs's dist files at /tfjs/); no other request is let out.

The model on both sides is site/demo/char_rnn_model.py's (sizes read from the worker's "ready" message): an
embedding, one LSTMCell layer unrolled over num_steps (gates = [x, h] @ kernel + bias, split i, j, f, o, forget
bias 1), a softmax layer, the mean sparse cross-entropy, gradients clipped to a global norm of 5, Adam. Both train
on the page's Shakespeare excerpt with char_lm_model.batches' windows. webflow: the page's own training run
(`?steps=N`, the worker's summed Session.run time, samples not counted). tfjs-wasm: `tf.variableGrads` +
clipping + `applyGradients` + the loss read back (the embedding lookup as a one-hot matMul: tfjs-wasm has no
kernel for gather's gradient), on the page's main thread (SIMD, one thread: the page is not
cross-origin isolated), after 3 warm-up steps. Noisy on a shared machine: report `uptime` with the numbers.
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

TFJS_PAGE = """<!doctype html><meta charset="utf-8"><title>tfjs-wasm char-LSTM</title>
<script src="/tfjs/tfjs/dist/tf.min.js"></script>
<script src="/tfjs/tfjs-backend-wasm/dist/tf-backend-wasm.min.js"></script>
<script>
// char_rnn_model.py's LSTM in TensorFlow.js: same sizes, cell, loss, clipping and optimizer.
function windows(ids, batch, steps, k) {   // char_lm_model.batches: row r reads at r * stride + offset
  const stride = Math.floor((ids.length - 1) / batch);
  const offset = (k * steps) % Math.max(1, stride - steps);
  const x = [], y = [];
  for (let r = 0; r < batch; r++) {
    const at = r * stride + offset;
    x.push(ids.slice(at, at + steps)); y.push(ids.slice(at + 1, at + steps + 1));
  }
  return [x, y];
}
async function timeTfjsCharLstm(info, steps) {
  tf.wasm.setWasmPaths("/tfjs/tfjs-backend-wasm/dist/");
  await tf.setBackend("wasm");
  await tf.ready();
  const text = await (await fetch("/demo/char_rnn_text.txt")).text();
  const chars = Array.from(new Set(text)).sort();
  const index = new Map(chars.map((c, i) => [c, i]));
  const ids = Array.from(text, (c) => index.get(c));
  const [V, E, H, B, T] = [chars.length, info.embedding_size, info.hidden_size, info.batch_size, info.num_steps];
  const u = (shape, seed) => tf.variable(tf.randomUniform(shape, -0.1, 0.1, "float32", seed));
  const vars = {embedding: u([V, E], 1), kernel: u([E + H, 4 * H], 2), bias: tf.variable(tf.zeros([4 * H])),
                softmax_w: u([H, V], 3), softmax_b: tf.variable(tf.zeros([V]))};
  const optimizer = tf.train.adam(info.learning_rate);
  const loss = (x, y) => {
    // The embedding lookup as one-hot @ embedding: tfjs-wasm has no UnsortedSegmentSum, gather's gradient.
    const embedded = tf.matMul(tf.oneHot(tf.reshape(x, [-1]), V), vars.embedding);
    const inputs = tf.unstack(tf.reshape(embedded, [B, T, E]), 1);   // T tensors [B, E]
    let c = tf.zeros([B, H]), h = tf.zeros([B, H]);
    const outputs = [];
    for (const input of inputs) {
      const [i, j, f, o] = tf.split(tf.add(tf.matMul(tf.concat([input, h], 1), vars.kernel), vars.bias), 4, 1);
      c = tf.add(tf.mul(c, tf.sigmoid(tf.add(f, 1))), tf.mul(tf.sigmoid(i), tf.tanh(j)));
      h = tf.mul(tf.sigmoid(o), tf.tanh(c));
      outputs.push(h);
    }
    const logits = tf.add(tf.matMul(tf.concat(outputs, 0), vars.softmax_w), vars.softmax_b);  // time-major rows
    const labels = tf.oneHot(tf.reshape(tf.transpose(y), [-1]), V);
    return tf.losses.softmaxCrossEntropy(labels, logits);
  };
  const step = (k) => tf.tidy(() => {
    const [xs, ys] = windows(ids, B, T, k);
    const x = tf.tensor2d(xs, [B, T], "int32"), y = tf.tensor2d(ys, [B, T], "int32");
    const { value, grads } = tf.variableGrads(() => loss(x, y), Object.values(vars));
    const norm = Math.sqrt(tf.addN(Object.values(grads).map((g) => tf.sum(tf.square(g)))).dataSync()[0]);
    const scale = info.max_grad_norm / Math.max(norm, info.max_grad_norm);   // tf.clip_by_global_norm
    const clipped = {};
    for (const [name, g] of Object.entries(grads)) clipped[name] = tf.mul(g, scale);
    optimizer.applyGradients(clipped);
    return value.dataSync()[0];
  });
  const first = step(0);
  for (let k = 1; k < 3; k++) step(k);   // warm-up
  const start = performance.now();
  let last = first;
  for (let k = 3; k < 3 + steps; k++) last = step(k);
  const ms = (performance.now() - start) / steps;
  return {ms_per_step: ms, first_loss: first, last_loss: last, backend: tf.getBackend(),
          simd: await tf.env().getAsync("WASM_HAS_SIMD_SUPPORT"), version: tf.version.tfjs};
}
</script>
"""


def time_webflow(page, origin: str, steps: int) -> dict:
    """The page's own training run of `steps` steps; returns ready info, ms per step and the losses."""
    started = time.perf_counter()
    page.goto(f"{origin}/demo/char_rnn.html?steps={steps}&chunk=5&sample_every={10 * steps}")
    page.wait_for_function("document.body.dataset.state === 'ready'", timeout=240_000)
    load_to_ready = time.perf_counter() - started
    page.click("#train")
    page.wait_for_function("document.body.dataset.state === 'trained'", timeout=600_000)
    ready, trained = page.evaluate("window.charRnnDemo.ready"), page.evaluate("window.charRnnDemo.trained")
    progress = page.evaluate("window.charRnnDemo.progress")
    later = progress[1:]   # the first chunk includes V8's and Pyodide's warm-up
    ms = 1e3 * sum(chunk["seconds"] for chunk in later) / sum(len(chunk["losses"]) for chunk in later)
    losses = [loss for chunk in progress for loss in chunk["losses"]]
    return {"info": ready["info"], "load_to_ready_s": round(load_to_ready, 2), "ms_per_step": ms,
            "first_loss": losses[0], "last_loss": losses[-1], "run_ms": trained["train_ms"]}


def run(steps: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="wf-bench-") as pages:
        with open(os.path.join(pages, "tfjs.html"), "w") as file:
            file.write(TFJS_PAGE)
        with serve({"/": BUILD, "/tfjs/": TFJS, "/bench/": pages}) as origin, chromium_page(origin) as (page, log):
            webflow = time_webflow(page, origin, steps)
            info = webflow["info"]
            page.goto(origin + "/bench/tfjs.html")
            tfjs = page.evaluate("([info, n]) => timeTfjsCharLstm(info, n)",
                                 [{**info, "max_grad_norm": 5.0}, steps])
            if log.foreign or log.errors:
                raise RuntimeError(f"requests left the origin: {log.foreign}; errors: {log.errors}")
    chars = info["batch_size"] * info["num_steps"]
    return {"benchmark": "browser_char_rnn", "browser": "chromium (headless)", "load": os.getloadavg()[0],
            "model": f"char LSTM 1x{info['hidden_size']}, embedding {info['embedding_size']}, "
                     f"vocab {info['vocab_size']}, Adam {info['learning_rate']}, clip 5",
            "batch": info["batch_size"], "num_steps": info["num_steps"], "timed_steps": steps,
            "load_to_ready_s": webflow["load_to_ready_s"],
            "webflow_ms_per_step": round(webflow["ms_per_step"], 1),
            "webflow_steps_per_s": round(1e3 / webflow["ms_per_step"], 2),
            "webflow_chars_per_s": round(chars * 1e3 / webflow["ms_per_step"]),
            "webflow_loss": [round(webflow["first_loss"], 3), round(webflow["last_loss"], 3)],
            "tfjs_wasm_ms_per_step": round(tfjs["ms_per_step"], 1),
            "tfjs_wasm_steps_per_s": round(1e3 / tfjs["ms_per_step"], 2),
            "tfjs_wasm_chars_per_s": round(chars * 1e3 / tfjs["ms_per_step"]),
            "tfjs_loss": [round(tfjs["first_loss"], 3), round(tfjs["last_loss"], 3)], "tfjs": tfjs,
            "ratio_tfjs_over_webflow": round(tfjs["ms_per_step"] / webflow["ms_per_step"], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60, help="timed training steps on each side")
    parser.add_argument("--json", action="store_true", help="print only the JSON line")
    args = parser.parse_args()
    for missing, reason in ((unavailable_reason(), None),
                            (not os.path.exists(os.path.join(BUILD, "demo", "char_rnn.html")), "run `make site` first"),
                            (not os.path.isdir(os.path.join(TFJS, "tfjs-backend-wasm")),
                             "run `npm ci` in benchmarks/wasm")):
        if missing:
            sys.exit(f"browser_char_rnn: {reason or missing}")
    result = run(args.steps)
    print(json.dumps(result))
    if not args.json:
        print(f"\nchar-RNN page in headless Chromium (load average {result['load']:.1f}): {result['model']}, "
              f"batch {result['batch']} x {result['num_steps']} steps: webflow in Pyodide "
              f"{result['webflow_steps_per_s']} steps/s ({result['webflow_chars_per_s']} chars/s), tfjs-wasm "
              f"{result['tfjs_wasm_steps_per_s']} steps/s ({result['tfjs_wasm_chars_per_s']} chars/s); "
              f"tfjs ms / webflow ms = {result['ratio_tfjs_over_webflow']}")


if __name__ == "__main__":
    main()
