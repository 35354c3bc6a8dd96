// webflow's wasm kernels next to TensorFlow.js's wasm backend (SIMD), in one Node process.
//
//     node --experimental-wasm-relaxed-simd benchmarks/wasm/wasm_vs_tfjs.mjs [--wasm path/to/webflow_kernels.wasm]
//          [--relaxed path/to/webflow_kernels_relaxed.wasm] [--quick] [--json]
//
// Both webflow modules run next to tfjs-wasm in this one process: the baseline (webflow_kernels.wasm, f32x4
// mul + add) and the relaxed-SIMD one (webflow_kernels_relaxed.wasm, fused f32x4.relaxed_madd in the GEMM),
// which Node 20 runs only with --experimental-wasm-relaxed-simd (Chromium by default); without the flag, or
// without the file, its columns are null. tfjs-wasm 4.22 uses no relaxed SIMD.
//
// Times GEMM (n = 64..1024, the four transposes), conv2d forward / backprop input / backprop filter at the
// Deep MNIST CNN's shapes (batch 50), the per-call cost of a tiny (4x4) matmul, and one training step of a
// 784-256-128-10 ReLU MLP (batch 128, softmax cross-entropy, Adam). The webflow side of the MLP is the
// sequence of C kernel calls webflow's graph makes, driven from JS (not yet the Python engine in Pyodide).
// Prints one JSON line per figure ("ratio" = how many times faster webflow is), then a table (not with
// --json). Every figure is the best of several repeats on one thread; on a shared machine they are noisy.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as tf from "@tensorflow/tfjs";
import * as tfwasm from "@tensorflow/tfjs-backend-wasm";
import { makeBestSeconds, maxAbsDiff, randomFloats, tfjsMlpStep } from "./bench_helpers.mjs";
import { conv2dShape, loadKernels, mlpStep, ADAM } from "./webflow_kernels.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const QUICK = argv.includes("--quick"), JSON_ONLY = argv.includes("--json");
const WASM = option("--wasm", path.join(here, "..", "..", "webflow", "wasm", "webflow_kernels.wasm"));
const RELAXED = option("--relaxed", path.join(path.dirname(WASM), "webflow_kernels_relaxed.wasm"));
const SIZES = option("--sizes", "64,128,256,512,1024").split(",").map(Number);
const BUDGET = QUICK ? 0.1 : 0.5;  // seconds of timed calls per figure and side (spread over the repeats)
const REPEATS = QUICK ? 3 : 7;

// Seconds per call, best batch of REPEATS (bench_helpers.mjs); several functions are timed side by side.
const bestSeconds = makeBestSeconds({ budget: BUDGET, repeats: REPEATS });
const results = [];
function report(row) {
  results.push(row);
  if (JSON_ONLY || !argv.includes("--quiet")) console.log(JSON.stringify(row));
}

// ------------------------------------------------------------------------------------------------ set-up
const lib = loadKernels(WASM);
const { k } = lib;
// The relaxed module, where this engine validates it (relaxed SIMD enabled) and it was built.
const relaxedNote = !fs.existsSync(RELAXED) ? "not built (needs clang >= 16)"
  : !WebAssembly.validate(fs.readFileSync(RELAXED)) ? "not run: node without --experimental-wasm-relaxed-simd" : null;
const libRelaxed = relaxedNote ? null : loadKernels(RELAXED);
// [field, library] of each webflow module measured
const MODULES = [["webflow_wasm", lib], ...(libRelaxed ? [["webflow_relaxed", libRelaxed]] : [])];
tfwasm.setThreadsCount(1);  // only takes effect where tfjs-wasm can use threads (not in Node: see below)
await tf.setBackend("wasm");
await tf.ready();
report({
  benchmark: "setup", tfjs: tf.version.tfjs, tfjs_backend: tf.getBackend(),
  tfjs_simd: tf.env().getBool("WASM_HAS_SIMD_SUPPORT"), tfjs_multithread: tf.env().getBool("WASM_HAS_MULTITHREAD_SUPPORT"),
  tfjs_threads: tfwasm.getThreadsCount(), node: process.version, webflow_wasm: WASM,
  webflow_relaxed: relaxedNote ?? RELAXED, node_flags: process.execArgv.join(" "),
  webflow_mlp: "kernel sequence driven from JS, not yet the Python engine in Pyodide",
});

