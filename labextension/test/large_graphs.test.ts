// Issue 31: large graphs stay readable (≤ 40 drawn items, no shrinking below the label floor), the wheel scrolls
// the page unless Ctrl/⌘ is held or the graph has focus, and the profile lists the top ten with its timeline folded.
import { afterEach, describe, expect, it } from 'vitest';

import { PROFILE_TOP } from '../src/panels';
import { DEFAULT_COLLAPSE_LIMIT, GraphView, MIN_FIT_SCALE } from '../src/render';
import { GraphDoc, GraphNode } from '../src/schema';
import { buildScopeTree, ScopeInfo } from '../src/scopes';
import { edge, node, randomGraph, smallGraph } from './fixtures';

afterEach(() => document.body.replaceChildren());

function mount(doc: GraphDoc): { host: HTMLDivElement; view: GraphView } {
  const host = document.createElement('div');
  document.body.appendChild(host);
  const view = new GraphView(host);
  view.update(doc);
  return { host, view };
}

const transformOf = (host: Element): string => host.querySelector('.wf-viewport')?.getAttribute('transform') ?? '';

function wheel(host: Element, init: WheelEventInit): WheelEvent {
  const event = new WheelEvent('wheel', { deltaY: -200, clientX: 50, clientY: 50, bubbles: true, cancelable: true, ...init });
  host.querySelector('svg.wf-graph-svg')?.dispatchEvent(event);
  return event;
}

describe('large graphs', () => {
  it('opens no scope of a 300-op or 1,000-op graph whose top level alone exceeds the budget of 40', () => {
    // The fixture's top level holds 1/7 of the ops under names with few series (op_12xxx): it stays over 40
    // boxes (issue 31 asks for <= 40 visible nodes; see the series test below for real graphs' names).
    expect(DEFAULT_COLLAPSE_LIMIT).toBe(40);
    for (const size of [300, 1000]) {
      const doc = randomGraph(size, 11, true);
      const { host, view } = mount(doc);
      const root = buildScopeTree(doc.nodes, DEFAULT_COLLAPSE_LIMIT).get('') as ScopeInfo;
      expect(host.querySelectorAll('.wf-node, .wf-group').length).toBe(root.directNodes.length + root.childScopes.length);
      expect(host.querySelectorAll('.wf-frame').length).toBe(0);
      view.dispose();
    }
  });

  it('folds top-level series (Const, Const_1, ...) into one group each when the top level is too full', () => {
    const doc = smallGraph();
    for (let i = 0; i < 30; i++) doc.nodes.push(node(i ? `Const_${i}` : 'Const', 'Const', 'constant'));
    for (let i = 0; i < 20; i++) doc.nodes.push(node(i ? `add_${i}` : 'add_0x', 'AddV2'));
    for (let i = 0; i < 30; i++) doc.edges.push(edge(i ? `Const_${i}` : 'Const', 'add'));
    const { host } = mount(doc);
    expect(host.querySelectorAll('.wf-node, .wf-group').length).toBeLessThanOrEqual(40);
    const series = host.querySelector('[data-scope="Const_*"]') as Element;
    expect(series).not.toBeNull();
    expect(series.textContent).toContain('30');
    // a small graph's top level is left as it is
    expect(buildScopeTree(smallGraph().nodes, DEFAULT_COLLAPSE_LIMIT).has('Const_*')).toBe(false);
  });

  it('draws at most 40 items of a 300-op graph whose ops are in name scopes', () => {
    const doc = randomGraph(300, 11, true);
    doc.nodes = doc.nodes.filter((n) => n.name.includes('/'));
    const names = new Set(doc.nodes.map((n) => n.name));
    doc.edges = doc.edges.filter((e) => names.has(e.source) && names.has(e.target));
    const { host } = mount(doc);
    expect(host.querySelectorAll('.wf-node, .wf-group').length).toBeLessThanOrEqual(40);
  });

  it('does not shrink the first view below the readable scale', () => {
    const { host } = mount(randomGraph(300, 11, true));
    const scale = Number(/scale\(([\d.]+)\)/.exec(transformOf(host))?.[1]);
    expect(scale).toBeGreaterThanOrEqual(MIN_FIT_SCALE);
  });

  it('lets a plain wheel scroll the page and zooms with Ctrl/⌘ held or once the graph has focus', () => {
    const { host } = mount(smallGraph());
    const before = transformOf(host);
    const plain = wheel(host, {});
    expect(plain.defaultPrevented).toBe(false);
    expect(transformOf(host)).toBe(before);
    const withCtrl = wheel(host, { ctrlKey: true });
    expect(withCtrl.defaultPrevented).toBe(true);
    expect(transformOf(host)).not.toBe(before);
    const zoomed = transformOf(host);
    (host.querySelector('svg.wf-graph-svg') as unknown as HTMLElement).focus();
    expect(wheel(host, {}).defaultPrevented).toBe(true);
    expect(transformOf(host)).not.toBe(zoomed);
  });

  it('has zoom buttons', () => {
    const { host } = mount(smallGraph());
    const before = transformOf(host);
    const plus = [...host.querySelectorAll('.wf-toolbar button')].find((b) => b.textContent === '+') as HTMLButtonElement;
    plus.click();
    expect(transformOf(host)).not.toBe(before);
  });

  it('lists the ten slowest ops, all on demand, and folds the timeline', () => {
    const doc = smallGraph();
    doc.profile = { total_us: 600, ops: Array.from({ length: 25 }, (_, i) => ({
      node: `op${i}`, type: 'AddV2', backend: 'numpy', start_us: i * 20, duration_us: i + 1, calls: 1 })) };
    const { host } = mount(doc);
    const rows = (): string[] => [...host.querySelectorAll('.wf-profile-table tbody tr')].map((r) => r.getAttribute('data-op-name') as string);
    expect(rows()).toHaveLength(PROFILE_TOP);
    expect(rows()[0]).toBe('op24');
    const more = host.querySelector('.wf-profile-more') as HTMLButtonElement;
    expect(more.textContent).toBe('show all 25 ops');
    more.click();
    expect(rows()).toHaveLength(25);
    const folded = host.querySelector('details.wf-timeline-box') as HTMLDetailsElement;
    expect(folded.open).toBe(false);
    expect(folded.querySelectorAll('.wf-bar').length).toBe(25);
  });

  it('finds an op by name: selects it, opens its scopes and centres the view on it', () => {
    const doc = randomGraph(300, 11, true);
    const target = doc.nodes.find((n) => n.name.startsWith('a/b/')) as GraphNode;
    const { host, view } = mount(doc);
    expect(host.querySelector(`g.wf-node[data-op-name="${target.name}"]`)).toBeNull(); // inside a collapsed scope
    const search = host.querySelector('input.wf-search') as HTMLInputElement;
    search.value = target.name.toUpperCase();
    search.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }));
    const shown = host.querySelector(`g.wf-node[data-op-name="${target.name}"]`) as Element;
    expect(shown).not.toBeNull();
    expect(shown.classList.contains('wf-selected')).toBe(true);
    expect(view.isExpanded('a') && view.isExpanded('a/b')).toBe(true);
    expect(view.find('no such op')).toBeNull();
  });
});
