// The SVG pictures of the TensorBoard panel: a scalar chart (one raw + one smoothed line per run, updated in place)
// and a histogram chart (the latest step as bars, earlier steps as fainter outlines behind it, as TensorBoard's
// "overlay" mode). Elements carry data-tag / data-run / data-step so tests can find them.

import { html, replaceChildren, svg, update } from './dom';
import { smooth } from './smoothing';
import { HistogramStep, ScalarPoint } from './tensorboard_schema';

const WIDTH = 420;
const HEIGHT = 200;
const PAD = { left: 52, right: 12, top: 12, bottom: 26 };
const PALETTE = 8; // run colours: CSS classes wf-run-0 .. wf-run-7

export function runClass(index: number): string {
  return `wf-run-${index % PALETTE}`;
}

export function niceNumber(v: number): string {
  if (!Number.isFinite(v)) return '';
  const a = Math.abs(v);
  return a !== 0 && (a < 1e-3 || a >= 1e5) ? v.toExponential(2) : String(Number(v.toPrecision(4)));
}

interface Scale { x: (v: number) => number; y: (v: number) => number; x0: number; x1: number; y0: number; y1: number }

function scale(xs: number[], ys: number[]): Scale {
  let [x0, x1, y0, y1] = xs.length ? [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)] : [0, 1, 0, 1];
  if (x1 === x0) x1 = x0 + 1;
  if (y1 === y0) [y0, y1] = [y0 - 0.5, y1 + 0.5];
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  return { x0, x1, y0, y1, x: (v) => PAD.left + ((v - x0) / (x1 - x0)) * plotW,
    y: (v) => HEIGHT - PAD.bottom - ((v - y0) / (y1 - y0)) * plotH };
}

function axisLabels(group: SVGGElement, s: Scale): void {
  const labels: Array<[string, number, number, string]> = [
    [niceNumber(s.y1), PAD.left - 4, PAD.top + 8, 'end'], [niceNumber(s.y0), PAD.left - 4, HEIGHT - PAD.bottom, 'end'],
    [niceNumber(s.x0), PAD.left, HEIGHT - 8, 'start'], [niceNumber(s.x1), WIDTH - PAD.right, HEIGHT - 8, 'end']];
  replaceChildren(group, ...labels.map(([text, x, y, anchor]) =>
    svg('text', { class: 'wf-axis-label', x, y, 'text-anchor': anchor }, text)));
}

function frame(): SVGRectElement {
  return svg('rect', { class: 'wf-plot-frame', x: PAD.left, y: PAD.top, width: WIDTH - PAD.left - PAD.right,
    height: HEIGHT - PAD.top - PAD.bottom });
}

export interface RunSeries { run: string; colour: number; points: ScalarPoint[] }

/** One scalar tag: per run a faint raw line and a smoothed line; x = step. */
export class ScalarChart {
  readonly element: HTMLDivElement;
  private readonly plot: SVGGElement;
  private readonly axis: SVGGElement;
  private readonly legend: HTMLDivElement;
  private readonly lines = new Map<string, [SVGPolylineElement, SVGPolylineElement]>();

  constructor(readonly tag: string) {
    this.plot = svg('g', { class: 'wf-plot' });
    this.axis = svg('g', { class: 'wf-axis' });
    const chart = svg('svg', { class: 'wf-chart-svg', viewBox: `0 0 ${WIDTH} ${HEIGHT}`, width: '100%' }, frame(), this.plot, this.axis);
    this.legend = html('div', { class: 'wf-legend' });
    this.element = html('div', { class: 'wf-tb-card wf-tb-scalar', 'data-tag': tag }, html('h4', { class: 'wf-tb-tag' }, tag), chart, this.legend);
  }

