// Live training dashboard: one SVG line chart for loss-like series, one for accuracy-like series, one for the
// rest, and the hints list. update(doc) rewrites polylines and labels in place (no flicker in a live loop).

import { html, replaceChildren, setText, svg, update } from './dom';
import { DashboardDoc } from './schema';

const WIDTH = 420;
const HEIGHT = 180;
const PAD = { left: 48, right: 12, top: 12, bottom: 26 };

export type ChartKind = 'loss' | 'accuracy' | 'other';

/** Which chart a series belongs on, from its name (val_loss → loss, train_acc → accuracy). */
export function chartKind(name: string): ChartKind {
  if (/acc|precision|recall|auc|f1/i.test(name)) return 'accuracy';
  if (/loss|error|entropy|mse|mae|perplexity/i.test(name)) return 'loss';
  return 'other';
}

const TITLES: Record<ChartKind, string> = { loss: 'Loss', accuracy: 'Accuracy', other: 'Other metrics' };

function niceNumber(v: number): string {
  if (!Number.isFinite(v)) return '';
  const a = Math.abs(v);
  return a !== 0 && (a < 1e-3 || a >= 1e5) ? v.toExponential(2) : String(Number(v.toPrecision(3)));
}

class LineChart {
  readonly element: HTMLDivElement;
  private readonly plot: SVGGElement;
  private readonly legend: HTMLDivElement;
  private readonly axis: SVGTextElement[];
  private readonly lines = new Map<string, SVGPolylineElement>();

  constructor(readonly kind: ChartKind) {
    this.plot = svg('g', { class: 'wf-plot' });
    this.axis = [0, 1, 2, 3].map(() => svg('text', { class: 'wf-axis-label' }));
    const frame = svg('rect', { class: 'wf-plot-frame', x: PAD.left, y: PAD.top, width: WIDTH - PAD.left - PAD.right,
      height: HEIGHT - PAD.top - PAD.bottom });
    const chart = svg('svg', { class: 'wf-chart-svg', viewBox: `0 0 ${WIDTH} ${HEIGHT}`, width: '100%' }, frame, this.plot, ...this.axis);
    this.legend = html('div', { class: 'wf-legend' });
    this.element = html('div', { class: `wf-chart wf-chart-${kind}`, 'data-chart': kind }, html('h4', {}, TITLES[kind]), chart, this.legend);
  }

  update(series: Array<[string, Array<[number, number]>]>): void {
    const points = series.flatMap(([, pts]) => pts.filter((p) => Number.isFinite(p[0]) && Number.isFinite(p[1])));
    const xs = points.map((p) => p[0]);
    const ys = points.map((p) => p[1]);
    let [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
    if (!points.length) [x0, x1, y0, y1] = [0, 1, 0, 1];
    if (this.kind === 'accuracy' && y0 >= 0 && y1 <= 1) [y0, y1] = [Math.min(y0, 0), 1];
    if (x1 === x0) x1 = x0 + 1;
    if (y1 === y0) [y0, y1] = [y0 - 0.5, y1 + 0.5];
    const sx = (x: number): number => PAD.left + ((x - x0) / (x1 - x0)) * (WIDTH - PAD.left - PAD.right);
    const sy = (y: number): number => HEIGHT - PAD.bottom - ((y - y0) / (y1 - y0)) * (HEIGHT - PAD.top - PAD.bottom);

    const names = new Set(series.map(([name]) => name));
    for (const [name, line] of this.lines) if (!names.has(name)) {
      line.remove();
      this.lines.delete(name);
    }
    series.forEach(([name, pts], i) => {
      let line = this.lines.get(name);
      if (!line) {
        line = svg('polyline', { class: 'wf-series', fill: 'none' });
        this.lines.set(name, line);
        this.plot.appendChild(line);
      }
      const valid = pts.filter((p) => Number.isFinite(p[0]) && Number.isFinite(p[1]));
      update(line, { points: valid.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' '), 'data-series': name,
        class: `wf-series wf-series-${i % 6}${/^val/i.test(name) ? ' wf-validation' : ''}` });
    });
    // y max / y min on the left, first / last step at the bottom
    const labels: Array<[string, number, number, string]> = [
      [niceNumber(y1), PAD.left - 4, PAD.top + 8, 'end'], [niceNumber(y0), PAD.left - 4, HEIGHT - PAD.bottom, 'end'],
      [niceNumber(x0), PAD.left, HEIGHT - 8, 'start'], [niceNumber(x1), WIDTH - PAD.right, HEIGHT - 8, 'end']];
    labels.forEach(([text, x, y, anchor], i) => {
      setText(this.axis[i], text);
      update(this.axis[i], { x, y, 'text-anchor': anchor });
    });
    replaceChildren(this.legend, ...series.map(([name, pts], i) => {
      const last = pts.length ? pts[pts.length - 1][1] : NaN;
      return html('span', { class: `wf-legend-item wf-series-${i % 6}`, 'data-series': name },
        html('span', { class: 'wf-swatch' }), `${name} ${niceNumber(last)}`);
    }));
  }
}

export class DashboardView {
  readonly root: HTMLDivElement;
  private readonly title: HTMLDivElement;
  private readonly charts: HTMLDivElement;
  private readonly hints: HTMLUListElement;
  private readonly chartByKind = new Map<ChartKind, LineChart>();

  constructor(host: HTMLElement) {
    this.title = html('div', { class: 'wf-title' });
    this.charts = html('div', { class: 'wf-charts' });
    this.hints = html('ul', { class: 'wf-hints' });
    this.root = html('div', { class: 'wf-dashboard' }, this.title, this.charts, this.hints);
    host.appendChild(this.root);
  }

  update(doc: DashboardDoc): void {
    setText(this.title, doc.title ?? 'Training');
    const groups = new Map<ChartKind, Array<[string, Array<[number, number]>]>>();
    for (const [name, pts] of Object.entries(doc.series ?? {})) {
      const kind = chartKind(name);
      (groups.get(kind) ?? groups.set(kind, []).get(kind) as Array<[string, Array<[number, number]>]>).push([name, pts ?? []]);
    }
    for (const kind of ['loss', 'accuracy', 'other'] as ChartKind[]) {
      const series = groups.get(kind);
      let chart = this.chartByKind.get(kind);
      if (!series) {
        chart?.element.remove();
        this.chartByKind.delete(kind);
        continue;
      }
      if (!chart) {
        chart = new LineChart(kind);
        this.chartByKind.set(kind, chart);
      }
      this.charts.appendChild(chart.element); // keeps loss, accuracy, other order (moves, never recreates)
      chart.update(series);
    }
    const hints = doc.hints ?? [];
    this.hints.hidden = hints.length === 0;
    replaceChildren(this.hints, ...hints.map((h) => html('li', {}, h)));
  }

  dispose(): void {
    this.root.remove();
  }
}
