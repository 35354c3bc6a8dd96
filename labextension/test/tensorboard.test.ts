import { describe, expect, it } from 'vitest';

import { smooth } from '../src/smoothing';
import { safeImageSource, tagMatcher, TensorBoardView } from '../src/tensorboard';
import { TensorBoardDoc } from '../src/tensorboard_schema';
import { renderInto } from '../src/views';

const HOSTILE = '<img src=x onerror=window.__pwned=1>';
const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==';

function doc(extra: Partial<TensorBoardDoc> = {}): TensorBoardDoc {
  return {
    version: 1, title: 'TensorBoard: logs', logdir: 'logs', live: false, runs: ['eval', 'train'],
    scalars: {
      loss: { train: [[0, 1, 2.0], [1, 2, 1.0], [2, 3, 0.5]], eval: [[0, 1, 2.5], [2, 3, 1.5]] },
      accuracy: { train: [[0, 1, 0.1], [2, 3, 0.9]] }
    },
    histograms: { weights: { train: [
      { step: 0, wall_time: 1, buckets: [[0, 1, 3], [1, 2, 5]] },
      { step: 1, wall_time: 2, buckets: [[0, 1, 1], [1, 2, 2], [2, 3, 4]] }] } },
    images: { pic: { train: [{ step: 2, wall_time: 3, width: 1, height: 1, src: PNG }] } },
    text: { notes: { train: [{ step: 3, wall_time: 4, shape: [], values: ['hello <b>there</b>'] }] },
      table: { train: [{ step: 1, wall_time: 1, shape: [2, 2], values: ['a', 'b', 'c', 'd'] }] } },
    graphs: { train: { node_count: 2, document: { version: 1, nodes: [
      { name: 'x', type: 'Placeholder', kind: 'placeholder', scope: '' }, { name: 'y', type: 'Neg', kind: 'op', scope: '' }],
    edges: [{ source: 'x', target: 'y', control: false }] } } },
    errors: [],
    ...extra
  };
}

const smoothed = (host: Element, tag: string, run: string): Element | null =>
  host.querySelector(`.wf-tb-scalar[data-tag="${tag}"] .wf-tb-smoothed[data-run="${run}"]`);

describe('smoothing (TensorBoard\'s debiased moving average)', () => {
  it('matches values worked out by hand', () => {
    // w = 0.5: last = 0.5, debias 1 - 0.5 -> 1; last = 0.25, debias 1 - 0.25 -> 1/3; last = 0.625, /0.875 -> 5/7
    const out = smooth([1, 0, 1], 0.5);
    expect(out[0]).toBeCloseTo(1, 12);
    expect(out[1]).toBeCloseTo(1 / 3, 12);
    expect(out[2]).toBeCloseTo(5 / 7, 12);
    expect(smooth([3, 1, 4], 0)).toEqual([3, 1, 4]);
    expect(smooth([2, 2, 2], 0.9)).toEqual([2, 2, 2]); // a constant series is left alone
    const withNaN = smooth([1, NaN, 1, 0], 0.5);
    expect(withNaN[1]).toBeNaN();
    expect(withNaN[3]).toBeCloseTo(3 / 7, 12); // NaN does not count: 1, 1, 0 -> last 0.375, debias 1 - 1/8
  });
});

