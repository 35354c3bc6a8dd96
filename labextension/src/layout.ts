// Layered ("Sugiyama") layout of a DAG, and the compound version that nests expanded name scopes.
//   1. break cycles (collapsed groups can create them) by reversing DFS back edges
//   2. layering: longest path from the sources, then every node moves down next to its first consumer
//   3. long edges get one dummy point per layer they cross (they become the edge's bends)
//   4. ordering: barycentric sweeps down and up, keeping the order with the fewest crossings, then swaps of
//      neighbours in a layer while a swap removes crossings (transpose)
//   5. coordinates: each node pulled to the mean x of its neighbours, then packed left to right with a gap,
//      so boxes in one layer never overlap; layers are stacked with their tallest box + a gap.
// Measured against ELK's layered algorithm (elkjs) on 300- to 1,400-op graphs: benchmarks/graph_layout_compare.mjs,
// figures in benchmarks/FIGURES.md ("Graph layout"): as few crossings on flat graphs, less area, 10-100x faster.

export interface Size { id: string; width: number; height: number }
export interface Box { x: number; y: number; width: number; height: number } // x, y = top-left corner
export interface Point { x: number; y: number }
export interface LayoutEdge { source: string; target: string }

export interface LayeredResult {
  width: number;
  height: number;
  boxes: Map<string, Box>;
  layer: Map<string, number>;
  routes: Map<string, Point[]>; // `${source}\0${target}` → bend points from source to target
}

export interface LayoutOptions { nodeGap?: number; layerGap?: number; sweeps?: number }

const DUMMY_WIDTH = 10;
export const edgeKey = (source: string, target: string): string => `${source}\u0000${target}`;

export function layeredLayout(nodes: Size[], edges: LayoutEdge[], options: LayoutOptions = {}): LayeredResult {
  const nodeGap = options.nodeGap ?? 24;
  const layerGap = options.layerGap ?? 56;
  const sweeps = options.sweeps ?? 6;
  const size = new Map(nodes.map((n) => [n.id, n]));
  const ids = nodes.map((n) => n.id);

  // Unique edges between known, distinct nodes.
  const seen = new Set<string>();
  const dagEdges: Array<{ s: string; t: string; key: string; reversed: boolean }> = [];
  for (const e of edges) {
    const key = edgeKey(e.source, e.target);
    if (e.source === e.target || !size.has(e.source) || !size.has(e.target) || seen.has(key)) continue;
    seen.add(key);
    dagEdges.push({ s: e.source, t: e.target, key, reversed: false });
  }
  breakCycles(ids, dagEdges);

  const layer = assignLayers(ids, dagEdges);

  // Dummy chains for edges spanning several layers.
  const layers: string[][] = [];
  const place = (id: string, l: number): void => {
    while (layers.length <= l) layers.push([]);
    layers[l].push(id);
  };
  for (const id of ids) place(id, layer.get(id) as number);
  const down = new Map<string, string[]>(); // id → neighbours one layer below
  const up = new Map<string, string[]>();
  const link = (a: string, b: string): void => {
    (down.get(a) ?? down.set(a, []).get(a) as string[]).push(b);
    (up.get(b) ?? up.set(b, []).get(b) as string[]).push(a);
  };
  const chains = new Map<string, string[]>(); // edge key → dummy ids from upper to lower layer
  let dummyCount = 0;
  for (const e of dagEdges) {
    const chain: string[] = [];
    let prev = e.s;
    for (let l = (layer.get(e.s) as number) + 1; l < (layer.get(e.t) as number); l++) {
      const dummy = `\u0001dummy${dummyCount++}`;
      place(dummy, l);
      layer.set(dummy, l);
      link(prev, dummy);
      chain.push(dummy);
      prev = dummy;
    }
    link(prev, e.t);
    chains.set(e.key, chain);
  }
  const widthOf = (id: string): number => size.get(id)?.width ?? DUMMY_WIDTH;
  const heightOf = (id: string): number => size.get(id)?.height ?? 0;

  orderLayers(layers, up, down, sweeps);
  const x = assignX(layers, up, down, widthOf, nodeGap);

  // Stack the layers.
  const boxes = new Map<string, Box>();
  const centers = new Map<string, Point>();
  let y = 0;
  let width = 0;
  for (const row of layers) {
    const rowHeight = Math.max(0, ...row.map(heightOf));
    for (const id of row) {
      const cx = x.get(id) as number;
      centers.set(id, { x: cx, y: y + rowHeight / 2 });
      width = Math.max(width, cx + widthOf(id) / 2);
      if (size.has(id)) {
        const s = size.get(id) as Size;
        boxes.set(id, { x: cx - s.width / 2, y: y + (rowHeight - s.height) / 2, width: s.width, height: s.height });
      }
    }
    y += rowHeight + layerGap;
  }
  const routes = new Map<string, Point[]>();
  for (const e of dagEdges) {
    const points = (chains.get(e.key) as string[]).map((d) => centers.get(d) as Point);
    const original = e.reversed ? edgeKey(e.t, e.s) : e.key;
    routes.set(original, e.reversed ? points.reverse() : points);
  }
  for (const id of ids) layer.set(id, layer.get(id) as number);
  for (const key of [...layer.keys()]) if (!size.has(key)) layer.delete(key);
  return { width, height: Math.max(0, y - layerGap), boxes, layer, routes };
}

