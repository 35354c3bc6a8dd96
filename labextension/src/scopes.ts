// Name scopes → collapsible groups, and the graph that is visible for a given set of expanded scopes.
// Groups are not in the document: they are derived from each node's scope ("a/b/c" nests in "a/b" in "a").
// A collapsed group is drawn as one box whose edges are the union of its members' edges to the outside.

import { GraphDoc, GraphEdge, GraphNode, scopeOf } from './schema';

export interface ScopeInfo {
  scope: string; // full path, "" for the root
  parent: string | null; // null for the root
  childScopes: string[];
  directNodes: string[]; // op names whose scope is exactly this one
  total: number; // ops in this scope and below
}

export type ScopeTree = Map<string, ScopeInfo>;

/** Visible item ids: ops and groups live in separate namespaces (an op "w" and a scope "w/" can both exist). */
export const nodeId = (name: string): string => `n:${name}`;
export const groupId = (scope: string): string => `g:${scope}`;

/**
 * The group an op is drawn in: its scope, except that an op named like a scope goes inside that scope
 * (as TensorBoard does: the variable `w` sits in the group with `w/read` and `w/Assign`).
 */
export function homeScope(tree: ScopeTree, node: GraphNode): string {
  const series = SERIES.get(tree)?.get(node.name);
  if (series !== undefined) return series;
  return tree.has(node.name) ? node.name : scopeOf(node);
}

/** Top-level ops of one series (`Const`, `Const_1`, `Const_2` ...) are grouped when the top level is too full. */
export const SERIES_MIN = 3;
const SERIES = new WeakMap<ScopeTree, Map<string, string>>(); // op name → the series group it is drawn in

/** The series group of a top-level op name: `Const_1` → `Const_*` (no TensorFlow name holds a `*`). */
export function seriesScope(name: string): string {
  return `${name.replace(/_\d+$/, '')}_*`;
}

/**
 * Name scopes as a tree. With `topLimit`, a top level holding more than that many boxes (ops + scopes) has its
 * series of at least SERIES_MIN ops (`add`, `add_1`, `add_2`) folded into one group each, as TensorBoard does.
 */
export function buildScopeTree(nodes: GraphNode[], topLimit = Infinity): ScopeTree {
  const tree = scopeTree(nodes, new Map());
  const root = tree.get('') as ScopeInfo;
  if (root.directNodes.length + root.childScopes.length <= topLimit) return tree;
  const members = new Map<string, string[]>();
  for (const name of root.directNodes) {
    const series = seriesScope(name);
    members.set(series, [...(members.get(series) ?? []), name]);
  }
  const series = new Map<string, string>();
  for (const [scope, names] of members) if (names.length >= SERIES_MIN) for (const name of names) series.set(name, scope);
  return series.size ? scopeTree(nodes, series) : tree;
}

function scopeTree(nodes: GraphNode[], series: Map<string, string>): ScopeTree {
  const tree: ScopeTree = new Map();
  const ensure = (scope: string): ScopeInfo => {
    let info = tree.get(scope);
    if (info) return info;
    const cut = scope.lastIndexOf('/');
    const parent = scope === '' ? null : cut < 0 ? '' : scope.slice(0, cut);
    info = { scope, parent, childScopes: [], directNodes: [], total: 0 };
    tree.set(scope, info);
    if (parent !== null) ensure(parent).childScopes.push(scope);
    return info;
  };
  SERIES.set(tree, series);
  ensure('');
  for (const node of nodes) ensure(scopeOf(node));
  for (const scope of new Set(series.values())) ensure(scope);
  for (const node of nodes) {
    const info = ensure(homeScope(tree, node));
    info.directNodes.push(node.name);
    for (let s: ScopeInfo | undefined = info; s; s = s.parent === null ? undefined : tree.get(s.parent)) s.total += 1;
  }
  return tree;
}

/** The gradient subgraph: top-level scopes named gradients, gradients_1, ... (tf.gradients' name scope). */
export function isGradientScope(scope: string): boolean {
  return /^gradients(_\d+)?(\/|$)/.test(scope);
}