// ------------------------------------------------------------------------------------------------- GEMM
const TRANSPOSES = [[false, false, "A.B"], [false, true, "A.BT"], [true, false, "AT.B"], [true, true, "AT.BT"]];
const GOALS = { "A.B": 1.3, "A.BT": 10, "AT.B": 10 };  // issue 4: times faster than tfjs-wasm
for (const n of SIZES) {
  const aValues = randomFloats(n * n, 1), bValues = randomFloats(n * n, 2);
  const buffers = MODULES.map(([, m]) => [m, m.floats(aValues), m.floats(bValues), m.alloc(n * n)]);
  const ta = tf.tensor2d(aValues, [n, n]), tb = tf.tensor2d(bValues, [n, n]);
  for (const [transA, transB, op] of TRANSPOSES) {
    const expected = tf.matMul(ta, tb, transA, transB), expectedValues = expected.dataSync();
    expected.dispose();
    const calls = buffers.map(([m, a, b, c]) => () => m.k.wf_gemm_f32(+transA, +transB, n, n, n, 1, a, n, b, n, 0, c, n));
    buffers.forEach(([m, , , c], i) => {
      calls[i]();
      const error = maxAbsDiff(m.f32(c, n * n), expectedValues);
      if (error > 1e-3 * Math.sqrt(n)) throw new Error(`gemm ${op} n=${n}: ${MODULES[i][0]} and tfjs differ by ${error}`);
    });
    const seconds = bestSeconds(...calls, () => tf.matMul(ta, tb, transA, transB).dispose());
    const theirs = seconds.pop();
    const gflops = (time) => +((2 * n ** 3) / time / 1e9).toFixed(1);
    const row = { benchmark: "gemm", n, op, unit: "GFLOP/s", webflow_wasm: gflops(seconds[0]),
      webflow_relaxed: libRelaxed ? gflops(seconds[1]) : null, tfjs_wasm: gflops(theirs),
      ratio: +(theirs / seconds[0]).toFixed(2), ratio_relaxed: libRelaxed ? +(theirs / seconds[1]).toFixed(2) : null,
      goal: GOALS[op] ?? null };
    report(row);
  }
  ta.dispose(); tb.dispose();
}

