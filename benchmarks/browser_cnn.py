"""The MNIST page's conv net in headless Chromium: webflow (TF1 code in Pyodide, wasm kernels, in the page's
worker) next to TensorFlow.js's wasm backend training the same model on the same data.

    make site && python benchmarks/browser_cnn.py [--steps 30] [--repeats 3] [--no-full] [--json]

Needs site/_build (`make site`), /usr/bin/chromium + Python playwright, and npm packages
@tensorflow/tfjs + @tensorflow/tfjs-backend-wasm 4.22 in benchmarks/wasm/node_modules (`npm ci` there).
Everything is served from 127.0.0.1 (site/_build at /, with the conv net's 20,000 training images in
/demo/mnist_cnn/, tfjs's dist files at /tfjs/, the MNIST sample shipped in the wheel at /sample/, whose 1,000
test images both sides are scored on); no other request is let out.

The model, on both sides, is the conv net of TensorFlow.js's MNIST example (site/demo/mnist_model.py's cnn_logits):
conv 5x5x8 ReLU -> max pool 2x2 -> conv 5x5x16 ReLU -> max pool 2x2 -> dense 10 softmax, varianceScaling weights,
categorical cross-entropy, batch 64, Adam (epsilon 1e-8, TF1's) from 0.003 with the learning rate cosine-decayed to
0 over the page's 3,125 steps (tfjs: the optimizer's learningRate set before each step); uint8 pixels scaled to [0,
1] in the step. tfjs builds it with the Layers API as its example does and trains with `model.trainOnBatch` (one
optimizer step, loss read back); tfjs-wasm 4.22 has no Conv2DBackpropFilter kernel, so the page registers one made
of the backend's transposes + conv2d (checked against tfjs-cpu's kernel), and also times the step with the conv
layers frozen (no filter gradient: a lower bound of tfjs-wasm's step); tfjs-cpu is timed briefly.
webflow runs `MnistDemo.time_steps` in its worker (one Session.run of the train op and the loss).
Two figures: ms per step on one fixed batch (best of the repeats), and the whole
training of the page (the same number of steps over the 20,000 training images, shuffled each epoch) with the
test accuracy on the sample's 1,000 test images. tfjs runs on the page's main thread, SIMD, one thread (the
page is not cross-origin isolated, so tfjs's threaded wasm cannot load); webflow's kernels are one thread too.
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
SAMPLE = os.path.join(REPO, "webflow", "datasets", "sample")

TFJS_PAGE = """<!doctype html><meta charset="utf-8"><title>tfjs-wasm conv net</title>
<script src="/tfjs/tfjs/dist/tf.min.js"></script>
<script src="/tfjs/tfjs-backend-wasm/dist/tf-backend-wasm.min.js"></script>
<script>
// The MNIST sample's IDX files (gzip) -> the uint8 payload after the header.
async function idx(path, header) {
  const body = (await fetch(path)).body.pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(body).arrayBuffer()).subarray(header);
}

// TensorFlow.js's MNIST example model (tfjs-examples/mnist, "Training on images").
// frozen: the conv layers' weights not trained (no filter gradient at all): a lower bound of tfjs-wasm's step.
function exampleModel(learningRate, frozen = false) {
  const model = tf.sequential();
  model.add(tf.layers.conv2d({inputShape: [28, 28, 1], kernelSize: 5, filters: 8, strides: 1,
                              activation: "relu", kernelInitializer: "varianceScaling", trainable: !frozen}));
  model.add(tf.layers.maxPooling2d({poolSize: [2, 2], strides: [2, 2]}));
  model.add(tf.layers.conv2d({kernelSize: 5, filters: 16, strides: 1, activation: "relu",
                              kernelInitializer: "varianceScaling", trainable: !frozen}));
  model.add(tf.layers.maxPooling2d({poolSize: [2, 2], strides: [2, 2]}));
  model.add(tf.layers.flatten());
  model.add(tf.layers.dense({units: 10, kernelInitializer: "varianceScaling", activation: "softmax"}));
  model.compile({optimizer: tf.train.adam(learningRate, 0.9, 0.999, 1e-8), loss: "categoricalCrossentropy",
                 metrics: ["accuracy"]});
  return model;
}

