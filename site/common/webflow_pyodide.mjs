// What both pages' Web Workers do first: start Pyodide from the site's offline distribution (../pyodide/,
// no CDN) and install webflow's wheel from ../wheels/ (its file name is in ../wheels/index.json) with
// loadPackage. Reports progress through `post("status", {text})`; returns the Pyodide instance and timings.
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
  await pyodide.loadPackage(`${base}wheels/${index.webflow}`, { messageCallback: () => {} });
  return { pyodide, bootMs, installMs: since(start) - bootMs };
}