  update(series: RunSeries[], weight: number): void {
    const finite = series.map(({ points }) => points.filter((p): p is [number, number, number] => p[2] !== null && Number.isFinite(p[2])));
    const s = scale(finite.flatMap((pts) => pts.map((p) => p[0])), finite.flatMap((pts) => pts.map((p) => p[2])));
    const shown = new Set(series.map((r) => r.run));
    for (const [run, pair] of this.lines) if (!shown.has(run)) {
      pair.forEach((line) => line.remove());
      this.lines.delete(run);
    }
    const legendItems: HTMLElement[] = [];
    series.forEach(({ run, colour }, i) => {
      const pts = finite[i];
      const smoothed = smooth(pts.map((p) => p[2]), weight);
      let pair = this.lines.get(run);
      if (!pair) {
        pair = [svg('polyline', { fill: 'none' }), svg('polyline', { fill: 'none' })];
        this.plot.append(...pair);
        this.lines.set(run, pair);
      }
      const [raw, smoothLine] = pair;
      const at = (ys: number[]): string => pts.map((p, k) => `${s.x(p[0]).toFixed(1)},${s.y(ys[k]).toFixed(1)}`).join(' ');
      update(raw, { class: `wf-tb-raw ${runClass(colour)}`, points: at(pts.map((p) => p[2])), 'data-run': run, 'data-tag': this.tag });
      update(smoothLine, { class: `wf-tb-smoothed ${runClass(colour)}`, points: at(smoothed), 'data-run': run, 'data-tag': this.tag,
        'data-points': pts.length, 'data-last-step': pts.length ? pts[pts.length - 1][0] : null,
        'data-last-value': pts.length ? smoothed[smoothed.length - 1] : null });
      const last = pts.length ? `${niceNumber(smoothed[smoothed.length - 1])} (raw ${niceNumber(pts[pts.length - 1][2])}) at step ${pts[pts.length - 1][0]}` : 'no finite values';
      legendItems.push(html('span', { class: `wf-legend-item ${runClass(colour)}`, 'data-run': run },
        html('span', { class: 'wf-swatch' }), `${run}: ${last}`));
    });
    axisLabels(this.axis, s);
    replaceChildren(this.legend, ...legendItems);
  }
}

/** One histogram tag of one run: bars of the latest step over outlines of the earlier ones. */
export function histogramChart(tag: string, run: string, colour: number, steps: HistogramStep[]): HTMLDivElement {
  const rows = steps.map((h) => h.buckets.filter((b): b is [number, number, number] =>
    b.every((v) => v !== null && Number.isFinite(v))));
  const s = scale(rows.flat().flatMap((b) => [b[0], b[1]]), [0, ...rows.flat().map((b) => b[2])]);
  const outlines = rows.slice(0, -1).map((buckets, i) => svg('polyline', {
    class: `wf-tb-hist-step ${runClass(colour)}`, fill: 'none', 'data-step': steps[i].step,
    opacity: (0.15 + 0.5 * (i + 1) / rows.length).toFixed(2),
    points: buckets.map((b) => `${s.x((b[0] + b[1]) / 2).toFixed(1)},${s.y(b[2]).toFixed(1)}`).join(' ') }));
  const latest = rows.length ? rows[rows.length - 1] : [];
  const step = steps.length ? steps[steps.length - 1].step : null;
  const bars = svg('g', { class: `wf-tb-hist-bars ${runClass(colour)}`, 'data-step': step },
    ...latest.map((b) => svg('rect', { class: 'wf-tb-bar', x: s.x(b[0]).toFixed(1), width: Math.max(0.5, s.x(b[1]) - s.x(b[0])).toFixed(1),
      y: s.y(b[2]).toFixed(1), height: (s.y(0) - s.y(b[2])).toFixed(1), 'data-count': b[2] })));
  const axis = svg('g', { class: 'wf-axis' });
  axisLabels(axis, s);
  const picture = svg('svg', { class: 'wf-chart-svg', viewBox: `0 0 ${WIDTH} ${HEIGHT}`, width: '100%' }, frame(), ...outlines, bars, axis);
  const caption = step === null ? `${run}: empty` : `${run}: step ${step}${steps.length > 1 ? ` (and ${steps.length - 1} earlier steps, fainter)` : ''}`;
  return html('div', { class: 'wf-tb-histogram', 'data-tag': tag, 'data-run': run, 'data-steps': steps.length },
    picture, html('div', { class: 'wf-tb-caption' }, caption));
}
