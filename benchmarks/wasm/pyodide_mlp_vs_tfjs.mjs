// webflow's Python engine inside Pyodide (wasm kernels, no NumPy) next to TensorFlow.js's wasm backend,
// on one MLP training step, in one Node process.
//
//     node benchmarks/wasm/pyodide_mlp_vs_tfjs.mjs [--wheel webflow.whl --micropip micropip.whl] [--quick] [--json]
//
// Without --wheel the two wheels are made first by `python tests/pyodide/wheels.py` ($PYTHON, default
// python3: builds webflow_kernels.wasm if stale, then the webflow wheel; micropip 0.11.1 from PyPI once).
// Pyodide comes from tests/pyodide/node_modules (`npm ci` there), tfjs from this folder's node_modules.
//
// The model: 784-256-128-10 ReLU MLP, batch 128, softmax cross-entropy, Adam, written as plain TF1 code
// (placeholders, tf.Variable, matmul, relu, sparse_softmax_cross_entropy_with_logits,
// AdamOptimizer.minimize, Session.run) and run by webflow installed from its wheel with micropip.
// Its peers: tfjs-wasm's `tf.train.adam(...).minimize`, and the same C kernel sequence driven straight
// from JS (webflow_kernels.mjs: the floor the Python engine's overhead sits on). All three start from the
// same weights; three steps of each are cross-checked (losses to 1e-4) before timing. Also printed:
// Pyodide boot, micropip + wheel install, `import webflow.compat.v1`, the wheel's size, and the engine's
// per-op overhead inside Pyodide (µs per Session.run of a 10-add graph, µs per eager scalar add).
// Every figure is the best of several repeats after a warm-up; on a shared machine they are noisy.
// Run with `node --experimental-wasm-relaxed-simd` to measure webflow_kernels_relaxed.wasm (what Chromium
// loads): webflow in Pyodide picks it by probing the engine, and the JS kernel sequence then uses it too.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as tf from "@tensorflow/tfjs";
import * as tfwasm from "@tensorflow/tfjs-backend-wasm";
import { makeBestSeconds, maxAbsDiff, randomFloats, tfjsMlpStep } from "./bench_helpers.mjs";
import { ADAM, loadKernels, mlpStep } from "./webflow_kernels.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.join(here, "..", "..");
const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const QUICK = argv.includes("--quick"), JSON_ONLY = argv.includes("--json");
const BUDGET = QUICK ? 0.3 : 1.5;  // seconds of timed calls per figure and side (spread over the repeats)
const REPEATS = QUICK ? 3 : 7;
const SIZES = [784, 256, 128, 10], BATCH = 128;

// Best batch of REPEATS per function, after a warm-up of 3 calls (plan caches, JIT tiers, first allocations);
// the functions' batches alternate so all sides sample the same moments (bench_helpers.mjs).
const bestSeconds = makeBestSeconds({ budget: BUDGET, repeats: REPEATS, warmups: 3 });
const results = [];
const report = (row) => { results.push(row); console.log(JSON.stringify(row)); };

