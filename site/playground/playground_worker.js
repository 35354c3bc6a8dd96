// The playground's Web Worker: Python runs here, so the page stays responsive while a program runs.
//
// Boot: Pyodide from ../pyodide/ (the offline distribution `make site` builds: no CDN), webflow's and
// protobuf's wheels from ../wheels/ (file names in ../wheels/index.json) installed with loadPackage, then
// playground_runner.py (beside this file) run once in its own namespace; its run_program(source) runs one
// program and answers with a JSON string (the program's output, the explanation of an error, the graph
// document). Messages, page -> worker: {type: "run", id, source}. Worker -> page: "status" {text},
// "ready" {python, backend, timings}, "result" {id, answer (the JSON string), ms}, "error" {message}.
import { loadWebflow, since } from "../common/webflow_pyodide.mjs";

const post = (type, fields = {}) => self.postMessage({ type, ...fields });
let runProgram = null;  // the Python function run_program(source) -> str
const queue = [];       // "run" messages that arrived before Python was ready

async function boot() {
  const start = performance.now();
  const { pyodide, bootMs, installMs } = await loadWebflow(post);
  post("status", { text: "Importing webflow…" });
  const source = await (await fetch(new URL("playground_runner.py", self.location.href))).text();
  const namespace = pyodide.globals.get("dict")();
  pyodide.runPython(source, { globals: namespace, filename: "playground_runner.py" });
  runProgram = namespace.get("run_program");
  const backend = pyodide.runPython("from webflow.backends.c import library\nlibrary.backend_name()");
  post("ready", { python: pyodide.runPython("import sys; sys.version.split()[0]"), backend,
                  timings: { boot_ms: bootMs, install_ms: installMs, import_ms: since(start) - bootMs - installMs,
                             total_ms: since(start) } });
  while (queue.length) handle(queue.shift());
}

function handle(message) {
  if (message.type !== "run") throw new Error(`unknown message type ${message.type}`);
  const start = performance.now();
  const answer = runProgram(message.source);   // a JSON string: parsed by the page
  post("result", { id: message.id, answer, ms: since(start) });
}

self.onmessage = (event) => {
  try {
    if (runProgram === null) queue.push(event.data);
    else handle(event.data);
  } catch (error) {
    post("error", { message: String(error && error.message ? error.message : error) });
  }
};

boot().catch((error) => post("error", { message: `start-up failed: ${error && error.message ? error.message : error}` }));