/** Reverse the back edges of a depth-first search so the graph has no cycle (iterative: graphs can be deep). */
function breakCycles(ids: string[], edges: Array<{ s: string; t: string; key: string; reversed: boolean }>): void {
  const out = new Map<string, number[]>();
  edges.forEach((e, i) => (out.get(e.s) ?? out.set(e.s, []).get(e.s) as number[]).push(i));
  const state = new Map<string, number>(); // 1 = on the stack, 2 = done
  for (const root of ids) {
    if (state.has(root)) continue;
    const stack: Array<[string, number]> = [[root, 0]];
    state.set(root, 1);
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      const outs = out.get(top[0]) ?? [];
      if (top[1] >= outs.length) {
        state.set(top[0], 2);
        stack.pop();
        continue;
      }
      const edge = edges[outs[top[1]++]];
      const s = state.get(edge.t);
      if (s === 1) edge.reversed = true;
      else if (s === undefined) {
        state.set(edge.t, 1);
        stack.push([edge.t, 0]);
      }
    }
  }
  for (const e of edges) if (e.reversed) [e.s, e.t] = [e.t, e.s];
}

/** Longest path layering, then each node sinks to just above its nearest consumer (constants sit by their user). */
function assignLayers(ids: string[], edges: Array<{ s: string; t: string }>): Map<string, number> {
  const indeg = new Map(ids.map((id) => [id, 0]));
  const succ = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const e of edges) {
    indeg.set(e.t, (indeg.get(e.t) as number) + 1);
    (succ.get(e.s) as string[]).push(e.t);
  }
  const order: string[] = ids.filter((id) => indeg.get(id) === 0);
  const layer = new Map<string, number>(ids.map((id) => [id, 0]));
  for (let i = 0; i < order.length; i++) {
    const id = order[i];
    for (const t of succ.get(id) as string[]) {
      layer.set(t, Math.max(layer.get(t) as number, (layer.get(id) as number) + 1));
      const left = (indeg.get(t) as number) - 1;
      indeg.set(t, left);
      if (left === 0) order.push(t);
    }
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const targets = succ.get(order[i]) as string[];
    if (targets.length === 0) continue;
    const lowest = Math.min(...targets.map((t) => layer.get(t) as number)) - 1;
    if (lowest > (layer.get(order[i]) as number)) layer.set(order[i], lowest);
  }
  return layer;
}

/** Barycentric sweeps; keeps the best ordering seen (fewest crossings). Mutates `layers`. */
function orderLayers(layers: string[][], up: Map<string, string[]>, down: Map<string, string[]>, sweeps: number): void {
  const pos = new Map<string, number>();
  const index = (): void => layers.forEach((row) => row.forEach((id, i) => pos.set(id, i)));
  index();
  let best = layers.map((row) => [...row]);
  let bestCrossings = countCrossings(layers, down, pos);
  const sortBy = (row: string[], neighbours: Map<string, string[]>): void => {
    const key = new Map<string, number>();
    for (const id of row) {
      const ns = neighbours.get(id) ?? [];
      key.set(id, ns.length ? ns.reduce((sum, n) => sum + (pos.get(n) as number), 0) / ns.length : (pos.get(id) as number));
    }
    row.sort((a, b) => (key.get(a) as number) - (key.get(b) as number));
    row.forEach((id, i) => pos.set(id, i));
  };
  for (let sweep = 0; sweep < sweeps && bestCrossings > 0; sweep++) {
    for (let l = 1; l < layers.length; l++) sortBy(layers[l], up);
    for (let l = layers.length - 2; l >= 0; l--) sortBy(layers[l], down);
    const crossings = countCrossings(layers, down, pos);
    if (crossings < bestCrossings) {
      bestCrossings = crossings;
      best = layers.map((row) => [...row]);
    }
  }
  best.forEach((row, l) => (layers[l] = row));
  index();
  transpose(layers, up, down, pos);
}

