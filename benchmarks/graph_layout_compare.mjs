// Issue 31's measured comparison: the labextension's own layered layout (labextension/src/layout.ts + compound.ts)
// against ELK's layered algorithm (elkjs), on the graphs that benchmarks/graph_layout_graphs.py writes.
//
//   python benchmarks/graph_layout_graphs.py                    # writes benchmarks/_bench_out/graph_*.json
//   (cd benchmarks/graph_layout && npm install)                 # elkjs, pinned in its package.json
//   node benchmarks/graph_layout_compare.mjs [OUT_DIR]          # prints one row per graph, view and layout
//
// Both layouts get the same boxes (the renderer's sizes: 7 px a character, 38 px high) and the same visible graph
// (labextension/src/scopes.ts: the default view, TensorBoard-style collapsed scopes, and everything expanded).
// Measured the same way for both, from the coordinates each returns:
//   crossings: pairs of edge segments that properly intersect (edges sharing an end box are not counted: they meet
//              at that box by design), over the drawn polylines (source bottom -> bends -> target top);
//   area:      width x height of the whole drawing, in px;
//   time:      median wall time of 5 runs after one warm-up, ms (ELK's synchronous bundled build, no worker).

import { createRequire } from 'node:module';
import { readFileSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = dirname(here);
const outDir = process.argv[2] ?? join(here, '_bench_out');
const require = createRequire(join(repo, 'labextension', 'package.json'));
const esbuild = require('esbuild');
const ELK = createRequire(join(here, 'graph_layout', 'package.json'))('elkjs/lib/elk.bundled.js');

// The renderer's own modules, bundled (they are TypeScript with extensionless imports).
async function loadOwnLayout() {
  const work = mkdtempSync(join(tmpdir(), 'wf-layout-'));
  const entry = join(work, 'entry.ts');
  const src = join(repo, 'labextension', 'src');
  writeFileSync(entry, `export { buildScopeTree, defaultExpanded, visibleGraph } from ${JSON.stringify(join(src, 'scopes'))};
export { compoundLayout, FRAME_PAD, FRAME_HEADER } from ${JSON.stringify(join(src, 'compound'))};`);
  const bundle = join(work, 'own.mjs');
  await esbuild.build({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'node', outfile: bundle, logLevel: 'error' });
  const module = await import(pathToFileURL(bundle).href);
  rmSync(work, { recursive: true, force: true });
  return module;
}

// render.ts's box sizes (itemSize), repeated here because render.ts needs a DOM.
const NODE_HEIGHT = 38;
const boxWidth = (...texts) => Math.min(340, Math.max(64, Math.max(...texts.map((t) => t.length)) * 7 + 24));
const shortName = (name) => name.split('/').pop();
function itemSize(item) {
  if (item.kind === 'group') return { width: boxWidth(shortName(item.name), `${item.members.length} ops  +`), height: NODE_HEIGHT };
  return { width: boxWidth(shortName(item.node.name), `${item.node.type} · 000.0 µs`), height: NODE_HEIGHT };
}

function ownLayout(own, visible, options = {}) {
  const layout = own.compoundLayout(visible.items.map((i) => ({ id: i.id, container: i.container, ...itemSize(i) })),
    visible.frames, visible.edges, options);
  const lines = visible.edges.map((e) => {
    const s = layout.boxes.get(e.source);
    const t = layout.boxes.get(e.target);
    return { source: e.source, target: e.target,
      points: [{ x: s.x + s.width / 2, y: s.y + s.height }, ...(layout.routes.get(e.key) ?? []), { x: t.x + t.width / 2, y: t.y }] };
  });
  return { width: layout.width, height: layout.height, lines };
}

function elkGraph(own, visible) {
  const nodes = new Map([[null, { id: 'root', children: [] }]]);
  for (const f of visible.frames) {
    nodes.set(f.id, { id: f.id, children: [], layoutOptions: {
      'elk.padding': `[top=${own.FRAME_HEADER + own.FRAME_PAD},left=${own.FRAME_PAD},bottom=${own.FRAME_PAD},right=${own.FRAME_PAD}]` } });
  }
  for (const f of visible.frames) nodes.get(f.container).children.push(nodes.get(f.id));
  for (const i of visible.items) nodes.get(i.container).children.push({ id: i.id, ...itemSize(i) });
  const root = nodes.get(null);
  root.layoutOptions = {
    'elk.algorithm': 'layered', 'elk.direction': 'DOWN', 'elk.edgeRouting': 'ORTHOGONAL',
    'elk.hierarchyHandling': 'INCLUDE_CHILDREN', 'elk.spacing.nodeNode': '24',
    'elk.layered.spacing.nodeNodeBetweenLayers': '56', 'elk.json.edgeCoords': 'ROOT', 'elk.json.shapeCoords': 'ROOT' };
  root.edges = visible.edges.map((e, n) => ({ id: `e${n}`, sources: [e.source], targets: [e.target] }));
  return root;
}

async function elkLayout(elk, own, visible) {
  const done = await elk.layout(elkGraph(own, visible));
  const lines = done.edges.map((e) => {
    const section = e.sections[0];
    return { source: e.sources[0], target: e.targets[0],
      points: [section.startPoint, ...(section.bendPoints ?? []), section.endPoint] };
  });
  return { width: done.width, height: done.height, lines };
}

// Proper intersections of segments of two polylines (touching ends and collinear overlaps not counted).
function segmentsCross(a, b, c, d) {
  const orient = (p, q, r) => Math.sign((q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x));
  const o1 = orient(a, b, c), o2 = orient(a, b, d), o3 = orient(c, d, a), o4 = orient(c, d, b);
  return o1 * o2 < 0 && o3 * o4 < 0;
}

function crossings(lines) {
  const segments = [];
  lines.forEach((line, n) => {
    for (let k = 0; k + 1 < line.points.length; k++) {
      const [p, q] = [line.points[k], line.points[k + 1]];
      segments.push({ n, p, q, x0: Math.min(p.x, q.x), x1: Math.max(p.x, q.x), y0: Math.min(p.y, q.y), y1: Math.max(p.y, q.y) });
    }
  });
  segments.sort((s, t) => s.x0 - t.x0);
  let count = 0;
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i];
    for (let j = i + 1; j < segments.length && segments[j].x0 <= s.x1; j++) {
      const t = segments[j];
      if (s.n === t.n || t.y0 > s.y1 || t.y1 < s.y0) continue;
      const [a, b] = [lines[s.n], lines[t.n]];
      if (a.source === b.source || a.source === b.target || a.target === b.source || a.target === b.target) continue;
      if (segmentsCross(s.p, s.q, t.p, t.q)) count++;
    }
  }
  return count;
}

