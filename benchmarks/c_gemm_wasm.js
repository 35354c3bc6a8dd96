// GEMM throughput of the wasm side module (webflow/wasm/webflow_kernels.wasm) in Node (V8, as Chromium).
//
//     node benchmarks/c_gemm_wasm.js [path/to/webflow_kernels.wasm]
//
// Instantiates the side module by hand (it imports only env.memory, __stack_pointer, __memory_base and
// __table_base: no libc), spot-checks one entry of each product against a JS dot product, and prints one
// JSON line per n with GFLOP/s for the four transpose combinations (best of 5, one thread).
const path = require("path");
process.argv[2] = process.argv[2] || path.join(__dirname, "..", "webflow", "wasm", "webflow_kernels.wasm");
const fs = require("fs");
const bytes = fs.readFileSync(process.argv[2]);
const memory = new WebAssembly.Memory({ initial: 2048 });  // 128 MB
const g = (v, mut) => new WebAssembly.Global({ value: "i32", mutable: mut }, v);
const dataBase = 1 << 20, stackTop = 8 << 20, heap = 16 << 20;
const inst = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: {
  memory, __stack_pointer: g(stackTop, true), __memory_base: g(dataBase, false), __table_base: g(0, false) } });
const e = inst.exports;
if (e.__wasm_apply_data_relocs) e.__wasm_apply_data_relocs();
const F = new Float32Array(memory.buffer);
for (const n of [64, 128, 256, 512, 1024]) {
  const a = heap, b = a + 4 * n * n, c = b + 4 * n * n;
  for (let i = 0; i < n * n; i++) { F[a / 4 + i] = Math.random() - 0.5; F[b / 4 + i] = Math.random() - 0.5; }
  const row = [];
  for (const [ta, tb] of [[0, 0], [0, 1], [1, 0], [1, 1]]) {
    e.wf_gemm_f32(ta, tb, n, n, n, 1, a, n, b, n, 0, c, n);
    // spot check one entry against a JS dot product
    const i = 3 % n, j = 5 % n; let s = 0;
    for (let p = 0; p < n; p++) s += F[a / 4 + (ta ? p * n + i : i * n + p)] * F[b / 4 + (tb ? j * n + p : p * n + j)];
    if (Math.abs(s - F[c / 4 + i * n + j]) > 1e-3) throw new Error("mismatch " + s + " " + F[c / 4 + i * n + j]);
    let best = Infinity;
    const reps = Math.max(1, Math.floor(2e8 / (2 * n ** 3)));
    for (let r = 0; r < 5; r++) {
      const t = process.hrtime.bigint();
      for (let k = 0; k < reps; k++) e.wf_gemm_f32(ta, tb, n, n, n, 1, a, n, b, n, 0, c, n);
      best = Math.min(best, Number(process.hrtime.bigint() - t) / 1e9 / reps);
    }
    row.push((2 * n ** 3 / best / 1e9).toFixed(1));
  }
  console.log(JSON.stringify({ benchmark: "gemm_wasm_node", n, "A.B": row[0], "A.BT": row[1], "AT.B": row[2], "AT.BT": row[3] }));
}
