// Compound layout: expanded name scopes are frames laid out as one big node in their parent scope.
// Each frame's contents get their own layered layout; an edge is routed in the innermost frame that
// holds both of its ends (between the two children of that frame that contain them).

import { Box, edgeKey, layeredLayout, LayoutOptions, Point, Size } from './layout';

export interface CompoundItem { id: string; container: string | null; width: number; height: number }
export interface CompoundFrame { id: string; container: string | null }
export interface CompoundEdge { key: string; source: string; target: string }

export interface CompoundResult {
  width: number;
  height: number;
  boxes: Map<string, Box>; // absolute boxes of items and frames
  routes: Map<string, Point[]>; // edge key → absolute bend points
}

export const FRAME_PAD = 14;
export const FRAME_HEADER = 24;

export function compoundLayout(
  items: CompoundItem[],
  frames: CompoundFrame[],
  edges: CompoundEdge[],
  options: LayoutOptions = {}
): CompoundResult {
  const container = new Map<string, string | null>();
  const children = new Map<string | null, string[]>([[null, []]]);
  for (const f of frames) children.set(f.id, []);
  for (const thing of [...frames, ...items]) {
    container.set(thing.id, thing.container);
    (children.get(thing.container) ?? children.set(thing.container, []).get(thing.container) as string[]).push(thing.id);
  }
  const itemSize = new Map(items.map((i) => [i.id, i]));

  // Route every edge in the innermost container holding both ends.
  const chain = (id: string): string[] => {
    const out = [id];
    for (let c = container.get(id); c !== null && c !== undefined; c = container.get(c)) out.push(c);
    return out;
  };
  const levelEdges = new Map<string | null, Array<{ source: string; target: string }>>();
  const edgeHome = new Map<string, { where: string | null; key: string }>();
  for (const e of edges) {
    if (!container.has(e.source) || !container.has(e.target)) continue;
    const sChain = chain(e.source);
    const tChain = chain(e.target);
    const tSet = new Set(tChain);
    let i = 0;
    while (i < sChain.length && !tSet.has(sChain[i])) i++;
    // sChain[i] is an ancestor frame of both (or undefined = top level); the children below it hold each end.
    const where = i < sChain.length ? sChain[i] : null;
    const a = i > 0 ? sChain[i - 1] : sChain[0];
    const j = where === null ? tChain.length : tChain.indexOf(where);
    const b = j > 0 ? tChain[j - 1] : tChain[0];
    if (a === b || a === where || b === where) continue; // an edge into its own frame: drawn straight
    const list = levelEdges.get(where) ?? levelEdges.set(where, []).get(where) as Array<{ source: string; target: string }>;
    list.push({ source: a, target: b });
    edgeHome.set(e.key, { where, key: edgeKey(a, b) });
  }

  // Lay out from the innermost frames outwards (recursion on the container tree).
  const relBoxes = new Map<string, Box>();
  const relRoutes = new Map<string | null, Map<string, Point[]>>();
  const frameInner = new Map<string, number>(); // width of a frame's contents
  const layoutContainer = (cid: string | null): { width: number; height: number } => {
    const sizes: Size[] = [];
    for (const child of children.get(cid) ?? []) {
      if (children.has(child) && !itemSize.has(child)) {
        const inner = layoutContainer(child);
        const size = { width: Math.max(inner.width + 2 * FRAME_PAD, 120), height: inner.height + FRAME_HEADER + 2 * FRAME_PAD };
        frameInner.set(child, inner.width);
        sizes.push({ id: child, ...size });
      } else {
        const s = itemSize.get(child) as CompoundItem;
        sizes.push({ id: child, width: s.width, height: s.height });
      }
    }
    const result = layeredLayout(sizes, levelEdges.get(cid) ?? [], options);
    for (const [id, box] of result.boxes) relBoxes.set(id, box);
    relRoutes.set(cid, result.routes);
    return { width: result.width, height: result.height };
  };
  const top = layoutContainer(null);

  // Absolute coordinates: a frame's children start below its header, inside its padding.
  const boxes = new Map<string, Box>();
  const origin = new Map<string | null, Point>([[null, { x: 0, y: 0 }]]);
  const place = (cid: string | null): void => {
    const o = origin.get(cid) as Point;
    for (const child of children.get(cid) ?? []) {
      const rel = relBoxes.get(child) as Box;
      const abs = { x: rel.x + o.x, y: rel.y + o.y, width: rel.width, height: rel.height };
      boxes.set(child, abs);
      if (frameInner.has(child)) {
        // A frame wider than its contents (minimum width) centres them.
        const slack = Math.max(0, abs.width - 2 * FRAME_PAD - (frameInner.get(child) as number));
        origin.set(child, { x: abs.x + FRAME_PAD + slack / 2, y: abs.y + FRAME_HEADER + FRAME_PAD });
        place(child);
      }
    }
  };
  place(null);

  const routes = new Map<string, Point[]>();
  for (const [key, home] of edgeHome) {
    const o = origin.get(home.where) as Point;
    const points = relRoutes.get(home.where)?.get(home.key) ?? [];
    routes.set(key, points.map((p) => ({ x: p.x + o.x, y: p.y + o.y })));
  }
  return { width: top.width, height: top.height, boxes, routes };
}
