// The MNIST demo page: talks to mnist_worker.js (where Python runs) and draws what it reports.
//
// <body data-state> goes loading -> ready (Python and the model are up; the Train button is enabled)
// -> training (after a click on Train; training does not start on its own) -> trained (test accuracy in
// #accuracy, e.g. "93.1%"). Drawing on the pad works from "ready" on: each finished stroke sends the
// 28x28 image (digit.js) to the worker; the class probabilities come back as bars and #prediction.
import { toMnistPixels } from "./digit.js";

const $ = (id) => document.getElementById(id);
const setState = (state) => { document.body.dataset.state = state; };
// The page's query goes on to the worker: ?input=tfdata trains through tf.data instead of feed_dict.
const worker = new Worker(new URL(`mnist_worker.js${location.search}`, import.meta.url), { type: "module" });
const started = performance.now();
const history = [];          // one {step, loss, accuracy} per progress message
let totalSteps = 1;
let predictionId = 0;

// ------------------------------------------------------------------------------- messages from Python
const handlers = {
  status: ({ text }) => { $("status").textContent = text; },
  ready: ({ info, backend, input, python, timings }) => {
    totalSteps = info.steps;
    document.body.dataset.input = input;   // "feed_dict" or "tf.data": how training batches reach the graph
    $("input-pipeline").textContent = input === "tf.data"
      ? `Training batches: tf.data (TFRecordDataset → parse_single_example → cache → shuffle → batch) over ` +
        `${info.train_examples.toLocaleString()} tf.train.Example records, ` +
        `${(info.records_bytes / 1e6).toFixed(1)} MB in memory, written in ${(info.write_ms / 1000).toFixed(1)} s.`
      : "Training batches: feed_dict.";
    document.body.dataset.model = info.model;   // "mlp" or "cnn": which network the worker built
    $("model").value = info.model;
    $("status").textContent = `Ready in ${(timings.total_ms / 1000).toFixed(1)} s (Python ${python}, kernels ${backend}). ` +
      `Model ${info.description}, batch ${info.batch}, ${info.steps} ${info.optimizer} steps over ` +
      `${info.train_examples.toLocaleString()} images.`;
    $("train").disabled = false;
    $("model").disabled = false;
    window.mnistDemo.ready = { info, backend, input, timings, page_ms: Math.round(performance.now() - started) };
    setState("ready");
  },
  progress: (chunk) => {
    history.push(chunk);
    $("progress").value = chunk.step / chunk.steps;
    $("step-count").textContent = `${chunk.step} / ${chunk.steps}`;
    $("speed").textContent = `(${chunk.steps_per_second.toFixed(0)} steps/s)`;
    drawChart();
  },
  trained: ({ accuracy, train_ms }) => {
    $("accuracy").textContent = `${(100 * accuracy).toFixed(1)}%`;
    const rate = totalSteps / (train_ms / 1000);
    $("speed").textContent = `(${totalSteps} steps in ${(train_ms / 1000).toFixed(1)} s, ${rate.toFixed(0)} steps/s)`;
    $("status").textContent = "Trained. Draw a digit on the pad.";
    window.mnistDemo.trained = { accuracy, train_ms };
    setState("trained");
    if (lastPixels) predict(lastPixels);
  },
  prediction: ({ id, probabilities }) => { if (id === predictionId) showPrediction(probabilities); },
  timing: (fields) => { window.mnistDemo.timing = fields; },
  error: ({ message }) => {
    $("status").textContent = `Error: ${message}`;
    console.error(`mnist worker: ${message}`);
  },
};
worker.onmessage = (event) => handlers[event.data.type](event.data);
worker.onerror = (event) => { handlers.error({ message: event.message || "the worker failed to start" }); };

// The model chooser reloads the page with ?model=cnn (or without it): each model gets a fresh worker.
$("model").addEventListener("change", () => {
  const query = new URLSearchParams(location.search);
  if ($("model").value === "cnn") query.set("model", "cnn");
  else query.delete("model");
  query.delete("input");   // the tf.data mode trains the MLP only
  location.search = query.toString();
});

