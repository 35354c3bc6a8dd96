// The char-RNN page's Web Worker: all Python runs here, so the page stays responsive while webflow trains.
//
// Boot: Pyodide and webflow's wheel (../common/webflow_pyodide.mjs, no CDN), then char_rnn_model.py and
// char_lm_model.py (copied beside it by `make site`) written to Pyodide's in-memory file system and imported,
// and the Shakespeare slice char_rnn_text.txt (made by `make site` from the corpus) read from this site.
// Messages, page -> worker: {type: "train"} (STEPS steps; again: STEPS more), {type: "sample", id, length, temperature}, {type: "temperature",
// value} (the slider: used by the samples drawn during training). Worker -> page: "status", "ready",
// "progress" (losses of a chunk, speed), "sample" (text, step, temperature), "trained", "error".
// The page's query (?steps=N, ?chunk=N, ?sample_every=N) sets the run's length, e.g. for the browser test.
import { loadWebflow, since } from "../common/webflow_pyodide.mjs";

const QUERY = new URLSearchParams(self.location.search);
const integer = (name, fallback) => Math.max(1, parseInt(QUERY.get(name) || fallback, 10) || fallback);
const STEPS = integer("steps", 300);            // training steps of a run
const CHUNK_STEPS = integer("chunk", 5);        // steps per Python call; progress is posted between chunks
const SAMPLE_EVERY = integer("sample_every", 50);  // a sample is drawn every this many steps, and at the end
const SAMPLE_LENGTH = 160;
const post = (type, fields = {}) => self.postMessage({ type, ...fields });
let demo = null;        // the Python CharRnnDemo object
let training = false;
let temperature = 0.8;
const queue = [];       // messages that arrived before the model was ready

async function boot() {
  const start = performance.now();
  const { pyodide, bootMs, installMs } = await loadWebflow(post);
  post("status", { text: "Reading the Shakespeare excerpt and building the graph…" });
  pyodide.FS.mkdirTree("/home/pyodide/char_rnn");
  for (const name of ["char_lm_model.py", "char_rnn_model.py"]) {
    const source = await (await fetch(new URL(name, self.location.href))).text();
    pyodide.FS.writeFile(`/home/pyodide/char_rnn/${name}`, source);
  }
  const text = await (await fetch(new URL("char_rnn_text.txt", self.location.href))).text();
  const make = pyodide.runPython("import sys\nsys.path.insert(0, '/home/pyodide/char_rnn')\n" +
                                 "from char_rnn_model import CharRnnDemo\nCharRnnDemo");
  demo = make.callKwargs(text, { steps: STEPS });
  const info = demo.info().toJs({ dict_converter: Object.fromEntries });
  info.initial_measured = demo.loss_on(0);   // the untrained model's loss on one batch: about ln(vocabulary)
  const backend = pyodide.runPython("from webflow.backends.c import library\nlibrary.backend_name()");
  post("ready", { info, backend, python: pyodide.runPython("import sys; sys.version.split()[0]"),
                  sample: sampleNow(temperature),
                  timings: { boot_ms: bootMs, install_ms: installMs, model_ms: since(start) - bootMs - installMs,
                             total_ms: since(start) } });
  while (queue.length) await handle(queue.shift());
}

function sampleNow(t, length = SAMPLE_LENGTH) {
  const start = performance.now();
  const text = demo.sample(length, t);
  return { text, temperature: t, length, ms: since(start) };
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 0));  // lets "sample"/"temperature" in

async function train() {
  if (training) return;
  training = true;
  if (demo.step >= demo.steps) demo.extend(STEPS);   // Train again after a finished run: STEPS more steps
  let trainMs = 0;
  for (;;) {
    const chunk = demo.train_chunk(CHUNK_STEPS).toJs({ dict_converter: Object.fromEntries });
    trainMs += chunk.seconds * 1000;
    post("progress", chunk);
    if (chunk.step % SAMPLE_EVERY === 0 || chunk.step >= chunk.steps) {
      post("sample", { step: chunk.step, ...sampleNow(temperature) });
    }
    if (chunk.step >= chunk.steps) break;
    await pause();
  }
  post("trained", { steps: demo.step, run_steps: STEPS, train_ms: Math.round(trainMs), final_loss: demo.loss_on(0) });
  training = false;
}

async function handle(message) {
  const { type } = message;
  if (type === "train") await train();
  else if (type === "temperature") temperature = message.value;
  else if (type === "sample") {
    post("sample", { id: message.id, step: demo.step, ...sampleNow(message.temperature, message.length) });
  } else throw new Error(`unknown message type ${type}`);
}

self.onmessage = async (event) => {
  try {
    if (demo === null) queue.push(event.data);
    else await handle(event.data);
  } catch (error) {
    post("error", { message: String(error && error.message ? error.message : error) });
  }
};

boot().catch((error) => post("error", { message: `start-up failed: ${error && error.message ? error.message : error}` }));