// tfjs-backend-wasm 4.22 has no Conv2DBackpropFilter kernel, so the example cannot train on it as shipped.
// This registers one made of the backend's own kernels (stride 1, VALID, as this model needs): with x as
// [Cin, H, W, N] images and dy as an [OH, OW, N, Cout] filter, a VALID conv2d gives [Cin, KH, KW, Cout]
// = sum over n, oh, ow of x[n, oh + kh, ow + kw, ci] * dy[n, oh, ow, co], the filter's gradient transposed.
// It is slow (tfjs-wasm's conv2d with a 24x24 window: most of the step), so the benchmark also times the step with
// the conv layers frozen (no filter gradient at all): a lower bound of what a native kernel would give.
// (Per tap, a slice of x transposed and matMul'd with dy, 25 taps stacked, was slower still: 94 vs 62 ms a step.)
function registerWasmFilterGradient() {
  if (tf.getKernel("Conv2DBackpropFilter", "wasm")) return false;
  const kernelFunc = ({inputs, backend, attrs}) => {
    const {strides, pad, dilations} = attrs;
    const ones = (v) => v === undefined || v === 1 || (Array.isArray(v) && v.every((d) => d === 1));
    if (!ones(strides) || !ones(dilations) || pad !== "valid") throw new Error("filter gradient: stride 1, VALID only");
    const out = tf.tidy(() => {
      const x = tf.engine().makeTensorFromTensorInfo(inputs.x), dy = tf.engine().makeTensorFromTensorInfo(inputs.dy);
      const grad = tf.conv2d(tf.transpose(x, [3, 1, 2, 0]), tf.transpose(dy, [1, 2, 0, 3]), 1, "valid");
      return tf.transpose(grad, [1, 2, 0, 3]);
    });
    backend.incRef(out.dataId);   // the engine's output keeps the data once this tensor is gone (as Reshape does)
    const info = {dataId: out.dataId, shape: out.shape, dtype: out.dtype};
    out.dispose();
    return info;
  };
  tf.registerKernel({kernelName: "Conv2DBackpropFilter", backendName: "wasm", kernelFunc});
  return true;
}

// The shim's filter gradient next to tfjs-cpu's own kernel on the same numbers: the largest difference.
async function checkFilterGradient() {
  const x = tf.randomNormal([3, 12, 12, 4], 0, 1, "float32", 7), w = tf.randomNormal([5, 5, 4, 6], 0, 1, "float32", 8);
  const filterGrad = () => tf.grad((f) => tf.sum(tf.square(tf.conv2d(x, f, 1, "valid"))))(w);
  const onWasm = await filterGrad().data();
  await tf.setBackend("cpu");
  const onCpu = await filterGrad().data();
  await tf.setBackend("wasm");
  return Math.max(...onWasm.map((v, i) => Math.abs(v - onCpu[i]) / (1 + Math.abs(onCpu[i]))));
}

// One training step as the example's: uint8 pixels -> [0, 1] floats, one-hot labels, trainOnBatch.
function trainStep(model, images, labels, indices) {
  const batch = new Uint8Array(indices.length * 784), classes = new Int32Array(indices.length);
  indices.forEach((index, row) => { batch.set(images.subarray(784 * index, 784 * index + 784), 784 * row);
                                    classes[row] = labels[index]; });
  return tf.tidy(() => [tf.div(tf.cast(tf.tensor4d(batch, [indices.length, 28, 28, 1], "int32"), "float32"), 255),
                        tf.oneHot(tf.tensor1d(classes, "int32"), 10)]);
}