/** Gansner et al.'s "transpose": swap two neighbours of a layer while that removes crossings with the layers above
 * and below (barycentres alone leave many; benchmarks/graph_layout_compare.mjs measures the difference). */
function transpose(layers: string[][], up: Map<string, string[]>, down: Map<string, string[]>, pos: Map<string, number>, rounds = 8): void {
  const crossingsOf = (left: string, right: string): number => {
    let count = 0;
    for (const neighbours of [up, down]) {
      const a = neighbours.get(left) ?? [];
      const b = neighbours.get(right) ?? [];
      for (const p of a) for (const q of b) if ((pos.get(p) as number) > (pos.get(q) as number)) count++;
    }
    return count;
  };
  for (let round = 0; round < rounds; round++) {
    let improved = false;
    for (const row of layers) {
      for (let i = 0; i + 1 < row.length; i++) {
        const [u, v] = [row[i], row[i + 1]];
        if (crossingsOf(v, u) < crossingsOf(u, v)) {
          [row[i], row[i + 1]] = [v, u];
          pos.set(v, i);
          pos.set(u, i + 1);
          improved = true;
        }
      }
    }
    if (!improved) break;
  }
}

/** Edge crossings between consecutive layers: inversions of the lower ends, counted with a Fenwick tree. */
export function countCrossings(layers: string[][], down: Map<string, string[]>, pos: Map<string, number>): number {
  let total = 0;
  for (let l = 0; l + 1 < layers.length; l++) {
    const pairs: Array<[number, number]> = [];
    for (const id of layers[l]) for (const t of down.get(id) ?? []) pairs.push([pos.get(id) as number, pos.get(t) as number]);
    pairs.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const n = layers[l + 1].length;
    const tree = new Array<number>(n + 1).fill(0);
    let inserted = 0;
    for (const [, lower] of pairs) {
      let notGreater = 0;
      for (let i = lower + 1; i > 0; i -= i & -i) notGreater += tree[i];
      total += inserted - notGreater;
      for (let i = lower + 1; i <= n; i += i & -i) tree[i] += 1;
      inserted += 1;
    }
  }
  return total;
}

/** Centre x of every node: pulled towards its neighbours, then separated so that boxes never overlap. */
function assignX(
  layers: string[][],
  up: Map<string, string[]>,
  down: Map<string, string[]>,
  widthOf: (id: string) => number,
  gap: number
): Map<string, number> {
  const x = new Map<string, number>();
  const minDist = (a: string, b: string): number => (widthOf(a) + widthOf(b)) / 2 + gap;
  for (const row of layers) {
    let cursor = 0;
    row.forEach((id, i) => {
      cursor += i === 0 ? widthOf(id) / 2 : minDist(row[i - 1], id);
      x.set(id, cursor);
    });
  }
  // Place a row as close as possible to the wanted centres while keeping the order and the gaps:
  // the mean of a left-to-right and a right-to-left packing, then one strict left-to-right pass.
  const placeRow = (row: string[], wanted: number[]): void => {
    const n = row.length;
    const left = new Array<number>(n);
    const right = new Array<number>(n);
    for (let i = 0; i < n; i++) left[i] = i === 0 ? wanted[0] : Math.max(wanted[i], left[i - 1] + minDist(row[i - 1], row[i]));
    for (let i = n - 1; i >= 0; i--) {
      right[i] = i === n - 1 ? wanted[i] : Math.min(wanted[i], right[i + 1] - minDist(row[i], row[i + 1]));
    }
    let prev = -Infinity;
    for (let i = 0; i < n; i++) {
      const c = Math.max((left[i] + right[i]) / 2, i === 0 ? -Infinity : prev + minDist(row[i - 1], row[i]));
      x.set(row[i], c);
      prev = c;
    }
  };
  const wantedFor = (row: string[], neighbours: Map<string, string[]>): number[] =>
    row.map((id) => {
      const ns = neighbours.get(id) ?? [];
      return ns.length ? ns.reduce((s, n) => s + (x.get(n) as number), 0) / ns.length : (x.get(id) as number);
    });
  for (let pass = 0; pass < 4; pass++) {
    for (let l = 1; l < layers.length; l++) placeRow(layers[l], wantedFor(layers[l], up));
    for (let l = layers.length - 2; l >= 0; l--) placeRow(layers[l], wantedFor(layers[l], down));
  }
  let minLeft = Infinity;
  for (const row of layers) if (row.length) minLeft = Math.min(minLeft, (x.get(row[0]) as number) - widthOf(row[0]) / 2);
  if (Number.isFinite(minLeft)) for (const [id, v] of x) x.set(id, v - minLeft);
  return x;
}
