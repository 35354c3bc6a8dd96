// The graph playground page: the editor, the Run button, and what comes back from playground_worker.js.
//
// <body data-state>: loading (Python starting) -> ready (Run enabled) -> running (after Run or Ctrl+Enter)
// -> done (the program finished) or error (it raised: #explanation shows webflow.lab.explain's text and the
// graph marks the failing op) -> running again on the next Run. A worker that cannot start also ends in
// "error", with the reason in #status. Stop (enabled while running) ends a program that runs too long: the
// worker is terminated and a fresh one boots (-> loading -> ready).
// The graph is drawn by window.webflowGraph.renderGraph (webflow-graph.js: the JupyterLab extension's
// renderer bundled for plain pages); every run gets a fresh view, so a new program is fitted to the frame.

const $ = (id) => document.getElementById(id);
const setState = (state) => { document.body.dataset.state = state; };
let worker = null;
let started = performance.now();
const DEFAULT_EXAMPLE = "linear_regression.py";
let runId = 0;
let view = null;            // the renderer's view of the last document (disposed before the next one)
let pythonReady = false;

// ----------------------------------------------------------------------------------------- examples
async function loadExample(file) {
  const response = await fetch(new URL(`examples/${file}`, import.meta.url));
  if (!response.ok) throw new Error(`could not load examples/${file} (${response.status})`);
  $("source").value = await response.text();
}

$("example").addEventListener("change", () => {
  loadExample($("example").value).catch((error) => { $("status").textContent = String(error.message || error); });
});

// --------------------------------------------------------------------------------------------- running
function run() {
  if (!pythonReady || document.body.dataset.state === "running") return;
  setState("running");
  $("run").disabled = true;
  $("stop").disabled = false;
  $("status").textContent = "Running…";
  worker.postMessage({ type: "run", id: ++runId, source: $("source").value });
}

$("run").addEventListener("click", run);
$("source").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    run();
  } else if (event.key === "Tab" && !event.shiftKey) {   // Python wants indentation, not focus moves
    event.preventDefault();
    const area = $("source");
    area.setRangeText("    ", area.selectionStart, area.selectionEnd, "end");
  }
});

function showText(id, text) {
  $(id).textContent = text || "";
  $(id).hidden = !text && id !== "stdout";
}

function drawGraph(documentData) {
  if (view) view.dispose();
  const host = document.createElement("div");   // a new host: the renderer keeps one view per element
  $("graph").replaceChildren(host);
  view = window.webflowGraph.renderGraph(host, documentData);
}

// ------------------------------------------------------------------------------- messages from Python
const handlers = {
  status: ({ text }) => { $("status").textContent = text; },
  ready: ({ python, backend, timings }) => {
    pythonReady = true;
    window.playground.ready = { backend, timings, page_ms: Math.round(performance.now() - started) };
    $("status").textContent = `Ready in ${(timings.total_ms / 1000).toFixed(1)} s (Python ${python}, kernels ${backend}).`;
    $("run").disabled = false;
    $("source").disabled = false;
    setState("ready");
  },
  result: ({ id, answer, ms }) => {
    if (id !== runId) return;
    $("stop").disabled = true;
    const result = JSON.parse(answer);
    showText("stdout", result.stdout);
    showText("stderr", result.stderr);
    showText("explanation", result.explanation);
    drawGraph(result.document);
    const ops = result.document.nodes.length;
    $("status").textContent = result.ok
      ? `Done in ${(result.timings.run_ms / 1000).toFixed(2)} s: ${ops} ops in the graph.`
      : `${result.error.type} (see below; the failing op is marked in the graph).`;
    window.playground.last = { ok: result.ok, ms, timings: result.timings, error: result.error };
    $("run").disabled = false;
    setState(result.ok ? "done" : "error");
  },
  error: ({ message }) => {
    $("status").textContent = `Error: ${message}`;
    $("run").disabled = !pythonReady;
    $("stop").disabled = true;
    console.error(`playground worker: ${message}`);
    setState("error");
  },
};
function startWorker() {
  worker = new Worker(new URL("playground_worker.js", import.meta.url), { type: "module" });
  worker.onmessage = (event) => handlers[event.data.type](event.data);
  worker.onerror = (event) => { handlers.error({ message: event.message || "the worker failed to start" }); };
  window.playground.worker = worker;
}

// Python cannot be interrupted from outside its worker here (that needs cross-origin isolation), so Stop
// ends the worker and starts Python again.
$("stop").addEventListener("click", () => {
  worker.terminate();
  pythonReady = false;
  runId++;
  $("stop").disabled = true;
  $("run").disabled = true;
  $("status").textContent = "Stopped. Starting Python again…";
  started = performance.now();
  setState("loading");
  startWorker();
});

// For tests: the worker, what it reported, and run() itself.
window.playground = { run };
startWorker();
loadExample(DEFAULT_EXAMPLE).catch((error) => handlers.error({ message: String(error.message || error) }));