async function benchTfjs(backendName, batch, learningRate, steps, repeats, fullSteps) {
  tf.wasm.setWasmPaths("/tfjs/tfjs-backend-wasm/dist/");
  await tf.setBackend(backendName);
  await tf.ready();
  const shim = backendName === "wasm" && registerWasmFilterGradient();
  const shimError = shim ? await checkFilterGradient() : null;
  const images = await idx("/demo/mnist_cnn/train-images-idx3-ubyte.gz", 16);
  const labels = await idx("/demo/mnist_cnn/train-labels-idx1-ubyte.gz", 8);
  const testImages = await idx("/sample/t10k-images-idx3-ubyte.gz", 16);
  const testLabels = await idx("/sample/t10k-labels-idx1-ubyte.gz", 8);
  let model = exampleModel(learningRate);
  const fixed = Array.from({length: batch}, (_, i) => i);
  const once = async (indices) => {
    const [xs, ys] = trainStep(model, images, labels, indices);
    const loss = await model.trainOnBatch(xs, ys);   // resolves once the loss is read back
    xs.dispose(); ys.dispose();
    return Array.isArray(loss) ? loss[0] : loss;
  };
  for (let i = 0; i < steps; i++) await once(fixed);   // warm-up, as on webflow's side
  let best = Infinity;
  for (let r = 0; r < repeats; r++) {
    const start = performance.now();
    for (let i = 0; i < steps; i++) await once(fixed);
    best = Math.min(best, (performance.now() - start) / steps);
  }
  let frozenBest = null;
  if (shim) {   // the same timing with the conv layers frozen: how much the shimmed filter gradient costs
    model = exampleModel(learningRate, true);
    for (let i = 0; i < steps; i++) await once(fixed);
    frozenBest = Infinity;
    for (let r = 0; r < repeats; r++) {
      const start = performance.now();
      for (let i = 0; i < steps; i++) await once(fixed);
      frozenBest = Math.min(frozenBest, (performance.now() - start) / steps);
    }
  }
  const result = {ms_per_step: best, ms_per_step_conv_frozen: frozenBest,
                  backend: tf.getBackend(), version: tf.version.tfjs, filter_gradient_shim: shim,
                  shim_max_relative_difference_vs_cpu: shimError,
                  simd: await tf.env().getAsync("WASM_HAS_SIMD_SUPPORT")};
  if (!fullSteps) return result;
  model = exampleModel(learningRate);   // a fresh model: the page's whole training, then the test images
  let order = [], seed = 1;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const start = performance.now();
  let firstLoss = null, lastLoss = null;
  for (let step = 0; step < fullSteps; step++) {
    // tf.train.cosine_decay of the page's graph: the rate of step t (0-based) is lr * (1 + cos(pi * t / steps)) / 2
    model.optimizer.learningRate = learningRate * 0.5 * (1 + Math.cos(Math.PI * step / fullSteps));
    if (order.length < batch) {
      order = Array.from({length: labels.length}, (_, i) => i);
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [order[i], order[j]] = [order[j], order[i]];
      }
    }
    lastLoss = await once(order.splice(0, batch));
    if (firstLoss === null) firstLoss = lastLoss;
  }
  result.train_ms = performance.now() - start;
  const [xs, ys] = trainStep(model, testImages, testLabels, Array.from({length: testLabels.length}, (_, i) => i));
  const [, accuracy] = model.evaluate(xs, ys, {batchSize: 500});
  result.test_accuracy = (await accuracy.data())[0];
  Object.assign(result, {full_steps: fullSteps, first_loss: firstLoss, last_loss: lastLoss});
  return result;
}
</script>
"""


def time_webflow(page, steps: int, repeats: int) -> list[float]:
    """ms per step of the worker's MnistDemo.time_steps, one figure per repeat after a warm-up repeat."""
    figures = []
    for _ in range(repeats + 1):   # the first is a warm-up (V8 tiers the wasm and Pyodide up)
        page.evaluate("delete window.mnistDemo.timing; "
                      f"window.mnistDemo.worker.postMessage({{type: 'time_steps', count: {steps}}})")
        page.wait_for_function("window.mnistDemo.timing !== undefined", timeout=300_000)
        figures.append(page.evaluate("window.mnistDemo.timing.ms_per_step"))
    return figures[1:]