// --------------------------------------------------------------------- conv2d at the Deep MNIST CNN's shapes
const BATCH = 50;
const LAYERS = { conv1: [[BATCH, 28, 28, 1], [5, 5, 1, 32]], conv2: [[BATCH, 14, 14, 32], [5, 5, 32, 64]] };
for (const [layer, [xShape, fShape]] of Object.entries(LAYERS)) {
  const yShape = [xShape[0], xShape[1], xShape[2], fShape[3]];
  const size = (shape) => shape.reduce((p, d) => p * d, 1);
  const xValues = randomFloats(size(xShape), 3), fValues = randomFloats(size(fShape), 4, 0.2);
  const dyValues = randomFloats(size(yShape), 5);
  // Each webflow module's calls on its own copies of the inputs: {kernel: [call, read output]}.
  const convCalls = MODULES.map(([, m]) => {
    const s = conv2dShape(m, xShape, fShape);
    const workLength = m.k.wf_conv2d_workspace_f32(s), work = m.alloc(workLength);
    const x = m.floats(xValues), f = m.floats(fValues), dy = m.floats(dyValues);
    const y = m.alloc(size(yShape)), dx = m.alloc(size(xShape)), df = m.alloc(size(fShape));
    return {
      forward: [() => m.k.wf_conv2d_f32(s, x, f, y, work, workLength), () => m.f32(y, size(yShape))],
      backprop_input: [() => m.k.wf_conv2d_backprop_input_f32(s, f, dy, dx, work, workLength), () => m.f32(dx, size(xShape))],
      backprop_filter: [() => m.k.wf_conv2d_backprop_filter_f32(s, x, dy, df, work, workLength), () => m.f32(df, size(fShape))],
    };
  });
  const tx = tf.tensor4d(xValues, xShape), tfl = tf.tensor4d(fValues, fShape), tdy = tf.tensor4d(dyValues, yShape);
  const tfjsKernels = {
    forward: () => tf.conv2d(tx, tfl, 1, "same"),
    // Conv2DBackpropInput is the kernel tf.grad of conv2d calls for the input; tf.conv2dTranspose runs it alone.
    backprop_input: () => tf.conv2dTranspose(tdy, tfl, xShape, 1, "same"),
    // (tf.grad also runs the forward pass, but tfjs-wasm 4.22 stops earlier: no Conv2DBackpropFilter kernel)
    backprop_filter: () => tf.grad((filter) => tf.conv2d(tx, filter, 1, "same"))(tfl, tdy),
  };
  for (const [kernel, theirs] of Object.entries(tfjsKernels)) {
    const ours = convCalls.map((calls) => calls[kernel][0]);
    if (ours.some((call) => call() !== 0)) throw new Error(`${layer} ${kernel}: webflow kernel returned an error status`);
    let oursMs, theirsMs = null, note;
    try {
      const expected = theirs(), expectedValues = expected.dataSync();
      expected.dispose();
      const error = Math.max(...convCalls.map((calls) => maxAbsDiff(calls[kernel][1](), expectedValues)));
      if (error > 1e-2) throw new Error(`conv ${layer} ${kernel}: webflow and tfjs differ by ${error}`);
      oursMs = bestSeconds(...ours, () => theirs().dispose()).map((seconds) => seconds * 1e3);
      theirsMs = oursMs.pop();
    } catch (error) {
      if (!/not registered/.test(error.message)) throw error;
      oursMs = [bestSeconds(...ours)].flat().map((seconds) => seconds * 1e3);  // one module: a number
      note = `tfjs-wasm cannot: ${error.message}`;  // Conv2DBackpropFilter has no wasm kernel in tfjs 4.22
    }
    report({ benchmark: "conv2d", layer, kernel, shape: `${xShape.join("x")} * ${fShape.join("x")}`, unit: "ms",
      webflow_wasm: +oursMs[0].toFixed(3), webflow_relaxed: libRelaxed ? +oursMs[1].toFixed(3) : null,
      tfjs_wasm: theirsMs === null ? null : +theirsMs.toFixed(3),
      ratio: theirsMs === null ? null : +(theirsMs / oursMs[0]).toFixed(2),
      ratio_relaxed: theirsMs === null || !libRelaxed ? null : +(theirsMs / oursMs[1]).toFixed(2), ...(note ? { note } : {}) });
  }
  tx.dispose(); tfl.dispose(); tdy.dispose();
}

// ---------------------------------------------------------------------------- per-call cost of a tiny op
{
  const a = lib.floats(randomFloats(16, 6)), b = lib.floats(randomFloats(16, 7)), c = lib.alloc(16);
  const ta = tf.tensor2d(randomFloats(16, 6), [4, 4]), tb = tf.tensor2d(randomFloats(16, 7), [4, 4]);
  const [ours, theirs] = bestSeconds(() => k.wf_gemm_f32(0, 0, 4, 4, 4, 1, a, 4, b, 4, 0, c, 4),
    () => tf.matMul(ta, tb).dispose());
  report({ benchmark: "per_call", op: "matmul 4x4", unit: "us/call", webflow_wasm: +(ours * 1e6).toFixed(3),
    tfjs_wasm: +(theirs * 1e6).toFixed(3), ratio: +(theirs / ours).toFixed(1) });
  ta.dispose(); tb.dispose();
}