/** All ancestors of a scope, outermost first, the scope itself last ("" excluded). */
export function scopeChain(scope: string): string[] {
  if (scope === '') return [];
  const parts = scope.split('/');
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'));
}

/**
 * Scopes expanded by default: breadth first, a scope opens while the number of visible boxes stays within
 * `limit` (TensorBoard's idea: a large graph starts as a few groups). Gradient scopes never open by
 * themselves. The scopes around `focus` (the failing op) always open so the error is visible.
 */
export function defaultExpanded(tree: ScopeTree, limit = 60, focusScope?: string | null): Set<string> {
  const expanded = new Set<string>();
  const root = tree.get('');
  if (!root) return expanded;
  let visible = root.directNodes.length + root.childScopes.length;
  const queue = [...root.childScopes];
  while (queue.length > 0) {
    const scope = queue.shift() as string;
    if (isGradientScope(scope)) continue;
    const info = tree.get(scope) as ScopeInfo;
    const cost = info.directNodes.length + info.childScopes.length - 1;
    if (visible + cost > limit) continue;
    expanded.add(scope);
    visible += cost;
    queue.push(...info.childScopes);
  }
  if (focusScope) for (const scope of scopeChain(focusScope)) expanded.add(scope);
  return expanded;
}

export interface VisibleItem {
  id: string;
  kind: 'node' | 'group';
  name: string; // op name or scope path
  container: string | null; // id of the expanded group drawn around it, null at top level
  node?: GraphNode; // for ops
  members?: string[]; // for collapsed groups: every op inside
}

export interface VisibleFrame {
  id: string; // groupId(scope) of an expanded group
  scope: string;
  container: string | null;
}

export interface VisibleEdge {
  key: string;
  source: string; // visible item ids
  target: string;
  edges: GraphEdge[]; // the document edges it stands for
  control: boolean; // all of them are control edges
}

export interface VisibleGraph {
  items: VisibleItem[];
  frames: VisibleFrame[];
  edges: VisibleEdge[];
  owner: Map<string, string>; // op name → visible item id that shows it
}

/** Container id for something in `scope` when the scopes in `expanded` are open (null = top level). */
function containerOf(scope: string): string | null {
  return scope === '' ? null : groupId(scope);
}

export function visibleGraph(doc: GraphDoc, tree: ScopeTree, expanded: Set<string>): VisibleGraph {
  const items: VisibleItem[] = [];
  const frames: VisibleFrame[] = [];
  const owner = new Map<string, string>();
  const byName = new Map(doc.nodes.map((n) => [n.name, n]));

  // Walk the scope tree from the root: an expanded scope becomes a frame around its children,
  // a collapsed one becomes a single group box owning every op below it.
  const collect = (scope: string, into: string[]): void => {
    const info = tree.get(scope) as ScopeInfo;
    into.push(...info.directNodes);
    for (const child of info.childScopes) collect(child, into);
  };
  const walk = (scope: string): void => {
    const info = tree.get(scope) as ScopeInfo;
    for (const name of info.directNodes) {
      items.push({ id: nodeId(name), kind: 'node', name, container: containerOf(scope), node: byName.get(name) });
      owner.set(name, nodeId(name));
    }
    for (const child of info.childScopes) {
      if (expanded.has(child)) {
        frames.push({ id: groupId(child), scope: child, container: containerOf(scope) });
        walk(child);
      } else {
        const members: string[] = [];
        collect(child, members);
        items.push({ id: groupId(child), kind: 'group', name: child, container: containerOf(scope), members });
        for (const m of members) owner.set(m, groupId(child));
      }
    }
  };
  walk('');

  const merged = new Map<string, VisibleEdge>();
  for (const edge of doc.edges) {
    const source = owner.get(edge.source);
    const target = owner.get(edge.target);
    if (!source || !target || source === target) continue; // inside one collapsed group, or dangling
    const key = `${source}\u0000${target}`;
    let ve = merged.get(key);
    if (!ve) {
      ve = { key, source, target, edges: [], control: true };
      merged.set(key, ve);
    }
    ve.edges.push(edge);
    ve.control = ve.control && edge.control === true;
  }
  return { items, frames, edges: [...merged.values()], owner };
}
