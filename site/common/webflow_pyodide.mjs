// What both pages' Web Workers do first: start Pyodide from the site's offline distribution (../pyodide/,
// no CDN) and install webflow's wheel and protobuf's pure-Python one from ../wheels/ (their file names are in
// ../wheels/index.json) with one loadPackage. protobuf is the runtime of webflow's TensorFlow messages
// (checkpoints, GraphDefs, event files, tf.train.Example); it is only imported when a program uses them.
// Reports progress through `post("status", {text})`; returns the Pyodide instance and timings.
import { loadPyodide } from "../pyodide/pyodide.mjs";

export const since = (start) => Math.round(performance.now() - start);

export async function loadWebflow(post) {
  const start = performance.now();
  post("status", { text: "Starting Python (Pyodide)…" });
  const base = new URL("../", import.meta.url).href;
  // Python's own prints go to the console (a page captures what it wants to show in Python itself).
  const pyodide = await loadPyodide({ indexURL: `${base}pyodide/`, stdout: (line) => console.log(line),
                                      stderr: (line) => console.warn(line) });
  const bootMs = since(start);
  post("status", { text: "Installing webflow…" });
  const index = await (await fetch(`${base}wheels/index.json`)).json();
  const wheels = [index.webflow, index.protobuf].filter(Boolean).map((name) => `${base}wheels/${name}`);
  await pyodide.loadPackage(wheels, { messageCallback: () => {} });
  return { pyodide, bootMs, installMs: since(start) - bootMs };
}
