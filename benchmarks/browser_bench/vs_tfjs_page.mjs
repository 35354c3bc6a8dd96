// The main thread of benchmarks/browser_vs_tfjs.py's page: TensorFlow.js's wasm backend, webflow's C kernels
// loaded as a plain wasm module (no Python), and a Web Worker running webflow in Pyodide (vs_tfjs_worker.mjs).
// The driver calls the functions of `window.bench` with page.evaluate and gets plain objects back.
//
// ?threads=0 keeps tfjs-wasm on one thread even where the page is cross-origin isolated (the driver's server
// sends COOP/COEP headers, so the threaded SIMD build can load); ?threads=1 lets it use every core.
/* global tf */

const QUERY = new URLSearchParams(location.search);
const TFJS_THREADS = QUERY.get("threads") !== "0";

// ------------------------------------------------------------------------------------------ timing
// Milliseconds per call of each function: the fastest of many short batches (about BATCH_MS each, at least one
// call), the functions' batches alternating, for about budgetMs per function and at least `repeats` batches.
// On a loaded machine a short batch often runs without being preempted, so the fastest one is close to the
// unloaded speed, and alternating makes all sides sample the same moments.
const BATCH_MS = 2;

function callsPerBatch(fn) {
  fn();
  const started = performance.now();
  let calls = 0;
  while (performance.now() - started < BATCH_MS) { fn(); calls++; }
  return Math.max(1, calls);
}

function bestMs(fns, budgetMs, repeats) {
  const numbers = fns.map(callsPerBatch), best = fns.map(() => Infinity);
  const deadline = performance.now() + budgetMs * fns.length;
  for (let r = 0; r < repeats || performance.now() < deadline; r++) {
    fns.forEach((fn, i) => {
      const started = performance.now();
      for (let c = 0; c < numbers[i]; c++) fn();
      best[i] = Math.min(best[i], (performance.now() - started) / numbers[i]);
    });
  }
  return best;
}

// Deterministic inputs (a small LCG) so both libraries multiply the same numbers.
function randomFloats(count, seed) {
  const out = new Float32Array(count);
  let state = seed >>> 0;
  for (let i = 0; i < count; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = state / 4294967296 - 0.5;
  }
  return out;
}

// ------------------------------------------------------------------------------------------ tfjs
async function setupTfjs() {
  tf.wasm.setWasmPaths("/tfjs/tfjs-backend-wasm/dist/");
  if (!TFJS_THREADS) tf.env().set("WASM_HAS_MULTITHREAD_SUPPORT", false);
  else tf.wasm.setThreadsCount(navigator.hardwareConcurrency || 1);
  await tf.setBackend("wasm");
  await tf.ready();
  const multithread = await tf.env().getAsync("WASM_HAS_MULTITHREAD_SUPPORT");
  return { version: tf.version.tfjs, backend: tf.getBackend(), cross_origin_isolated: self.crossOriginIsolated,
           simd: await tf.env().getAsync("WASM_HAS_SIMD_SUPPORT"), multithread,
           threads: multithread ? tf.wasm.getThreadsCount() : 1 };
}

// ------------------------------------------------------------------------------------------ webflow's kernels
// webflow/wasm/*.wasm is a side module that imports only env.memory, __stack_pointer, __memory_base and
// __table_base (no libc), so it is instantiated by hand, as benchmarks/wasm/webflow_kernels.mjs does in Node:
// data segments at 1 MB, the stack below 8 MB, our buffers from 16 MB up (a bump allocator: nothing is freed).
const DATA_BASE = 1 << 20, STACK_TOP = 8 << 20, HEAP_START = 16 << 20;

async function loadKernels(url) {
  const memory = new WebAssembly.Memory({ initial: 512 });   // 32 MB, grown on demand
  const global = (value, mutable) => new WebAssembly.Global({ value: "i32", mutable }, value);
  const env = { memory, __stack_pointer: global(STACK_TOP, true), __memory_base: global(DATA_BASE, false),
                __table_base: global(0, false) };
  const { instance } = await WebAssembly.instantiate(await (await fetch(url)).arrayBuffer(), { env });
  const k = instance.exports;
  if (k.__wasm_apply_data_relocs) k.__wasm_apply_data_relocs();
  let next = HEAP_START;
  const floats = (values) => {
    const address = next;
    next += Math.ceil((4 * values.length) / 64) * 64;
    if (next > memory.buffer.byteLength) memory.grow(Math.ceil((next - memory.buffer.byteLength) / 65536));
    new Float32Array(memory.buffer, address, values.length).set(values);
    return address;
  };
  const read = (address, count) => new Float32Array(memory.buffer, address, count).slice();
  return { k, floats, read };
}

const KERNEL_MODULES = { simd128: "/kernels/webflow_kernels.wasm", relaxed: "/kernels/webflow_kernels_relaxed.wasm" };