$("train").addEventListener("click", () => {
  $("train").disabled = true;
  $("model").disabled = true;
  $("status").textContent = "Training…";
  setState("training");
  worker.postMessage({ type: "train" });
});

// --------------------------------------------------------------------------------------- the chart
function drawChart() {
  const left = 40, top = 10, width = 400, height = 160;
  const maxLoss = Math.max(...history.map((h) => h.loss), 1e-9);
  const x = (step) => left + (width * step) / totalSteps;
  const points = (value) => history.map((h) => `${x(h.step).toFixed(1)},${(top + height * (1 - value(h))).toFixed(1)}`).join(" ");
  $("loss-line").setAttribute("points", points((h) => h.loss / maxLoss));
  $("accuracy-line").setAttribute("points", points((h) => h.accuracy));
  $("loss-max").textContent = maxLoss.toFixed(2);
}

// ----------------------------------------------------------------------------- the drawing pad
const pad = $("pad"), ink = pad.getContext("2d", { willReadFrequently: true });
ink.lineWidth = 20;
ink.lineCap = ink.lineJoin = "round";
ink.strokeStyle = "#111";
let drawing = false, lastPixels = null;

function padPoint(event) {
  const rect = pad.getBoundingClientRect();
  return [(event.clientX - rect.left) * (pad.width / rect.width), (event.clientY - rect.top) * (pad.height / rect.height)];
}
pad.addEventListener("pointerdown", (event) => {
  if (document.body.dataset.state === "loading") return;
  drawing = true;
  pad.setPointerCapture(event.pointerId);
  const [x, y] = padPoint(event);
  ink.beginPath();
  ink.moveTo(x, y);
  ink.lineTo(x, y);   // a click alone leaves a dot
  ink.stroke();
});
pad.addEventListener("pointermove", (event) => {
  if (!drawing) return;
  const [x, y] = padPoint(event);
  ink.lineTo(x, y);
  ink.stroke();
});
const endStroke = () => {
  if (!drawing) return;
  drawing = false;
  const pixels = toMnistPixels(ink.getImageData(0, 0, pad.width, pad.height));
  if (pixels) { lastPixels = pixels; showDigit(pixels); predict(pixels); }
};
pad.addEventListener("pointerup", endStroke);
pad.addEventListener("pointercancel", endStroke);

$("clear").addEventListener("click", () => {
  ink.clearRect(0, 0, pad.width, pad.height);
  lastPixels = null;
  predictionId++;   // drop an answer still on its way
  $("prediction").textContent = "–";
  showDigit(new Float32Array(784));
  showPrediction(null);
});

function predict(pixels) {
  worker.postMessage({ type: "predict", id: ++predictionId, pixels });
}

function showDigit(pixels) {
  const view = $("digit").getContext("2d"), image = view.createImageData(28, 28);
  pixels.forEach((v, i) => { image.data.set([255 * v, 255 * v, 255 * v, 255], 4 * i); });
  view.putImageData(image, 0, 0);
}

function showPrediction(probabilities) {
  const bars = $("bars");
  bars.replaceChildren();
  if (!probabilities) return;
  const best = probabilities.indexOf(Math.max(...probabilities));
  probabilities.forEach((p, digit) => {
    const row = document.createElement("li");
    row.id = `p${digit}`;
    row.className = digit === best ? "best" : "";
    row.innerHTML = `<span>${digit}</span><span class="bar" style="width:${(100 * p).toFixed(1)}%"></span>` +
      `<span>${(100 * p).toFixed(1)}%</span>`;
    bars.append(row);
  });
  $("prediction").textContent = String(best);
  $("prediction").dataset.probability = probabilities[best].toFixed(4);
}

// For tests and the benchmark: the worker (to time steps) and what it reported.
window.mnistDemo = { worker, history, pixels: () => lastPixels };
