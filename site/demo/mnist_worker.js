// The demo's Web Worker: all Python runs here, so the page stays responsive while webflow trains.
//
// Boot: Pyodide from ../pyodide/ (the offline distribution `make site` builds: no CDN), then webflow's
// and protobuf's wheels from ../wheels/ (file names in ../wheels/index.json) installed with loadPackage, then
// mnist_model.py (readable Python beside this file) run to build the TF1 graph on the MNIST sample
// shipped in the wheel. Messages, page -> worker: {type: "train"}, {type: "predict", id, pixels},
// {type: "time_steps", count}. Worker -> page: "status", "ready", "progress", "trained",
// "prediction", "timing" and "error" (each carries what its name says; see mnist.js).
// With ?input=tfdata the training batches come from a tf.data pipeline over a TFRecord (mnist_tfdata.py).
// With ?model=cnn the model is TensorFlow.js's MNIST conv net (mnist_model.py's cnn_logits) instead of the MLP,
// trained on the 20,000 images of mnist_cnn/ (site/build.py writes them; ~3 MB, fetched only in this mode).
import { loadWebflow, since } from "../common/webflow_pyodide.mjs";

const CHUNK_STEPS = 20;  // training steps per Python call; the worker reports progress between chunks
const post = (type, fields = {}) => self.postMessage({ type, ...fields });
let demo = null;        // the Python MnistDemo object
let training = false;
const queue = [];       // messages that arrived before the model was ready

// ?input=tfdata (the page passes its query on): train through tf.data (mnist_tfdata.py) instead of feed_dict.
const QUERY = new URLSearchParams(self.location.search);
const INPUT = QUERY.get("input") === "tfdata" ? "tf.data" : "feed_dict";
// ?model=cnn (the page's model chooser): the conv net; the tf.data mode keeps the MLP.
const MODEL = QUERY.get("model") === "cnn" && INPUT === "feed_dict" ? "cnn" : "mlp";
// ?epochs=N (a test hook: tests/browser/test_wasm_heap_soak.py): train N epochs instead of the model's own count.
const EPOCHS = Number(QUERY.get("epochs")) || 0;
let python = null;      // the Pyodide instance, for the memory figures each progress message carries

// The WebAssembly heap's size (it only grows: a leak shows as growth) and the number of Python objects the
// garbage collector tracks after a collection (the tf.data mode makes a few cycles a step: not a leak).
function memory() {
  const module = python._module;
  const heap = module.HEAPU8 || (module.wasmMemory && new Uint8Array(module.wasmMemory.buffer));
  return { wasm_heap_bytes: heap ? heap.buffer.byteLength : null,
           python_objects: python.runPython("import gc; gc.collect(); len(gc.get_objects())") };
}

// tf.data mode: both .py files go to /home/pyodide/demo in Pyodide's file system and are imported as modules
// (mnist_tfdata.py imports mnist_model); the model then writes its TFRecord under /tmp, also in memory.
async function tfDataDemo(pyodide) {
  post("status", { text: "Writing the MNIST sample as tf.train.Example records to an in-memory TFRecord…" });
  pyodide.FS.mkdirTree("/home/pyodide/demo");
  for (const name of ["mnist_model.py", "mnist_tfdata.py"]) {
    const source = await (await fetch(new URL(name, self.location.href))).text();
    pyodide.FS.writeFile(`/home/pyodide/demo/${name}`, source);
  }
  return pyodide.runPython("import sys\nsys.path.insert(0, '/home/pyodide/demo')\n" +
                           `from mnist_tfdata import MnistTfDataDemo\nMnistTfDataDemo(${EPOCHS > 0 ? `epochs=${EPOCHS}` : ""})`);
}

// The conv net's training images: mnist_cnn/'s two gzip IDX files copied into Pyodide's (in-memory) file system.
async function cnnTrainFolder(pyodide) {
  post("status", { text: "Fetching the conv net's 20,000 training images (~3 MB)…" });
  const folder = "/home/pyodide/mnist_cnn";
  pyodide.FS.mkdirTree(folder);
  for (const name of ["train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"]) {
    const response = await fetch(new URL(`mnist_cnn/${name}`, self.location.href));
    if (!response.ok) throw new Error(`mnist_cnn/${name}: HTTP ${response.status}`);
    pyodide.FS.writeFile(`${folder}/${name}`, new Uint8Array(await response.arrayBuffer()));
  }
  return folder;
}

async function boot() {
  const start = performance.now();
  const { pyodide, bootMs, installMs } = await loadWebflow(post);
  python = pyodide;
  post("status", { text: "Reading the MNIST sample and building the graph…" });
  if (INPUT === "tf.data") demo = await tfDataDemo(pyodide);
  else {
    const source = await (await fetch(new URL("mnist_model.py", self.location.href))).text();
    pyodide.runPython(source);
    if (MODEL === "cnn") {
      const folder = await cnnTrainFolder(pyodide);
      post("status", { text: "Reading the MNIST images and building the graph…" });
      demo = pyodide.runPython(`MnistDemo(model="cnn", train_folder=Path("${folder}"))`);
    } else demo = pyodide.runPython(`MnistDemo(model="${MODEL}")`);
  }
  let info = demo.info().toJs({ dict_converter: Object.fromEntries });
  if (EPOCHS > 0) {
    demo.steps = Math.round(EPOCHS * info.train_examples / info.batch);
    info = demo.info().toJs({ dict_converter: Object.fromEntries });
  }
  const backend = pyodide.runPython("from webflow.backends.c import library\nlibrary.backend_name()");
  post("ready", { info, backend, input: INPUT, python: pyodide.runPython("import sys; sys.version.split()[0]"),
                  timings: { boot_ms: bootMs, install_ms: installMs, model_ms: since(start) - bootMs - installMs,
                             total_ms: since(start) } });
  while (queue.length) await handle(queue.shift());
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 0));  // lets "predict" messages in

async function train() {
  if (training) return;
  training = true;
  const start = performance.now();
  for (;;) {
    const chunk = demo.train_chunk(CHUNK_STEPS).toJs({ dict_converter: Object.fromEntries });
    post("progress", { ...chunk, ...memory() });
    if (chunk.step >= chunk.steps) break;
    await pause();
  }
  const trainMs = since(start);
  const accuracy = demo.test_accuracy();
  post("trained", { accuracy, train_ms: trainMs, evaluate_ms: since(start) - trainMs });
  training = false;
}

async function handle(message) {
  const { type } = message;
  if (type === "train") await train();
  else if (type === "predict") {
    const probabilities = demo.predict(Array.from(message.pixels)).toJs();
    post("prediction", { id: message.id, probabilities });
  } else if (type === "time_steps") {
    post("timing", { ms_per_step: demo.time_steps(message.count || 20), count: message.count || 20 });
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
