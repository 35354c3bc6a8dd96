// One long-lived Pyodide (in Node, offline) that runs webflow's wasm kernels for the tests.
//
//     node pyodide_server.mjs <webflow package dir> <exchange dir>
//     node pyodide_server.mjs --wheel <webflow .whl> --micropip <micropip .whl> <exchange dir>
//     ... --extra-wheels <a.whl,b.whl> ...   (pure-Python wheels loaded first, e.g. protobuf's)
//
// Boots Pyodide from node_modules (no CDN, no network), copies the webflow package (its .py files and
// the prebuilt webflow_kernels.wasm) into Pyodide's in-memory file system as the browser would have it,
// mounts <exchange dir> (real files shared with pytest) at /exchange, and loads runner.py.
// With --wheel, webflow is instead installed as a user would: micropip loaded from its wheel file, then
// `micropip.install("emfs:/wheels/<webflow wheel>", deps=False)` (deps=False: the wheel names NumPy,
// which Pyodide here does not have), then `import webflow` before the runner (so its bare-package
// stand-in is not used). The first line then also has install_ms and import_ms.
// Then reads one JSON request per line on stdin and answers one JSON line on stdout:
//     {"run": "<job file>"}    -> runner.run_job(path): kernels called, output buffers written back
//     {"eval": "<python>"}     -> the value of the last expression (must be JSON-serialisable)
// answers: {"ok": true, "value": ...} or {"ok": false, "error": "<Python traceback>"}.
// The first line printed is {"ready": true, "boot_ms": ...}. Python's own prints go to stderr.
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { loadPyodide } from "pyodide";

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const option = (name) => {
  const at = argv.indexOf(name);
  return at < 0 ? null : argv.splice(at, 2)[1];
};
const wheel = option("--wheel"), micropipWheel = option("--micropip");
const extraWheels = (option("--extra-wheels") || "").split(",").filter(Boolean);
const [packageDir, exchangeDir] = wheel ? [null, argv[0]] : argv;
const started = performance.now();
const toStderr = (line) => process.stderr.write(line + "\n");
const pyodide = await loadPyodide({ stdout: toStderr, stderr: toStderr });
const bootMs = performance.now() - started;
const timings = {};
if (extraWheels.length) {  // loadPackage of wheel files: installed as they are, no dependency resolution
  const mark = performance.now();
  await pyodide.loadPackage(extraWheels, { messageCallback: () => {} });
  timings.extra_wheels_ms = performance.now() - mark;
}

// The package as a wheel would install it: sources and the shipped .wasm, no native build cache.
const SKIP = new Set(["__pycache__", "_build", "datasets"]);
function copyTree(source, target) {
  pyodide.FS.mkdirTree(target);
  for (const entry of fs.readdirSync(source, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const from = path.join(source, entry.name);
    const to = `${target}/${entry.name}`;
    if (entry.isDirectory()) copyTree(from, to);
    else if (/\.(py|wasm)$/.test(entry.name)) pyodide.FS.writeFile(to, fs.readFileSync(from));
  }
}
if (wheel) {
  let mark = performance.now();
  await pyodide.loadPackage(micropipWheel, { messageCallback: toStderr });
  const target = `/wheels/${path.basename(wheel)}`;  // the file name must stay a valid wheel name
  pyodide.FS.mkdirTree("/wheels");
  pyodide.FS.writeFile(target, fs.readFileSync(wheel));
  await pyodide.runPythonAsync(`import micropip\nawait micropip.install("emfs:${target}", deps=False)`);
  timings.install_ms = performance.now() - mark;
  mark = performance.now();
  pyodide.runPython("import webflow");
  timings.import_ms = performance.now() - mark;
} else {
  copyTree(packageDir, "/home/pyodide/site/webflow");
}
pyodide.FS.mkdirTree("/home/pyodide/site");
pyodide.FS.mkdirTree("/exchange");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: exchangeDir }, "/exchange");
pyodide.FS.writeFile("/home/pyodide/site/wf_pyodide_runner.py", fs.readFileSync(path.join(here, "runner.py")));
pyodide.runPython("import sys; sys.path.insert(0, '/home/pyodide/site'); import wf_pyodide_runner");
const runner = pyodide.pyimport("wf_pyodide_runner");

const reply = (answer) => process.stdout.write(JSON.stringify(answer) + "\n");
reply({ ready: true, boot_ms: bootMs, setup_ms: performance.now() - started - bootMs, ...timings });
const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  try {
    const request = JSON.parse(line);
    const text = "run" in request ? runner.run_job(request.run) : runner.evaluate(request.eval);
    process.stdout.write(`{"ok": true, "value": ${text}}\n`);  // text is JSON made by Python
  } catch (error) {
    reply({ ok: false, error: String(error && error.message ? error.message : error) });
  }
}
