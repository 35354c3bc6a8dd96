import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { DashboardView } from '../src/dashboard';
import { GraphView } from '../src/render';
import { edge, node } from './fixtures';

const HOSTILE = '<img src=x onerror=window.__pwned=1>';

describe('user strings are text, never markup', () => {
  it('renders a hostile op name literally, creates no <img> and runs nothing', async () => {
    const host = document.createElement('div');
    document.body.appendChild(host);
    const view = new GraphView(host);
    view.update({
      version: 1, title: HOSTILE,
      nodes: [node(HOSTILE, HOSTILE, HOSTILE, { attrs: { [HOSTILE]: HOSTILE }, device: HOSTILE }), node('y', 'Identity')],
      edges: [edge(HOSTILE, 'y', { shape: HOSTILE, dtype: HOSTILE })],
      error: { node: HOSTILE, type: HOSTILE, message: HOSTILE, explanation: HOSTILE,
        source: { file: HOSTILE, line: 1, code: HOSTILE }, operands: [{ text: HOSTILE, start: 0, end: 4 }] },
      profile: { total_us: 1, ops: [{ node: HOSTILE, type: HOSTILE, backend: HOSTILE, start_us: 0, duration_us: 1 }] }
    });
    const el = host.querySelector('.wf-node[data-op-name]') as Element;
    expect(el.getAttribute('data-op-name')).toBe(HOSTILE);
    expect(el.querySelector('.wf-label')?.textContent).toBe(HOSTILE);
    el.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
    el.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    const dash = document.createElement('div');
    document.body.appendChild(dash);
    new DashboardView(dash).update({ version: 1, title: HOSTILE, series: { [HOSTILE]: [[0, 1], [1, 2]] }, hints: [HOSTILE] });
    await new Promise((resolve) => setTimeout(resolve, 50)); // an onerror handler would have fired by now
    expect(document.querySelectorAll('img').length).toBe(0);
    expect((window as unknown as { __pwned?: number }).__pwned).toBeUndefined();
    expect(host.textContent).toContain(HOSTILE);
    expect(host.querySelector('.wf-details')?.textContent).toContain(HOSTILE);
    expect(host.querySelector('.wf-tooltip')?.textContent).toContain(HOSTILE);
    expect(host.querySelector('.wf-error-panel')?.textContent).toContain(HOSTILE);
    expect(dash.querySelector('.wf-hints li')?.textContent).toBe(HOSTILE);
    // the kind is user data too: it never becomes a class name as is
    expect(el.getAttribute('class')).toBe('wf-node wf-kind-op wf-error wf-selected');
  });

  it('no source file parses markup', () => {
    const dir = join(__dirname, '..', 'src');
    for (const file of readdirSync(dir)) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect(text, file).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|DOMParser|createContextualFragment/);
    }
  });
});