// -------------------------------------------------------------------------------------- MLP training step
{
  const SIZES_MLP = [784, 256, 128, 10], MLP_BATCH = 128;
  const initial = [];
  for (let l = 0; l < SIZES_MLP.length - 1; l++) {
    initial.push(randomFloats(SIZES_MLP[l] * SIZES_MLP[l + 1], 10 + l, Math.sqrt(6 / (SIZES_MLP[l] + SIZES_MLP[l + 1]))));
    initial.push(new Float32Array(SIZES_MLP[l + 1]));
  }
  const xValues = randomFloats(MLP_BATCH * 784, 20).map((v) => Math.abs(v));  // pixel-like values in [0, 1)
  const labelValues = new Float32Array(MLP_BATCH * 10);
  for (let r = 0; r < MLP_BATCH; r++) labelValues[r * 10 + ((r * 7) % 10)] = 1;

  const tx = tf.tensor2d(xValues, [MLP_BATCH, 784]), tlabels = tf.tensor2d(labelValues, [MLP_BATCH, 10]);
  // The same step in tfjs (bench_helpers.mjs).
  const tfjsStep = (adam) => tfjsMlpStep(tf, SIZES_MLP, initial, tx, tlabels, adam);
  // Cross-check: three steps each from the same weights give the same losses and weights (epsilon 1e-14,
  // where TF's and tfjs's Adam formulas coincide; see ADAM in webflow_kernels.mjs).
  const checkAdam = { ...ADAM, epsilon: 1e-14 };
  const oursCheck = mlpStep(lib, SIZES_MLP, MLP_BATCH, initial, checkAdam), theirsCheck = tfjsStep(checkAdam);
  const lossesOurs = [], lossesTheirs = [];
  for (let i = 0; i < 3; i++) {
    lossesOurs.push(oursCheck.step(xValues, labelValues));
    lossesTheirs.push(theirsCheck.step());
  }
  const theirsAfter = theirsCheck.read();
  const weightError = Math.max(...oursCheck.read().map((values, i) => maxAbsDiff(values, theirsAfter[i])));
  const lossError = maxAbsDiff(lossesOurs, lossesTheirs);
  if (lossError > 1e-4 || weightError > 1e-3) {
    throw new Error(`MLP step: losses ${lossesOurs} vs tfjs ${lossesTheirs}, weights differ by ${weightError}`);
  }
  if (libRelaxed) {  // the relaxed module's step gives the same losses (its GEMM rounds once per multiply-add)
    const relaxedCheck = mlpStep(libRelaxed, SIZES_MLP, MLP_BATCH, initial, checkAdam);
    const lossesRelaxed = [0, 1, 2].map(() => relaxedCheck.step(xValues, labelValues));
    if (maxAbsDiff(lossesRelaxed, lossesTheirs) > 1e-4) throw new Error(`MLP step (relaxed): losses ${lossesRelaxed}`);
  }
  const steps = MODULES.map(([, m]) => mlpStep(m, SIZES_MLP, MLP_BATCH, initial)), theirsStep = tfjsStep(ADAM).step;
  const oursMs = bestSeconds(...steps.map((ours) => () => ours.step(xValues, labelValues)), theirsStep).map((s) => s * 1e3);
  const theirsMs = oursMs.pop();
  report({ benchmark: "mlp_train_step", model: "784-256-128-10 relu, softmax xent, Adam", batch: MLP_BATCH, unit: "ms",
    webflow_wasm: +oursMs[0].toFixed(3), webflow_relaxed: libRelaxed ? +oursMs[1].toFixed(3) : null,
    tfjs_wasm: +theirsMs.toFixed(3), ratio: +(theirsMs / oursMs[0]).toFixed(2),
    ratio_relaxed: libRelaxed ? +(theirsMs / oursMs[1]).toFixed(2) : null, goal: 5,
    check: { losses_webflow: lossesOurs.map((v) => +v.toFixed(6)), losses_tfjs: lossesTheirs.map((v) => +v.toFixed(6)), max_weight_diff_after_3_steps: +weightError.toExponential(2) },
    note: "webflow side = the C kernel sequence webflow's graph runs, driven from JS; not yet the Python engine in Pyodide" });
}

if (!JSON_ONLY) {
  console.log("\nwebflow wasm vs tfjs-wasm (Node " + process.version + ", one thread, best of repeats; noisy on a shared machine)");
  console.log(`columns: webflow baseline, tfjs-wasm, unit, ratio | webflow relaxed SIMD, ratio (relaxed: ${relaxedNote ?? "measured"})`);
  for (const r of results.filter((row) => row.benchmark !== "setup")) {
    const label = r.benchmark === "gemm" ? `gemm ${r.op} n=${r.n}` : r.benchmark === "conv2d" ? `${r.layer} ${r.kernel}` : r.benchmark === "per_call" ? `per call ${r.op}` : "MLP step";
    const best = Math.max(r.ratio ?? 0, r.ratio_relaxed ?? 0);
    const goal = r.goal ? ` (goal >= ${r.goal}x: ${best >= r.goal ? "met" : "NOT met"})` : "";
    const relaxed = r.webflow_relaxed != null ? ` | relaxed ${String(r.webflow_relaxed).padStart(8)} x${r.ratio_relaxed ?? "-"}` : "";
    console.log(`${label.padEnd(28)} ${String(r.webflow_wasm).padStart(9)} ${String(r.tfjs_wasm ?? "n/a").padStart(9)} ${r.unit.padEnd(8)} x${r.ratio ?? "-"}${relaxed}${goal}`);
  }
}
