import { describe, expect, it } from 'vitest';

import { compoundLayout } from '../src/compound';
import { Box, layeredLayout } from '../src/layout';
import { buildScopeTree, defaultExpanded, visibleGraph } from '../src/scopes';
import { randomGraph, rng, smallGraph } from './fixtures';

function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

function expectNoOverlap(boxes: Box[]): void {
  // Sort by x so only boxes whose x ranges meet are compared (500 nodes: cheap).
  const sorted = [...boxes].sort((a, b) => a.x - b.x);
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i + 1; j < sorted.length && sorted[j].x < sorted[i].x + sorted[i].width; j++) {
      expect(overlaps(sorted[i], sorted[j]), `${JSON.stringify(sorted[i])} vs ${JSON.stringify(sorted[j])}`).toBe(false);
    }
  }
}

describe('layeredLayout', () => {
  for (const n of [10, 37, 120, 250, 500]) {
    it(`places ${n} random nodes without overlaps, every edge pointing down`, () => {
      const doc = randomGraph(n, n);
      const r = rng(n + 1);
      const sizes = doc.nodes.map((nd) => ({ id: nd.name, width: 60 + Math.floor(r() * 140), height: 30 + Math.floor(r() * 20) }));
      const result = layeredLayout(sizes, doc.edges);
      expect(result.boxes.size).toBe(n);
      expectNoOverlap([...result.boxes.values()]);
      for (const e of doc.edges) {
        expect(result.layer.get(e.source) as number).toBeLessThan(result.layer.get(e.target) as number);
        expect((result.boxes.get(e.source) as Box).y).toBeLessThan((result.boxes.get(e.target) as Box).y);
      }
      for (const [id, box] of result.boxes) {
        const size = sizes.find((s) => s.id === id);
        expect([box.width, box.height]).toEqual([size?.width, size?.height]);
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(result.width + 1e-6);
      }
    });
  }

  it('routes a long edge through one bend per layer it crosses', () => {
    const nodes = ['a', 'b', 'c', 'd'].map((id) => ({ id, width: 80, height: 30 }));
    const edges = [{ source: 'a', target: 'b' }, { source: 'b', target: 'c' }, { source: 'c', target: 'd' }, { source: 'a', target: 'd' }];
    const result = layeredLayout(nodes, edges);
    expect(result.routes.get('a\u0000d')?.length).toBe(2);
    expect(result.routes.get('a\u0000b')?.length).toBe(0);
  });

  it('survives cycles (collapsed groups can create them)', () => {
    const nodes = ['a', 'b', 'c'].map((id) => ({ id, width: 50, height: 20 }));
    const result = layeredLayout(nodes, [{ source: 'a', target: 'b' }, { source: 'b', target: 'c' }, { source: 'c', target: 'a' }]);
    expect(result.boxes.size).toBe(3);
    expectNoOverlap([...result.boxes.values()]);
    expect(result.routes.has('c\u0000a')).toBe(true);
  });
});

describe('scopes and compound layout', () => {
  it('collapses the gradient subgraph by default and keeps small graphs open', () => {
    const doc = smallGraph();
    const tree = buildScopeTree(doc.nodes);
    const expanded = defaultExpanded(tree);
    expect(expanded.has('b')).toBe(true);
    expect(expanded.has('loss')).toBe(true);
    expect(expanded.has('gradients')).toBe(false);
    const visible = visibleGraph(doc, tree, expanded);
    const group = visible.items.find((i) => i.id === 'g:gradients');
    expect(group?.members?.sort()).toEqual(['gradients/Shape', 'gradients/add_grad/Sum']);
    // loss/Sum → gradients/Shape becomes an edge into the group; the edge inside the group disappears
    expect(visible.edges.map((e) => [e.source, e.target])).toContainEqual(['n:loss/Sum', 'g:gradients']);
    expect(visible.edges.some((e) => e.source === 'g:gradients')).toBe(false);
  });

  it('a collapsed group carries the union of its members\' outside edges', () => {
    const doc = smallGraph();
    const tree = buildScopeTree(doc.nodes);
    const visible = visibleGraph(doc, tree, new Set(['gradients']));
    const keys = visible.edges.map((e) => `${e.source}>${e.target}`).sort();
    // b and b/read collapse into g:b; x→add and g:b→add (b/read→add) and g:b→init (control) remain
    expect(keys).toEqual(['g:b>n:add', 'g:b>n:init', 'g:loss>n:gradients/Shape', 'n:add>g:loss', 'n:gradients/Shape>g:gradients/add_grad',
      'n:x>n:add'].sort());
    expect(visible.edges.find((e) => e.target === 'n:init')?.control).toBe(true);
    expect(visible.edges.find((e) => e.source === 'g:b' && e.target === 'n:add')?.control).toBe(false);
  });

  it('starts a large graph collapsed into at most 60 boxes, and expanding shows the members', () => {
    const doc = randomGraph(400, 7, true);
    const tree = buildScopeTree(doc.nodes);
    const expanded = defaultExpanded(tree, 60);
    const visible = visibleGraph(doc, tree, expanded);
    expect(visible.items.length).toBeLessThanOrEqual(60);
    expect([...expanded].some((s) => s.startsWith('gradients'))).toBe(false);
    const before = visible.items.length;
    const a = tree.get('a');
    const open = visibleGraph(doc, tree, new Set([...expanded, 'a']));
    if (!expanded.has('a')) expect(open.items.length).toBe(before - 1 + (a?.directNodes.length ?? 0) + (a?.childScopes.length ?? 0));
  });

  for (const [n, seed] of [[30, 1], [200, 2], [500, 3]]) {
    it(`nests ${n} scoped nodes without overlaps, all expanded (seed ${seed})`, () => {
      const doc = randomGraph(n, seed, true);
      const tree = buildScopeTree(doc.nodes);
      const all = new Set([...tree.keys()].filter((s) => s !== ''));
      const visible = visibleGraph(doc, tree, all);
      const items = visible.items.map((i) => ({ id: i.id, container: i.container, width: 70 + (i.name.length % 7) * 15, height: 38 }));
      const result = compoundLayout(items, visible.frames, visible.edges);
      // siblings (same container) never overlap; every child lies inside its frame
      const byContainer = new Map<string | null, Box[]>();
      for (const thing of [...items, ...visible.frames]) {
        const list = byContainer.get(thing.container) ?? byContainer.set(thing.container, []).get(thing.container) as Box[];
        list.push(result.boxes.get(thing.id) as Box);
        if (thing.container) {
          const outer = result.boxes.get(thing.container) as Box;
          const inner = result.boxes.get(thing.id) as Box;
          expect(inner.x).toBeGreaterThanOrEqual(outer.x);
          expect(inner.y).toBeGreaterThan(outer.y);
          expect(inner.x + inner.width).toBeLessThanOrEqual(outer.x + outer.width + 1e-6);
          expect(inner.y + inner.height).toBeLessThanOrEqual(outer.y + outer.height + 1e-6);
        }
      }
      for (const boxes of byContainer.values()) expectNoOverlap(boxes);
      // and op boxes never overlap anywhere
      expectNoOverlap(items.map((i) => result.boxes.get(i.id) as Box));
    });
  }
});
