// What the Node benchmarks here share (wasm_vs_tfjs.mjs, pyodide_mlp_vs_tfjs.mjs): the timing loop, the
// deterministic inputs, and the tfjs side of the MLP training step both compare webflow with.

const secondsPerCall = (fn, number) => {
  const started = performance.now();
  for (let i = 0; i < number; i++) fn();
  return (performance.now() - started) / 1e3 / number;
};

// A bestSeconds(...fns) for this budget: seconds per call of each function, the best of `repeats` batches,
// a batch being as many calls as fit in budget / repeats (at least one), counted after `warmups` calls.
// The functions' batches alternate, so on a loaded machine all sides sample the same moments and their
// ratio is fairer than their absolute values. One function gives a number, several an array.
export function makeBestSeconds({ budget, repeats, warmups = 1 }) {
  const batchSize = (fn) => {
    for (let i = 0; i < warmups; i++) fn();
    const started = performance.now();
    let calls = 0;
    while (performance.now() - started < (1e3 * budget) / repeats) { fn(); calls++; }
    return Math.max(1, calls);
  };
  return (...fns) => {
    const numbers = fns.map(batchSize), best = fns.map(() => Infinity);
    for (let r = 0; r < repeats; r++) {
      fns.forEach((fn, i) => { best[i] = Math.min(best[i], secondsPerCall(fn, numbers[i])); });
    }
    return fns.length === 1 ? best[0] : best;
  };
}

// Deterministic inputs (a small LCG) so every library sees the same numbers.
export function randomFloats(count, seed, scale = 1) {
  const out = new Float32Array(count);
  let state = seed >>> 0;
  for (let i = 0; i < count; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = (state / 4294967296 - 0.5) * 2 * scale;
  }
  return out;
}

export const maxAbsDiff = (a, b) => a.reduce((worst, value, i) => Math.max(worst, Math.abs(value - b[i])), 0);

// The MLP training step in tfjs: tf.train.adam's minimize over the variables (tf.variableGrads + Adam
// updates). `initial` holds [w0, b0, w1, b1, ...] for the layer widths `sizes`; `inputs` and `labels`
// (one-hot) are tensors. Returns { step: () => loss, read: () => the variables' values }.
export function tfjsMlpStep(tf, sizes, initial, inputs, labels, adam) {
  const variables = initial.map((values, i) => tf.variable(
    i % 2 ? tf.tensor1d(values) : tf.tensor2d(values, [sizes[i / 2], sizes[i / 2 + 1]])));
  const optimizer = tf.train.adam(adam.lr, adam.beta1, adam.beta2, adam.epsilon);
  const step = () => {
    const cost = optimizer.minimize(() => {
      let hidden = inputs;
      for (let l = 0; l < variables.length / 2; l++) {
        const z = tf.add(tf.matMul(hidden, variables[2 * l]), variables[2 * l + 1]);
        hidden = l < variables.length / 2 - 1 ? tf.relu(z) : z;
      }
      return tf.losses.softmaxCrossEntropy(labels, hidden);  // mean over the batch
    }, true, variables);
    const value = cost.dataSync()[0];
    cost.dispose();
    return value;
  };
  return { step, read: () => variables.map((v) => v.dataSync()) };
}