describe('TensorBoardView', () => {
  it('draws one chart per scalar tag with one line per run, and every other kind', () => {
    const host = document.createElement('div');
    const view = renderInto(host, 'application/vnd.webflow.tensorboard+json', doc(), null);
    expect(view).toBeInstanceOf(TensorBoardView);
    const tags = [...host.querySelectorAll('.wf-tb-scalar')].map((e) => e.getAttribute('data-tag'));
    expect(tags).toEqual(['loss', 'accuracy']);
    expect(smoothed(host, 'loss', 'train')?.getAttribute('data-points')).toBe('3');
    expect(smoothed(host, 'loss', 'eval')?.getAttribute('data-points')).toBe('2');
    expect(smoothed(host, 'loss', 'train')?.getAttribute('class')).toContain('wf-run-1'); // colour by run order
    const bars = host.querySelectorAll('.wf-tb-histogram[data-tag="weights"][data-run="train"] .wf-tb-bar');
    expect([...bars].map((b) => b.getAttribute('data-count'))).toEqual(['1', '2', '4']); // the latest step
    expect(host.querySelectorAll('.wf-tb-hist-step').length).toBe(1); // the earlier step, as an outline
    const img = host.querySelector('.wf-tb-image-run[data-tag="pic"] img') as HTMLImageElement;
    expect(img.getAttribute('src')).toBe(PNG);
    expect(img.getAttribute('data-step')).toBe('2');
    expect(host.querySelector('[data-tag="notes"] pre')?.textContent).toBe('hello <b>there</b>');
    expect(host.querySelector('[data-tag="notes"] b')).toBeNull();
    expect([...host.querySelectorAll('[data-tag="table"] td')].map((td) => td.textContent)).toEqual(['a', 'b', 'c', 'd']);
    expect(host.querySelector('.wf-tb-section[data-section="scalars"] .wf-tb-count')?.textContent).toBe(' (2)');
    expect((host.querySelector('.wf-tb-others') as HTMLElement).hidden).toBe(true);
    view.dispose();
    const other = document.createElement('div');
    new TensorBoardView(other).update(doc({ other_tags: { train: { speech: 'audio' } } }));
    expect(other.querySelector('.wf-tb-others')?.textContent).toBe('Not drawn here: speech (audio, train)');
  });

  it('smoothing slider, tag filter and run toggles redraw; a live update keeps the charts', () => {
    const host = document.createElement('div');
    const view = new TensorBoardView(host);
    view.update(doc());
    const line = smoothed(host, 'loss', 'train') as Element;
    const chart = host.querySelector('.wf-tb-scalar[data-tag="loss"]');
    // default weight 0.6: (0.4*2)/0.4 = 2, then (0.6*0.8 + 0.4*1)/(1-0.36) = 1.375, then (0.6*0.88+0.2)/(1-0.216)
    expect(Number(line.getAttribute('data-last-value'))).toBeCloseTo((0.6 * 0.88 + 0.2) / 0.784, 9);
    const slider = host.querySelector('.wf-tb-smoothing') as HTMLInputElement;
    slider.value = '0';
    slider.dispatchEvent(new Event('input'));
    expect(Number(line.getAttribute('data-last-value'))).toBe(0.5);
    const filter = host.querySelector('.wf-tb-filter') as HTMLInputElement;
    filter.value = '^acc';
    filter.dispatchEvent(new Event('input'));
    expect([...host.querySelectorAll('.wf-tb-scalar:not([hidden])')].map((e) => e.getAttribute('data-tag'))).toEqual(['accuracy']);
    expect(host.querySelector('.wf-tb-section[data-section="scalars"] .wf-tb-count')?.textContent).toBe(' (1 of 2)');
    filter.value = '';
    filter.dispatchEvent(new Event('input'));
    const evalBox = host.querySelector('.wf-tb-runs input[data-run="eval"]') as HTMLInputElement;
    evalBox.checked = false;
    evalBox.dispatchEvent(new Event('change'));
    expect(smoothed(host, 'loss', 'eval')).toBeNull();
    // live: more points arrive; same chart and line elements, the controls keep their state
    const next = doc({ live: true });
    (next.scalars as NonNullable<TensorBoardDoc['scalars']>).loss.train.push([3, 4, 0.25]);
    view.update(next);
    expect(host.querySelector('.wf-tb-scalar[data-tag="loss"]')).toBe(chart);
    expect(smoothed(host, 'loss', 'train')).toBe(line);
    expect(line.getAttribute('data-points')).toBe('4');
    expect(smoothed(host, 'loss', 'eval')).toBeNull();
    expect((host.querySelector('.wf-tb-smoothing') as HTMLInputElement).value).toBe('0');
    expect(host.querySelector('.wf-tensorboard')?.getAttribute('data-live')).toBe('true');
    expect(host.querySelector('.wf-title')?.textContent).toBe('TensorBoard: logs (live)');
  });

  it('draws a run\'s graph with the graph view when the Graphs section is opened', () => {
    const host = document.createElement('div');
    new TensorBoardView(host).update(doc());
    expect(host.querySelectorAll('.wf-node').length).toBe(0); // closed: not drawn
    const section = host.querySelector('.wf-tb-section[data-section="graphs"]') as HTMLDetailsElement;
    section.open = true;
    section.dispatchEvent(new Event('toggle'));
    const names = [...host.querySelectorAll('.wf-tb-graph[data-run="train"] .wf-node[data-op-name]')].map((e) => e.getAttribute('data-op-name'));
    expect(names.sort()).toEqual(['x', 'y']);
  });

  it('tag filter: a regular expression, or plain text when it is not one', () => {
    expect(['loss', 'val_loss', 'acc'].filter(tagMatcher('loss$'))).toEqual(['loss', 'val_loss']);
    expect(['a(b', 'ab'].filter(tagMatcher('a('))).toEqual(['a(b']);
    expect(['x', 'y'].filter(tagMatcher(''))).toEqual(['x', 'y']);
  });
});

