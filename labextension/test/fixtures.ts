// Small documents and random graphs shared by the tests.
import { GraphDoc, GraphEdge, GraphNode } from '../src/schema';

/** Deterministic PRNG (mulberry32) so a failing random case can be replayed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function node(name: string, type: string, kind = 'op', extra: Partial<GraphNode> = {}): GraphNode {
  const cut = name.lastIndexOf('/');
  return {
    name, type, kind, scope: cut < 0 ? '' : name.slice(0, cut), device: '/device:CPU:0', backend: 'numpy',
    attrs: { T: 'float32' }, outputs: [{ name: `${name}:0`, shape: '(?, 2)', dtype: 'float32' }],
    source: null, kernel: null, timing_us: null, executed: false, ...extra
  };
}

export function edge(source: string, target: string, extra: Partial<GraphEdge> = {}): GraphEdge {
  return { source, target, tensor: `${source}:0`, input_index: 0, shape: '(?, 2)', dtype: 'float32', control: false, ...extra };
}

/** x, b → add → loss, with a gradient subgraph and a control edge into an init op. */
export function smallGraph(): GraphDoc {
  return {
    version: 1, title: 'Graph (8 ops)', live: false,
    nodes: [
      node('x', 'Placeholder', 'placeholder'), node('b', 'VariableV2', 'variable'), node('b/read', 'Identity'),
      node('add', 'AddV2'), node('loss/Sum', 'Sum'), node('gradients/Shape', 'Shape', 'gradient'),
      node('gradients/add_grad/Sum', 'Sum', 'gradient'), node('init', 'NoOp')
    ],
    edges: [
      edge('x', 'add'), edge('b', 'b/read', { shape: '(2,)' }), edge('b/read', 'add', { input_index: 1, shape: '(2,)' }),
      edge('add', 'loss/Sum', { shape: '()' }), edge('loss/Sum', 'gradients/Shape', { shape: '()' }),
      edge('gradients/Shape', 'gradients/add_grad/Sum', { dtype: 'int32', shape: '(0,)' }),
      edge('b', 'init', { control: true, shape: undefined, dtype: undefined, tensor: '^b' })
    ],
    error: null, profile: null
  };
}

/** A random DAG: node i takes 1..3 inputs from the 40 nodes before it; names spread over nested scopes. */
export function randomGraph(n: number, seed: number, scoped = false): GraphDoc {
  const r = rng(seed);
  const scopes = ['', 'a', 'a/b', 'c', 'gradients', 'gradients/a_grad', 'd/e/f'];
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  for (let i = 0; i < n; i++) {
    const scope = scoped ? scopes[Math.floor(r() * scopes.length)] : '';
    const name = `${scope ? `${scope}/` : ''}op_${i}${'x'.repeat(Math.floor(r() * 12))}`;
    nodes.push(node(name, i % 3 ? 'MatMul' : 'Const', i % 3 ? 'op' : 'constant'));
    if (i === 0) continue;
    const inputs = 1 + Math.floor(r() * 3);
    for (let k = 0; k < inputs; k++) {
      const j = Math.max(0, i - 1 - Math.floor(r() * 40));
      edges.push(edge(nodes[j].name, name, { control: r() < 0.1 }));
    }
  }
  return { version: 1, title: `random ${n}`, nodes, edges, error: null, profile: null };
}