async function timed(run) {
  await run();
  const times = [];
  let result;
  for (let k = 0; k < 5; k++) {
    const start = performance.now();
    result = await run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { result, ms: times[2] };
}

const own = await loadOwnLayout();
const elk = new ELK();
const graphs = ['deep_mnist', 'lstm_lm', 'lstm_unrolled'];
console.log('graph            ops  view      boxes edges layout  crossings      area (px)   width x height   time (ms)');
for (const name of graphs) {
  const doc = JSON.parse(readFileSync(join(outDir, `graph_${name}.json`), 'utf8'));
  const tree = own.buildScopeTree(doc.nodes, 40);
  const views = { default: own.defaultExpanded(tree, 40, null), expanded: new Set([...tree.keys()].filter((s) => s !== '')) };
  views.flat = views.expanded;
  for (const [view, expanded] of Object.entries(views)) {
    const visible = own.visibleGraph(doc, tree, expanded);
    if (view === 'flat') {  // every op at the top level: no frames, the ordering alone
      visible.items = visible.items.map((i) => ({ ...i, container: null }));
      visible.frames = [];
    }
    for (const [label, run] of [['own', async () => ownLayout(own, visible)],
      ['elk', () => elkLayout(elk, own, visible)]]) {
      const { result, ms } = await timed(run);
      const area = Math.round(result.width * result.height);
      console.log(`${name.padEnd(15)} ${String(doc.nodes.length).padStart(4)}  ${view.padEnd(9)} ${String(visible.items.length).padStart(5)} ` +
        `${String(visible.edges.length).padStart(5)} ${label.padEnd(6)} ${String(crossings(result.lines)).padStart(10)} ` +
        `${String(area).padStart(14)} ${`${Math.round(result.width)} x ${Math.round(result.height)}`.padStart(16)} ${ms.toFixed(1).padStart(11)}`);
    }
  }
}
