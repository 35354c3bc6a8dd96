// The error panel of issue 31: one panel, the learner's line first (as IPython names cells), engine frames folded.
import { afterEach, describe, expect, it } from 'vitest';

import { errorPanel } from '../src/panels';
import { ErrorInfo } from '../src/schema';

afterEach(() => document.body.replaceChildren());

const code = 'z = tf.matmul(tf.constant([[1., 2., 3.]]), w)';
const error: ErrorInfo = {
  node: 'MatMul',
  type: 'ShapeError',
  message: "Dimensions must be equal, but are 3 and 2 for '{{node MatMul}} = MatMul[](Const, w)'",
  explanation: 'webflow: the MatMul op could not be built\n  Cell In[3], line 3\n    ' + code,
  summary: 'matrix product: a has 3 columns but w has 2 rows; they must be equal.',
  where: 'Cell In[3], line 3',
  source: { file: '/tmp/ipykernel_1/138587937.py', line: 3, code },
  operands: [
    { text: 'tf.constant([[1., 2., 3.]])', name: 'a', shape: '(1, 3)', start: 14, end: 41 },
    { text: 'w', name: 'w', shape: '(2, 2)', start: 43, end: 44 }
  ],
  frames: [
    { where: 'File "/usr/lib/python3/site-packages/IPython/core/interactiveshell.py", line 3823', function: 'run_code', code: 'exec(code_obj)', engine: true },
    { where: 'Cell In[3], line 3', function: '<module>', code, engine: false },
    { where: 'File "/work/webflow/ops/registry.py", line 175', function: 'run_shape_rule', code: 'raise ShapeError(...)', engine: true }
  ]
};

describe('errorPanel', () => {
  it("names the learner's line first, as IPython names a cell, and shows one explanation", () => {
    const panel = errorPanel(error, () => undefined);
    document.body.appendChild(panel);
    expect(panel.firstElementChild?.textContent).toBe('Cell In[3], line 3');
    expect(panel.querySelectorAll('.wf-explanation').length).toBe(1);
    expect(panel.querySelector('.wf-explanation')?.textContent).toBe(error.summary);
    expect(panel.textContent).not.toContain('ipykernel_1'); // the temporary file is not shown
    expect(panel.textContent?.split('Dimensions must be equal').length).toBe(2); // the message once
    // the operands by the names the explanation uses, not the whole expression
    expect([...panel.querySelectorAll('.wf-operands li')].map((li) => li.textContent)).toEqual(['a shape (1, 3)', 'w shape (2, 2)']);
  });

  it('folds engine frames behind a toggle that shows them all in call order', () => {
    const panel = errorPanel(error, () => undefined);
    document.body.appendChild(panel);
    const visibleFrames = (): string[] =>
      [...panel.querySelectorAll('.wf-trace-frames')]
        .filter((list) => !(list as HTMLElement).hidden)
        .flatMap((list) => [...list.querySelectorAll('.wf-trace-where')].map((w) => w.textContent ?? ''));
    expect(visibleFrames()).toEqual(['Cell In[3], line 3']);
    const toggle = panel.querySelector('.wf-engine-toggle') as HTMLButtonElement;
    expect(toggle.textContent).toBe('show engine frames (2)');
    toggle.click();
    expect(visibleFrames()).toHaveLength(3);
    expect(visibleFrames()[2]).toContain('registry.py');
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    toggle.click();
    expect(visibleFrames()).toEqual(['Cell In[3], line 3']);
  });

  it('marks the operands in the source line as text, in one monospace block', () => {
    const panel = errorPanel(error, () => undefined);
    const pre = panel.querySelector('pre.wf-error-code') as HTMLElement;
    expect(pre.textContent).toBe(code);
    expect([...pre.querySelectorAll('mark')].map((m) => m.textContent)).toEqual(['tf.constant([[1., 2., 3.]])', 'w']);
  });

  it('still renders a document from before issue 31 (no where/summary/frames)', () => {
    const old: ErrorInfo = { node: 'add', type: 'ValueError', message: 'bad', explanation: 'x and b', source: { file: 't.py', line: 3, code: 'y = x + b' }, operands: [] };
    const panel = errorPanel(old, () => undefined);
    expect(panel.firstElementChild?.textContent).toBe('t.py:3');
    expect(panel.querySelector('.wf-explanation')?.textContent).toBe('x and b');
  });
});