def run(steps: int, repeats: int, full: bool, backends: tuple[str, ...] = ("wasm", "cpu")) -> dict:
    with tempfile.TemporaryDirectory(prefix="wf-bench-") as pages:
        with open(os.path.join(pages, "tfjs.html"), "w") as file:
            file.write(TFJS_PAGE)
        mounts = {"/": BUILD, "/tfjs/": TFJS, "/bench/": pages, "/sample/": SAMPLE}
        with serve(mounts) as origin, chromium_page(origin) as (page, log):
            page.goto(origin + "/demo/mnist.html?model=cnn")
            page.wait_for_function("document.body.dataset.state === 'ready'", timeout=240_000)
            info = page.evaluate("window.mnistDemo.ready.info")
            trained = None
            if full:
                page.click("#train")
                page.wait_for_function("document.body.dataset.state === 'trained'", timeout=600_000)
                trained = page.evaluate("window.mnistDemo.trained")
            webflow = time_webflow(page, steps, repeats)
            tfjs = {}
            for backend in backends:   # a fresh page each; tfjs-cpu (~0.7 s a step) is timed briefly, not trained
                page.goto(origin + "/bench/tfjs.html")
                wasm = backend == "wasm"
                tfjs[backend] = page.evaluate(
                    "([name, b, lr, n, r, f]) => benchTfjs(name, b, lr, n, r, f)",
                    [backend, info["batch"], info["learning_rate"], steps if wasm else 3, repeats if wasm else 1,
                     info["steps"] if full and wasm else 0])
            if log.foreign or log.errors:
                raise RuntimeError(f"requests left the origin: {log.foreign}; errors: {log.errors}")
    best = min(webflow)
    result = {"benchmark": "browser_cnn", "browser": "chromium (headless)", "unit": "ms",
              "model": info["description"] + f", Adam {info['learning_rate']} cosine decay", "batch": info["batch"],
              "webflow_pyodide_wasm_ms_per_step": round(best, 2), "webflow_all_repeats": [round(v, 2) for v in webflow],
              "tfjs": tfjs, "load": os.getloadavg()[0]}
    for backend, figures in tfjs.items():
        result[f"tfjs_{backend}_ms_per_step"] = round(figures["ms_per_step"], 2)
        result[f"ratio_tfjs_{backend}_over_webflow"] = round(figures["ms_per_step"] / best, 2)
    if tfjs.get("wasm", {}).get("ms_per_step_conv_frozen"):
        result["tfjs_wasm_ms_per_step_conv_frozen"] = round(tfjs["wasm"]["ms_per_step_conv_frozen"], 2)
    if trained:
        result["full_training"] = {"steps": info["steps"], "webflow_s": round(trained["train_ms"] / 1e3, 1),
                                   "webflow_test_accuracy": round(trained["accuracy"], 4)}
        result["full_training"]["tfjs_wasm_s"] = round(tfjs["wasm"]["train_ms"] / 1e3, 1)
        result["full_training"]["tfjs_wasm_test_accuracy"] = round(tfjs["wasm"]["test_accuracy"], 4)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30, help="timed steps per repeat")
    parser.add_argument("--repeats", type=int, default=3, help="repeats (the best is kept)")
    parser.add_argument("--no-full", action="store_true", help="skip the two whole trainings")
    parser.add_argument("--json", action="store_true", help="print only the JSON line")
    args = parser.parse_args()
    for missing, reason in ((unavailable_reason(), None),
                            (not os.path.exists(os.path.join(BUILD, "demo", "mnist.html")), "run `make site` first"),
                            (not os.path.isdir(os.path.join(TFJS, "tfjs-backend-wasm")),
                             "run `npm ci` in benchmarks/wasm")):
        if missing:
            sys.exit(f"browser_cnn: {reason or missing}")
    started = time.perf_counter()
    result = run(args.steps, args.repeats, not args.no_full)
    result["wall_s"] = round(time.perf_counter() - started, 1)
    print(json.dumps(result))
    if not args.json:
        print(f"\nMNIST conv net in headless Chromium (load average {result['load']:.1f}): one Adam step, batch "
              f"{result['batch']}: webflow in Pyodide {result['webflow_pyodide_wasm_ms_per_step']} ms, " +
              ", ".join(f"tfjs-{name} {result[f'tfjs_{name}_ms_per_step']} ms "
                        f"(tfjs / webflow = x{result[f'ratio_tfjs_{name}_over_webflow']})" for name in result["tfjs"]))
        if "tfjs_wasm_ms_per_step_conv_frozen" in result:
            print(f"tfjs-wasm with the conv layers frozen (no filter gradient, a lower bound): "
                  f"{result['tfjs_wasm_ms_per_step_conv_frozen']} ms")
        if "full_training" in result:
            print(f"whole training: {result['full_training']}")


if __name__ == "__main__":
    main()
