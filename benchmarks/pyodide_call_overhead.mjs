// Cost of calling webflow's wasm kernels from Python inside Pyodide (Node, offline): boot time, loading
// the side module through webflow.backends.c.library, and the time per ctypes call.
//
//     (cd tests/pyodide && npm ci) && python -m webflow.wasm.build --wasm
//     node benchmarks/pyodide_call_overhead.mjs
//
// Numbers on a shared 2-core VM are noisy: take the best of several repeats, as printed.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const pyodideModule = path.join(root, "tests", "pyodide", "node_modules", "pyodide", "pyodide.mjs");
if (!fs.existsSync(pyodideModule)) {
  console.error("npm package pyodide missing: run `npm ci` in tests/pyodide");
  process.exit(1);
}
const { loadPyodide } = await import(pathToFileURL(pyodideModule).href);

let started = performance.now();
const pyodide = await loadPyodide();
const bootMs = performance.now() - started;

// Copy the package's .py files and the shipped .wasm into Pyodide's in-memory file system.
function copyTree(source, target) {
  pyodide.FS.mkdirTree(target);
  for (const entry of fs.readdirSync(source, { withFileTypes: true })) {
    if (["__pycache__", "_build", "datasets"].includes(entry.name)) continue;
    const from = path.join(source, entry.name);
    if (entry.isDirectory()) copyTree(from, `${target}/${entry.name}`);
    else if (/\.(py|wasm)$/.test(entry.name)) pyodide.FS.writeFile(`${target}/${entry.name}`, fs.readFileSync(from));
  }
}
started = performance.now();
copyTree(path.join(root, "webflow"), "/home/pyodide/site/webflow");
const copyMs = performance.now() - started;

const report = pyodide.runPython(`
import ctypes, json, sys, time, types
sys.path.insert(0, "/home/pyodide/site")
package = types.ModuleType("webflow")          # webflow/__init__.py needs NumPy; the kernel layer does not
package.__path__ = ["/home/pyodide/site/webflow"]
sys.modules["webflow"] = package
started = time.perf_counter()
from webflow.backends.c import library as c, elementwise as c_elementwise, gemm as c_gemm
c.library()
load_ms = (time.perf_counter() - started) * 1e3

def best_per_call(function, calls=20000, repeats=5):
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        for _ in range(calls):
            function()
        best = min(best, (time.perf_counter() - started) / calls)
    return best * 1e6

x, y = c.float_array(1024), c.float_array(1024)
px, py = c.address(x), c.address(y)
neg = c.function("wf_neg_f32")
gemm = c.function("wf_gemm_f32")
a, b, out = c.float_array([2.0]), c.float_array([3.0]), c.float_array(1)
pa, pb, pout = c.address(a), c.address(b), c.address(out)
saxpy_in, saxpy_out = c.float_array(1000000), c.float_array(1000000)
sizes = c_elementwise.size_array([1000000]); ones = c_elementwise.size_array([1])
add = c.function("wf_add_f32")
def nothing():
    pass
rows = {
    "empty Python function (baseline)": best_per_call(nothing),
    "wf_neg_f32, 0 elements (3 args)": best_per_call(lambda: neg(px, py, 0)),
    "wf_neg_f32, 1024 floats": best_per_call(lambda: neg(px, py, 1024)),
    "wf_gemm_f32 0x0x0 (13 args, no work)": best_per_call(lambda: gemm(0, 0, 0, 0, 0, 1.0, pa, 1, pb, 1, 0.0, pout, 1)),
    "wf_gemm_f32 1x1x1 (13 args)": best_per_call(lambda: gemm(0, 0, 1, 1, 1, 1.0, pa, 1, pb, 1, 0.0, pout, 1)),
    "c.address(array) + wf_neg_f32 (0)": best_per_call(lambda: neg(c.address(x), c.address(y), 0)),
    "wf_add_f32 on 1e6 floats": best_per_call(lambda: add(c.address(saxpy_in), c.address(saxpy_in),
                                                    c.address(saxpy_out), 1, sizes, ones, ones), calls=20, repeats=5),
}
json.dumps({"load_ms": load_ms, "backend": c.backend_name(), "python": sys.version.split()[0], "rows": rows})
`);
const result = JSON.parse(report);
console.log(`Pyodide ${pyodide.version} (Python ${result.python}) in Node ${process.version}`);
console.log(`boot (loadPyodide, offline):              ${bootMs.toFixed(0)} ms`);
console.log(`copy webflow/ into the in-memory FS:      ${copyMs.toFixed(0)} ms`);
console.log(`import c_library + dlopen the .wasm:      ${result.load_ms.toFixed(0)} ms  (${result.backend})`);
for (const [name, micros] of Object.entries(result.rows)) {
  console.log(`${name.padEnd(41)} ${micros.toFixed(2).padStart(9)} us per call`);
}