describe('strings from event files stay text', () => {
  it('a hostile tag, run, text, title, error and image source render inert', async () => {
    const host = document.createElement('div');
    document.body.appendChild(host);
    new TensorBoardView(host).update({
      version: 1, title: HOSTILE, logdir: HOSTILE, runs: [HOSTILE],
      scalars: { [HOSTILE]: { [HOSTILE]: [[0, 0, 1], [1, 1, 2]] } },
      histograms: { [HOSTILE]: { [HOSTILE]: [{ step: 0, wall_time: 0, buckets: [[0, 1, 2]] }] } },
      images: { [HOSTILE]: { [HOSTILE]: [
        { step: 0, wall_time: 0, width: 1, height: 1, src: 'javascript:window.__pwned=1' },
        { step: 1, wall_time: 0, width: 1, height: 1, src: 'data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+' },
        { step: 2, wall_time: 0, width: 1, height: 1, src: `${PNG}" onerror="window.__pwned=1` }] } },
      text: { [HOSTILE]: { [HOSTILE]: [{ step: 0, wall_time: 0, shape: [], values: [HOSTILE] }] } },
      graphs: {}, errors: [{ run: HOSTILE, message: HOSTILE }]
    });
    await new Promise((resolve) => setTimeout(resolve, 50)); // an onerror handler would have fired by now
    expect(document.querySelectorAll('img').length).toBe(0); // none of the three sources is a safe image
    expect((window as unknown as { __pwned?: number }).__pwned).toBeUndefined();
    expect(host.querySelector('.wf-title')?.textContent).toBe(HOSTILE);
    expect(host.querySelector('.wf-tb-scalar')?.getAttribute('data-tag')).toBe(HOSTILE);
    expect(host.querySelector('.wf-tb-scalar h4')?.textContent).toBe(HOSTILE);
    expect(host.querySelector('.wf-tb-text')?.textContent).toBe(HOSTILE);
    expect(host.querySelector('.wf-tb-errors li')?.textContent).toBe(`${HOSTILE}: ${HOSTILE}`);
    expect(host.querySelector('.wf-tb-run')?.textContent).toBe(HOSTILE);
  });

  it('accepts only inline PNG, JPEG and GIF images', () => {
    expect(safeImageSource(PNG)).toBe(PNG);
    expect(safeImageSource('data:image/jpeg;base64,/9j/4AAQ')).not.toBeNull();
    expect(safeImageSource('data:image/svg+xml;base64,PHN2Zz4=')).toBeNull();
    expect(safeImageSource('https://example.com/x.png')).toBeNull();
    expect(safeImageSource(42)).toBeNull();
  });
});