// ------------------------------------------------------------------------------ wheels, Pyodide, webflow
let wheel = option("--wheel", null), micropip = option("--micropip", null);
if (!wheel || !micropip) {
  const made = JSON.parse(execFileSync(process.env.PYTHON || "python3", [path.join(repo, "tests", "pyodide", "wheels.py")],
    { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim().split("\n").pop());
  wheel = wheel || made.webflow;
  micropip = micropip || made.micropip;
}
const pyodideModule = path.join(repo, "tests", "pyodide", "node_modules", "pyodide", "pyodide.mjs");
if (!fs.existsSync(pyodideModule)) throw new Error(`no Pyodide at ${pyodideModule}: run \`npm ci\` in tests/pyodide`);
const { loadPyodide } = await import(pyodideModule);
const quiet = () => {};
let mark = performance.now();
const pyodide = await loadPyodide({ stdout: (line) => process.stderr.write(line + "\n"), stderr: quiet });
const bootMs = performance.now() - mark;
mark = performance.now();
await pyodide.loadPackage(micropip, { messageCallback: quiet });
pyodide.FS.mkdirTree("/wheels");
pyodide.FS.writeFile(`/wheels/${path.basename(wheel)}`, fs.readFileSync(wheel));
await pyodide.runPythonAsync(`import micropip\nawait micropip.install("emfs:/wheels/${path.basename(wheel)}", deps=False)`);
const installMs = performance.now() - mark;
mark = performance.now();
pyodide.runPython("import webflow.compat.v1 as tf");
const importMs = performance.now() - mark;

// tfjs-wasm, one thread (Node has no wasm threads for it anyway)
tfwasm.setThreadsCount(1);
await tf.setBackend("wasm");
await tf.ready();
report({
  benchmark: "pyodide_setup", unit: "ms", boot: +bootMs.toFixed(0), micropip_and_wheel_install: +installMs.toFixed(0),
  import_webflow: +importMs.toFixed(0), wheel_bytes: fs.statSync(wheel).size, wheel: path.basename(wheel),
  numpy_in_pyodide: pyodide.runPython("import importlib.util; importlib.util.find_spec('numpy') is not None"),
  webflow_wasm_variant: pyodide.runPython("from webflow.backends.c import library\nlibrary.wasm_variant()"),
  tfjs: tf.version.tfjs, tfjs_backend: tf.getBackend(), tfjs_simd: tf.env().getBool("WASM_HAS_SIMD_SUPPORT"), node: process.version,
});

// ------------------------------------------------------------------------------------ the same weights
const initial = [];
for (let l = 0; l < SIZES.length - 1; l++) {
  initial.push(randomFloats(SIZES[l] * SIZES[l + 1], 10 + l, Math.sqrt(6 / (SIZES[l] + SIZES[l + 1]))));
  initial.push(new Float32Array(SIZES[l + 1]));
}
const xValues = randomFloats(BATCH * 784, 20).map((v) => Math.abs(v));  // pixel-like values in [0, 1)
const classes = Int32Array.from({ length: BATCH }, (_, r) => (r * 7) % 10);
const oneHot = new Float32Array(BATCH * 10);
classes.forEach((c, r) => { oneHot[r * 10 + c] = 1; });
pyodide.FS.mkdirTree("/bench");
const put = (name, typed) => pyodide.FS.writeFile(`/bench/${name}.bin`, new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength));
initial.forEach((values, i) => put(`v${i}`, values));
put("x", xValues);
put("y", classes);

// The TF1 program, as a learner would write it (weights read from files instead of tf.random_*, so that
// all three sides start from the same numbers).
pyodide.runPython(`
import array
import webflow.compat.v1 as tf
from webflow.backends.arrays.carray import CArray

tf.disable_v2_behavior()
SIZES, BATCH = ${JSON.stringify(SIZES)}, ${BATCH}

def load(name, shape, dtype=tf.float32, code="f"):
    data = array.array(code)
    with open(f"/bench/{name}.bin", "rb") as handle:
        data.frombytes(handle.read())
    return CArray(data, tuple(shape), dtype)

def build_mlp(epsilon):
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 784], name="x")
    y = tf.placeholder(tf.int32, [None], name="y")
    hidden = x
    for layer in range(3):
        w = tf.Variable(load(f"v{2 * layer}", SIZES[layer:layer + 2]), name=f"w{layer}")
        b = tf.Variable(load(f"v{2 * layer + 1}", SIZES[layer + 1:layer + 2]), name=f"b{layer}")
        hidden = tf.matmul(hidden, w) + b
        if layer < 2:
            hidden = tf.nn.relu(hidden)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=hidden))
    train = tf.train.AdamOptimizer(${ADAM.lr}, ${ADAM.beta1}, ${ADAM.beta2}, epsilon).minimize(loss)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    feed = {x: load("x", [BATCH, 784]), y: load("y", [BATCH], tf.int32, "i")}
    step = lambda: float(sess.run([loss, train], feed)[0])
    read = lambda: [value.data.tobytes() for value in sess.run(tf.trainable_variables())]
    return step, read
`);
const buildMlp = pyodide.globals.get("build_mlp");
const webflowSide = (epsilon) => {
  const [step, read] = buildMlp(epsilon).toJs();
  return { step: () => step(), read: () => read().toJs().map((bytes) => new Float32Array(bytes.slice().buffer)) };
};

const tx = tf.tensor2d(xValues, [BATCH, 784]), tlabels = tf.tensor2d(oneHot, [BATCH, 10]);
const tfjsSide = (adam) => tfjsMlpStep(tf, SIZES, initial, tx, tlabels, adam);
// the module webflow chose inside Pyodide (relaxed SIMD when this engine has it)
const moduleFile = results[0].webflow_wasm_variant === "relaxed-simd" ? "webflow_kernels_relaxed.wasm" : "webflow_kernels.wasm";
const lib = loadKernels(path.join(repo, "webflow", "wasm", moduleFile));

// Cross-check: three steps of each from the same weights (epsilon 1e-14, where TF's and tfjs's Adam
// formulas coincide; see ADAM in webflow_kernels.mjs).
const checkAdam = { ...ADAM, epsilon: 1e-14 };
const ours = webflowSide(checkAdam.epsilon), theirs = tfjsSide(checkAdam);
const kernels = mlpStep(lib, SIZES, BATCH, initial, checkAdam);
const losses = { webflow_pyodide: [], tfjs_wasm: [], kernels_from_js: [] };
for (let i = 0; i < 3; i++) {
  losses.webflow_pyodide.push(ours.step());
  losses.tfjs_wasm.push(theirs.step());
  losses.kernels_from_js.push(kernels.step(xValues, oneHot));
}
const theirsAfter = theirs.read();
const weightError = Math.max(...ours.read().map((values, i) => maxAbsDiff(values, theirsAfter[i])));
const lossError = maxAbsDiff(losses.webflow_pyodide, losses.tfjs_wasm);
if (lossError > 1e-4 || weightError > 1e-3) {
  throw new Error(`MLP step: losses ${JSON.stringify(losses)}, weights differ from tfjs by ${weightError}`);
}

const webflowStep = webflowSide(ADAM.epsilon).step, tfjsStep = tfjsSide(ADAM).step;
const kernelStep = mlpStep(lib, SIZES, BATCH, initial, ADAM);
const [webflowMs, tfjsMs, kernelsMs] = bestSeconds(webflowStep, tfjsStep, () => kernelStep.step(xValues, oneHot))
  .map((s) => s * 1e3);
report({
  benchmark: "mlp_train_step_pyodide", model: "784-256-128-10 relu, sparse softmax xent, Adam (TF1 program)", batch: BATCH,
  unit: "ms", webflow_pyodide: +webflowMs.toFixed(3), tfjs_wasm: +tfjsMs.toFixed(3), kernels_from_js: +kernelsMs.toFixed(3),
  ratio: +(tfjsMs / webflowMs).toFixed(2), goal: 5, goal_met: tfjsMs / webflowMs >= 5,
  engine_overhead_ms: +(webflowMs - kernelsMs).toFixed(3),
  check: { losses: Object.fromEntries(Object.entries(losses).map(([k, v]) => [k, v.map((x) => +x.toFixed(6))])),
    max_weight_diff_vs_tfjs_after_3_steps: +weightError.toExponential(2) },
});

// ------------------------------------------------------------------ the engine's per-op costs in Pyodide
pyodide.runPython(`
import webflow as wf
import webflow.compat.v1 as tf
graph = tf.Graph()  # (graph mode since disable_v2_behavior above; eager_add below runs eagerly outside it)
with graph.as_default():
    x10 = tf.placeholder(tf.float32, [], name="x")
    y10 = x10
    for _ in range(10):
        y10 = y10 + 1.0
sess10 = tf.Session(graph=graph)
feed10 = {x10: 1.0}
run10 = lambda: sess10.run(y10, feed10)
a_scalar, b_scalar = wf.constant(1.0), wf.constant(2.0)
eager_add = lambda: wf.add(a_scalar, b_scalar)
`);
// Timed inside Python (a loop of calls), so the JS -> Python call is not counted.
pyodide.runPython(`
import time
def best_us(function, number, repeat=${REPEATS}):
    for _ in range(3):
        function()
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        for _ in range(number):
            function()
        best = min(best, (time.perf_counter() - started) / number)
    return best * 1e6
`);
const bestUs = pyodide.globals.get("best_us");
report({
  benchmark: "pyodide_overhead", unit: "us",
  session_run_10op: +bestUs(pyodide.globals.get("run10"), QUICK ? 100 : 500).toFixed(1),
  eager_add_scalar: +bestUs(pyodide.globals.get("eager_add"), QUICK ? 500 : 3000).toFixed(1),
  note: "webflow inside Pyodide (CArray values, wasm kernels); compare benchmarks/core_overhead.py in CPython",
});

if (!JSON_ONLY) {
  const [setup, mlp, overhead] = results;
  console.log(`\nwebflow in Pyodide vs tfjs-wasm (Node ${process.version}, one thread, best of ${REPEATS}; noisy on a shared machine)`);
  console.log(`webflow's wasm module in Pyodide: ${setup.webflow_wasm_variant}`);
  console.log(`Pyodide boot ${setup.boot} ms, micropip + wheel install ${setup.micropip_and_wheel_install} ms, ` +
    `import webflow.compat.v1 ${setup.import_webflow} ms, wheel ${(setup.wheel_bytes / 1e6).toFixed(2)} MB`);
  console.log(`MLP step: webflow (TF1 in Pyodide) ${mlp.webflow_pyodide} ms, tfjs-wasm ${mlp.tfjs_wasm} ms, ` +
    `same kernels from JS ${mlp.kernels_from_js} ms -> x${mlp.ratio} (goal >= 5x: ${mlp.goal_met ? "met" : "NOT met"})`);
  console.log(`per op in Pyodide: Session.run of 10 adds ${overhead.session_run_10op} us, eager scalar add ${overhead.eager_add_scalar} us`);
}
