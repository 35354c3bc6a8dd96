// The Web Worker of benchmarks/browser_vs_tfjs.py's page: webflow in Pyodide, booted as the site's pages boot it
// (site/common/webflow_pyodide.mjs: the offline Pyodide and webflow's wheel from the built site), then
// pyodide_timings.py (beside this file) and the MNIST demo's model (/demo/mnist_model.py) loaded as modules.
// Page -> worker: {type: "time", what: "gemm" | "mlp", ...options}. Worker -> page: "status", "ready"
// ({backend, variant, timings}), "result" ({what, value}) and "error" ({message}).
import { loadWebflow, since } from "/common/webflow_pyodide.mjs";

const post = (type, fields = {}) => self.postMessage({ type, ...fields });
let python = null;

async function boot() {
  const start = performance.now();
  const { pyodide, bootMs, installMs } = await loadWebflow(post);
  pyodide.FS.mkdirTree("/home/pyodide/bench");
  for (const [url, name] of [[new URL("pyodide_timings.py", import.meta.url), "pyodide_timings.py"],
                             [new URL("/demo/mnist_model.py", self.location.href), "mnist_model.py"]]) {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    pyodide.FS.writeFile(`/home/pyodide/bench/${name}`, await response.text());
  }
  pyodide.runPython("import sys\nsys.path.insert(0, '/home/pyodide/bench')\nimport pyodide_timings");
  python = pyodide;
  const about = JSON.parse(pyodide.runPython("pyodide_timings.about()"));
  post("ready", { ...about, timings: { boot_ms: bootMs, install_ms: installMs, total_ms: since(start) } });
}

function time(message) {
  python.globals.set("bench_options", JSON.stringify(message));
  const value = python.runPython("pyodide_timings.run_json(bench_options)");
  post("result", { what: message.what, value: JSON.parse(value) });
}

self.onmessage = (event) => {
  try {
    if (event.data.type === "time") time(event.data);
    else throw new Error(`unknown message type ${event.data.type}`);
  } catch (error) {
    post("error", { message: String(error && error.message ? error.message : error) });
  }
};

boot().catch((error) => post("error", { message: `start-up failed: ${error && error.message ? error.message : error}` }));
