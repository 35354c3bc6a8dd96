// The char-RNN page: talks to char_rnn_worker.js (where Python runs) and draws what it reports.
//
// <body data-state> goes loading -> ready (Python and the model are up; Train and Sample enabled) -> training
// (after a click on Train; training never starts on its own) -> trained ("Train more" -> training again).
// The loss curve starts at the untrained model's loss and grows after every chunk of steps; a sample (at the
// slider's temperature) is drawn every few dozen steps and on **Sample**.
// The page's query (?steps=N ...) goes on to the worker. window.charRnnDemo keeps what the worker reported
// (ready, progress, samples, trained) for the browser test and for curious visitors' consoles.
const $ = (id) => document.getElementById(id);
const setState = (state) => { document.body.dataset.state = state; };
const worker = new Worker(new URL(`char_rnn_worker.js${location.search}`, import.meta.url), { type: "module" });
const started = performance.now();
const points = [];        // one {step, loss} per chunk: the mean loss of its steps
let initialLoss = 1;      // ln(vocabulary): the chart's top line
let sampleId = 0;
window.charRnnDemo = { progress: [], samples: [] };

const temperature = () => parseFloat($("temperature").value);

function showSample({ text, step, temperature: t }) {
  const previous = $("sample-text").textContent;
  if (previous) {
    const item = document.createElement("li");
    const pre = document.createElement("pre");
    pre.textContent = previous;          // textContent: the model's characters are never parsed as HTML
    item.append(`after ${$("sample-step").textContent} steps`, pre);
    $("sample-history").prepend(item);
  }
  $("sample-step").textContent = `${step} (temperature ${t.toFixed(2)})`;
  $("sample-text").textContent = text;
}

// ------------------------------------------------------------------------------- messages from Python
const handlers = {
  status: ({ text }) => { $("status").textContent = text; },
  ready: ({ info, backend, python, sample, timings }) => {
    initialLoss = info.initial_loss;
    points.push({ step: 0, loss: info.initial_measured });   // the curve starts at the untrained model's loss
    $("loss").textContent = info.initial_measured.toFixed(3);
    $("loss-max").textContent = initialLoss.toFixed(2);
    $("status").textContent = `Ready in ${(timings.total_ms / 1000).toFixed(1)} s (Python ${python}, kernels ${backend}). ` +
      `LSTM: 1 layer × ${info.hidden_size} units, ${info.vocab_size} characters, embedding ${info.embedding_size}, ` +
      `batch ${info.batch_size} × ${info.num_steps} steps, Adam ${info.learning_rate}; ${info.steps} training steps.`;
    $("train").disabled = false;
    $("sample").disabled = false;
    showSample({ ...sample, step: 0 });
    window.charRnnDemo.ready = { info, backend, timings, sample, page_ms: Math.round(performance.now() - started) };
    setState("ready");
  },
  progress: (chunk) => {
    window.charRnnDemo.progress.push(chunk);
    const mean = chunk.losses.reduce((a, b) => a + b, 0) / chunk.losses.length;
    points.push({ step: chunk.step, loss: mean });
    $("progress").value = chunk.step / chunk.steps;
    $("step-count").textContent = `${chunk.step} / ${chunk.steps}`;
    $("loss").textContent = mean.toFixed(3);
    $("speed").textContent = `(${chunk.steps_per_s.toFixed(1)} steps/s, ${Math.round(chunk.chars_per_s)} characters/s)`;
    drawChart(chunk.steps);
  },
  sample: (fields) => {
    window.charRnnDemo.samples.push(fields);
    showSample(fields);
  },
  trained: ({ steps, run_steps, train_ms, final_loss }) => {
    const rate = run_steps / (train_ms / 1000);
    $("status").textContent = `Trained: ${run_steps} steps in ${(train_ms / 1000).toFixed(1)} s ` +
      `(${rate.toFixed(1)} steps/s; ${steps} in all). Move the temperature and draw more samples, or train more.`;
    window.charRnnDemo.trained = { steps, run_steps, train_ms, final_loss };
    $("train").textContent = "Train more";
    $("train").disabled = false;
    setState("trained");
  },
  error: ({ message }) => {
    $("status").textContent = `Error: ${message}`;
    console.error(`char-rnn worker: ${message}`);
  },
};
worker.onmessage = (event) => handlers[event.data.type](event.data);

// ------------------------------------------------------------------------------- the loss chart (SVG)
function drawChart(totalSteps) {
  const x = (step) => 40 + (420 * step) / totalSteps;
  const y = (loss) => 170 - (160 * Math.min(loss, initialLoss)) / initialLoss;
  $("loss-line").setAttribute("points", points.map((p) => `${x(p.step).toFixed(1)},${y(p.loss).toFixed(1)}`).join(" "));
}

// ------------------------------------------------------------------------------- controls
$("train").addEventListener("click", () => {
  $("train").disabled = true;
  setState("training");
  $("status").textContent = "Training…";
  worker.postMessage({ type: "train" });
});
$("temperature").addEventListener("input", () => {
  $("temperature-value").textContent = temperature().toFixed(2);
  worker.postMessage({ type: "temperature", value: temperature() });
});
$("sample").addEventListener("click", () => {
  worker.postMessage({ type: "sample", id: ++sampleId, length: 200, temperature: temperature() });
});
