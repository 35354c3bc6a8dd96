// Runs C kernels inside the wasm side module (webflow/wasm/webflow_kernels.wasm) under Node, for tests.
//
//     node wasm_runner.js job.json  ->  prints {"buffers": [base64...], "results": [...]} on stdout
//
// job.json: {"wasm": path, "buffers": [base64 bytes of each buffer], "calls": [[name, arg, ...], ...]}
// where an arg is {"buffer": i} (the address of buffer i), or a number (i32, f32 or f64: the wasm
// signature decides). The module is instantiated by hand with the four imports it has (no libc).
const fs = require("fs");
const job = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const memory = new WebAssembly.Memory({ initial: 1024 });  // 64 MB
const global = (value, mutable) => new WebAssembly.Global({ value: "i32", mutable }, value);
const instance = new WebAssembly.Instance(new WebAssembly.Module(fs.readFileSync(job.wasm)), { env: {
  memory, __stack_pointer: global(8 << 20, true), __memory_base: global(1 << 20, false), __table_base: global(0, false) } });
const kernels = instance.exports;
if (kernels.__wasm_apply_data_relocs) kernels.__wasm_apply_data_relocs();
let next = 16 << 20;
const places = job.buffers.map((encoded) => {
  const bytes = Buffer.from(encoded, "base64");
  const address = next;
  new Uint8Array(memory.buffer, address, bytes.length).set(bytes);
  next += Math.ceil((bytes.length + 16) / 16) * 16;
  return [address, bytes.length];
});
const results = job.calls.map(([name, ...args]) =>
  kernels[name](...args.map((arg) => (typeof arg === "object" ? places[arg.buffer][0] : arg))));
const buffers = places.map(([address, length]) =>
  Buffer.from(new Uint8Array(memory.buffer, address, length)).toString("base64"));
console.log(JSON.stringify({ buffers, results }));
