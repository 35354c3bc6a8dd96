import { afterEach, describe, expect, it } from 'vitest';

import { GraphView } from '../src/render';
import { GraphDoc } from '../src/schema';
import { edge, node, randomGraph, smallGraph } from './fixtures';

afterEach(() => document.body.replaceChildren());

function mount(doc: GraphDoc): { host: HTMLDivElement; view: GraphView } {
  const host = document.createElement('div');
  document.body.appendChild(host);
  const view = new GraphView(host);
  view.update(doc);
  return { host, view };
}

const opEls = (host: Element): Element[] => [...host.querySelectorAll('[data-op-name]')].filter((e) => e.classList.contains('wf-node'));

describe('GraphView', () => {
  it('draws every visible op with data-op-name / data-op-type and groups with data-scope', () => {
    const doc = smallGraph();
    const { host } = mount(doc);
    const names = opEls(host).map((e) => e.getAttribute('data-op-name')).sort();
    // the gradient subgraph starts collapsed: its two ops are one group
    expect(names).toEqual(['add', 'b', 'b/read', 'init', 'loss/Sum', 'x']);
    for (const el of opEls(host)) {
      const op = doc.nodes.find((n) => n.name === el.getAttribute('data-op-name'));
      expect(el.getAttribute('data-op-type')).toBe(op?.type);
      expect(el.classList.contains(`wf-kind-${op?.kind}`)).toBe(true);
    }
    const group = host.querySelector('.wf-group[data-scope="gradients"]');
    expect(group?.textContent).toContain('2 ops');
    expect(host.querySelector('.wf-frame[data-scope="b"]')).not.toBeNull();
  });

  it('labels data edges with shape and dtype, and dashes control edges', () => {
    const { host } = mount(smallGraph());
    const add = host.querySelector('.wf-edge[data-source="n:x"][data-target="n:add"]');
    expect(add?.querySelector('.wf-edge-label')?.textContent).toBe('(?, 2) float32');
    const control = host.querySelector('.wf-edge[data-target="n:init"]');
    expect(control?.classList.contains('wf-control')).toBe(true);
    expect(control?.querySelector('path')?.getAttribute('stroke-dasharray')).toBe('4 3');
    expect(control?.querySelector('.wf-edge-label')?.textContent).toBe('');
    expect(add?.querySelector('path')?.getAttribute('stroke-dasharray')).toBeNull();
    expect(add?.querySelector('path')?.getAttribute('d')).toMatch(/^M[\d.-]+,[\d.-]+ L/);
  });

  it('expands a group on click and collapses its frame from the header', () => {
    const { host, view } = mount(smallGraph());
    (host.querySelector('.wf-group[data-scope="gradients"]') as SVGGElement).dispatchEvent(new MouseEvent('click', { bubbles: true }));
    expect(view.isExpanded('gradients')).toBe(true);
    expect(host.querySelector('[data-op-name="gradients/Shape"]')).not.toBeNull();
    expect(host.querySelector('.wf-group[data-scope="gradients/add_grad"]')).not.toBeNull();
    (host.querySelector('.wf-frame[data-scope="gradients"] .wf-frame-header') as SVGElement)
      .dispatchEvent(new MouseEvent('click', { bubbles: true }));
    expect(view.isExpanded('gradients')).toBe(false);
    expect(host.querySelector('[data-op-name="gradients/Shape"]')).toBeNull();
  });

  it('updates in place: same elements, new classes and labels, pan/zoom and collapse state kept', () => {
    const doc = smallGraph();
    const { host, view } = mount(doc);
    view.toggle('gradients');
    const before = new Map(opEls(host).map((e) => [e.getAttribute('data-op-name'), e]));
    const edgesBefore = [...host.querySelectorAll('.wf-edge')];
    const viewport = host.querySelector('.wf-viewport') as SVGGElement;
    viewport.setAttribute('transform', 'translate(5,6) scale(0.5)'); // as a user pan would leave it
    (view as unknown as { panzoom: { set(x: number, y: number, k: number): void } }).panzoom.set(5, 6, 0.5);
    const live = smallGraph();
    live.live = true;
    live.nodes.find((n) => n.name === 'add')!.executed = true;
    live.nodes.find((n) => n.name === 'add')!.timing_us = 12.5;
    view.update(live);
    const after = opEls(host);
    expect(after.length).toBe(before.size);
    for (const el of after) expect(el).toBe(before.get(el.getAttribute('data-op-name')));
    expect([...host.querySelectorAll('.wf-edge')]).toEqual(edgesBefore);
    const add = host.querySelector('[data-op-name="add"]') as Element;
    expect(add.classList.contains('wf-executed')).toBe(true);
    expect(add.querySelector('.wf-sublabel')?.textContent).toBe('AddV2 · 12.5 µs');
    expect(host.querySelector('[data-op-name="x"]')?.classList.contains('wf-executed')).toBe(false);
    expect(host.querySelector('.wf-graph')?.classList.contains('wf-live')).toBe(true);
    expect(viewport.getAttribute('transform')).toBe('translate(5.0,6.0) scale(0.5000)');
    expect(view.isExpanded('gradients')).toBe(true);
  });

  it('shows details with kernel stepping hints and a tooltip on hover', () => {
    const doc = smallGraph();
    Object.assign(doc.nodes[3], {
      attrs: { T: 'float32' }, source: { file: '/tmp/train.py', line: 12, function: '<module>', code: 'y = x + b' },
      kernel: { backend: 'numpy', python: { function: 'webflow.ops.math_ops.add', file: 'math_ops.py', line: 40 }, c_symbol: 'wf_binary_f32',
        hints: ['breakpoint() at math_ops.py:40', "gdb -ex 'break wf_binary_f32'"] }
    });
    const { host } = mount(doc);
    const add = host.querySelector('[data-op-name="add"]') as Element;
    add.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
    const tip = host.querySelector('.wf-tooltip') as HTMLElement;
    expect(tip.hidden).toBe(false);
    expect(tip.textContent).toContain('/device:CPU:0');
    expect(tip.textContent).toContain('numpy');
    add.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    const details = host.querySelector('.wf-details') as HTMLElement;
    expect(details.hidden).toBe(false);
    expect(add.classList.contains('wf-selected')).toBe(true);
    expect([...details.querySelectorAll('.wf-kernel-hints li')].map((li) => li.textContent)).toEqual(doc.nodes[3].kernel?.hints);
    expect(details.textContent).toContain('/tmp/train.py:12');
    expect(details.querySelector('.wf-code')?.textContent).toBe('y = x + b');
    expect(details.textContent).toContain('wf_binary_f32');
  });

  it('marks the failing op and the operands in the source line', () => {
    const doc = smallGraph();
    doc.nodes.push(node('model/dense/MatMul', 'MatMul'));
    doc.edges.push(edge('add', 'model/dense/MatMul'));
    doc.error = { node: 'model/dense/MatMul', type: 'ValueError', message: 'Dimensions must be equal',
      explanation: 'x has 2 columns\nbut w has 3 rows', source: { file: 't.py', line: 3, code: 'y = tf.matmul(x, w)' },
      operands: [{ text: 'x', shape: '(?, 2)', start: 14, end: 15 }, { text: 'w', shape: '(3, 4)', start: 17, end: 18 }] };
    const { host } = mount(doc);
    const failing = host.querySelector('[data-error="true"]') as Element;
    expect(failing.getAttribute('data-op-name')).toBe('model/dense/MatMul'); // its scopes were opened to show it
    expect(failing.classList.contains('wf-error')).toBe(true);
    const panel = host.querySelector('.wf-error-panel') as HTMLElement;
    expect(panel.hidden).toBe(false);
    expect([...panel.querySelectorAll('mark.wf-operand')].map((m) => [m.textContent, m.getAttribute('data-shape')]))
      .toEqual([['x', '(?, 2)'], ['w', '(3, 4)']]);
    expect(panel.querySelector('.wf-error-code')?.textContent).toBe('y = tf.matmul(x, w)');
    expect(panel.querySelector('.wf-explanation')?.textContent).toBe('x has 2 columns\nbut w has 3 rows');
  });

  it('is an error panel only while it shows an error (a notebook counts its panels by .wf-error-panel)', () => {
    const doc = smallGraph();
    const { host, view } = mount(doc);
    expect(host.querySelectorAll('.wf-error-panel').length).toBe(0);
    view.update({ ...doc, error: { node: 'add', type: 'ValueError', message: 'Dimensions must be equal' } });
    expect(host.querySelectorAll('.wf-error-panel').length).toBe(1);
    view.update({ ...doc, error: undefined });
    expect(host.querySelectorAll('.wf-error-panel').length).toBe(0);
  });

  it('shows a profile table sortable by duration and a timeline', () => {
    const doc = smallGraph();
    doc.profile = { total_us: 100, ops: [
      { node: 'x', type: 'Placeholder', backend: 'numpy', start_us: 0, duration_us: 5, calls: 1 },
      { node: 'add', type: 'AddV2', backend: 'native', start_us: 5, duration_us: 80, calls: 1 },
      { node: 'loss/Sum', type: 'Sum', backend: 'wasm', start_us: 85, duration_us: 15, calls: 2 }] };
    const { host } = mount(doc);
    const order = (): string[] => [...host.querySelectorAll('.wf-profile-table tbody tr')].map((r) => r.getAttribute('data-op-name') as string);
    expect(order()).toEqual(['add', 'loss/Sum', 'x']);
    (host.querySelector('.wf-sort') as HTMLButtonElement).click();
    expect(order()).toEqual(['x', 'loss/Sum', 'add']);
    const bars = [...host.querySelectorAll('.wf-timeline .wf-bar')];
    expect(bars.map((b) => b.getAttribute('data-op-name'))).toEqual(['x', 'add', 'loss/Sum']);
    expect(Number(bars[1].getAttribute('width'))).toBeCloseTo(480, 5); // 80 of 100 µs on a 600 px axis
    expect(Number(bars[2].getAttribute('x'))).toBeCloseTo(510, 5);
  });

  it('collapses a 300-op graph into a few groups and still draws each visible op once', () => {
    const doc = randomGraph(300, 11, true);
    const { host } = mount(doc);
    const visible = host.querySelectorAll('.wf-node, .wf-group').length;
    expect(visible).toBeLessThanOrEqual(60);
    expect(new Set(opEls(host).map((e) => e.getAttribute('data-op-name'))).size).toBe(opEls(host).length);
  });
});
