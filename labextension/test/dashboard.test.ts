import { describe, expect, it } from 'vitest';

import { chartKind, DashboardView } from '../src/dashboard';

function points(el: Element | null): Array<[number, number]> {
  return (el?.getAttribute('points') ?? '').split(' ').filter(Boolean).map((p) => p.split(',').map(Number) as [number, number]);
}

describe('DashboardView', () => {
  it('puts loss-like and accuracy-like series on separate charts', () => {
    expect(['loss', 'val_loss', 'cross_entropy'].map(chartKind)).toEqual(['loss', 'loss', 'loss']);
    expect(['accuracy', 'val_acc', 'AUC'].map(chartKind)).toEqual(['accuracy', 'accuracy', 'accuracy']);
    expect(chartKind('learning_rate')).toBe('other');
    const host = document.createElement('div');
    const view = new DashboardView(host);
    view.update({ version: 1, title: 'Training', series: { loss: [[0, 2.3], [100, 0.41]], accuracy: [[0, 0.1], [100, 0.88]],
      val_loss: [[0, 2.4], [100, 0.5]], val_accuracy: [[0, 0.1], [100, 0.8]] }, hints: ['overfitting?'] });
    const loss = host.querySelector('[data-chart="loss"]') as Element;
    const acc = host.querySelector('[data-chart="accuracy"]') as Element;
    expect([...loss.querySelectorAll('.wf-series')].map((s) => s.getAttribute('data-series'))).toEqual(['loss', 'val_loss']);
    expect([...acc.querySelectorAll('.wf-series')].map((s) => s.getAttribute('data-series'))).toEqual(['accuracy', 'val_accuracy']);
    expect(host.querySelector('[data-chart="other"]')).toBeNull();
    expect(host.querySelector('.wf-hints li')?.textContent).toBe('overfitting?');
    // falling loss: the line goes down the screen from left to right (svg y grows downwards)
    const [first, last] = points(loss.querySelector('[data-series="loss"]'));
    expect(last[0]).toBeGreaterThan(first[0]);
    expect(last[1]).toBeGreaterThan(first[1]);
    // accuracy axis is 0..1: 0.88 sits 88% of the way up the plot area (top 12, bottom 154)
    const accLast = points(acc.querySelector('[data-series="accuracy"]'))[1];
    expect(accLast[1]).toBeCloseTo(154 - 0.88 * 142, 0);
  });

  it('updates the same polylines when new points arrive', () => {
    const host = document.createElement('div');
    const view = new DashboardView(host);
    view.update({ version: 1, series: { loss: [[0, 1]] } });
    const line = host.querySelector('[data-series="loss"].wf-series');
    view.update({ version: 1, series: { loss: [[0, 1], [1, 0.5], [2, 0.25]] }, hints: [] });
    expect(host.querySelector('[data-series="loss"].wf-series')).toBe(line);
    expect(points(line).length).toBe(3);
    expect((host.querySelector('.wf-hints') as HTMLElement).hidden).toBe(true);
    expect(host.querySelector('.wf-legend-item')?.textContent).toContain('0.25');
  });
});