// C = A B for n x n float32 matrices: webflow's wf_gemm_f32 (both wasm variants, called straight from JS) and
// tf.matMul on tfjs-wasm, alternating; also the largest difference of the results (a cross-check).
async function gemm(sizes, budgetMs, repeats) {
  const modules = {};
  for (const [name, url] of Object.entries(KERNEL_MODULES)) {
    try { modules[name] = await loadKernels(url); } catch (error) { modules[name] = null; }
  }
  const rows = [];
  for (const n of sizes) {
    const a = randomFloats(n * n, 1 + n), b = randomFloats(n * n, 2 + n);
    const ta = tf.tensor2d(a, [n, n]), tb = tf.tensor2d(b, [n, n]);
    const expected = tf.matMul(ta, tb).dataSync();
    const names = Object.keys(modules).filter((name) => modules[name]);
    const calls = names.map((name) => {
      const lib = modules[name], pa = lib.floats(a), pb = lib.floats(b), pc = lib.floats(new Float32Array(n * n));
      const call = () => lib.k.wf_gemm_f32(0, 0, n, n, n, 1, pa, n, pb, n, 0, pc, n);
      call();
      const got = lib.read(pc, n * n);
      const error = got.reduce((worst, value, i) => Math.max(worst, Math.abs(value - expected[i])), 0);
      return { name, call, error };
    });
    const ms = bestMs([...calls.map((c) => c.call), () => tf.matMul(ta, tb).dispose()], budgetMs, repeats);
    const row = { n, tfjs_ms: ms[ms.length - 1] };
    calls.forEach((c, i) => { row[`kernel_${c.name}_ms`] = ms[i]; row[`kernel_${c.name}_max_error`] = c.error; });
    rows.push(row);
    ta.dispose(); tb.dispose();
  }
  return rows;
}

// ------------------------------------------------------------------------------------------ the MLP step
// site/demo/mnist_model.py's MLP in tfjs: uint8 pixels cast and scaled to [0, 1] inside the step, ReLU hidden
// layers, softmax cross-entropy (mean), one Adam update, the loss read back; one fixed batch, as the demo's
// time_steps uses.
function tfjsMlp(sizes, batch, learningRate, steps, repeats) {
  const variables = [];
  for (let l = 0; l < sizes.length - 1; l++) {
    const limit = Math.sqrt(6 / (sizes[l] + sizes[l + 1]));   // Glorot uniform, as the demo's variables
    variables.push(tf.variable(tf.randomUniform([sizes[l], sizes[l + 1]], -limit, limit, "float32", 1 + l)));
    variables.push(tf.variable(tf.zeros([sizes[l + 1]])));
  }
  const classes = sizes[sizes.length - 1];
  const pixels = tf.tensor2d(Int32Array.from({ length: batch * sizes[0] }, (_, i) => (i * 37) % 256),
                             [batch, sizes[0]], "int32");
  const labels = tf.oneHot(tf.tensor1d(Int32Array.from({ length: batch }, (_, i) => (i * 7) % classes), "int32"),
                           classes);
  const optimizer = tf.train.adam(learningRate);
  const layers = variables.length / 2;
  const step = () => {
    const cost = optimizer.minimize(() => {
      let hidden = tf.div(tf.cast(pixels, "float32"), 255);
      for (let l = 0; l < layers; l++) {
        const z = tf.add(tf.matMul(hidden, variables[2 * l]), variables[2 * l + 1]);
        hidden = l < layers - 1 ? tf.relu(z) : z;
      }
      return tf.losses.softmaxCrossEntropy(labels, hidden);
    }, true, variables);
    const value = cost.dataSync()[0];
    cost.dispose();
    return value;
  };
  const first = step();
  for (let i = 0; i < steps; i++) step();   // warm-up, as on webflow's side
  let best = Infinity, last = first;
  for (let r = 0; r < repeats; r++) {
    const started = performance.now();
    for (let i = 0; i < steps; i++) last = step();
    best = Math.min(best, (performance.now() - started) / steps);
  }
  tf.dispose([...variables, pixels, labels]);
  return { ms_per_step: best, first_loss: first, last_loss: last };
}

// ------------------------------------------------------------------------------------------ webflow in Pyodide
let worker = null;
const pending = new Map();   // message type -> resolve of the promise waiting for it

function startWorker() {
  worker = new Worker(new URL("vs_tfjs_worker.mjs", import.meta.url), { type: "module" });
  worker.onmessage = (event) => {
    const { type } = event.data;
    const resolve = pending.get(type) || (type === "error" ? pending.get("*") : null);
    if (resolve) resolve(event.data);
  };
  worker.onerror = (event) => { const resolve = pending.get("*"); if (resolve) resolve({ type: "error", message: event.message }); };
  return waitFor("ready");
}

function waitFor(type) {
  return new Promise((resolve, reject) => {
    const done = (data) => { pending.delete(type); pending.delete("*"); return data.type === "error" ? reject(new Error(data.message)) : resolve(data); };
    pending.set(type, done);
    pending.set("*", done);
  });
}

// Runs the Python timings in the worker: {type: "time", what: "gemm" | "mlp", ...options} -> its result.
function workerTime(options) {
  const answer = waitFor("result");
  worker.postMessage({ type: "time", ...options });
  return answer;
}

window.bench = { setupTfjs, gemm, tfjsMlp, startWorker, workerTime };
document.body.dataset.state = "ready";
