// The TensorBoard panel: a logdir's runs as TensorBoard shows them — scalars (smoothing slider, runs overlaid in
// their colours), histograms, images (with a step slider), text, each run's graph — plus a tag filter and run
// toggles. update(doc) keeps the controls' state and the scalar charts (live training does not flicker).
// Every tag, run name and text from the event files goes in as text; images only as data: URLs of PNG/JPEG/GIF.

import { html, replaceChildren, setText, update } from './dom';
import { GraphView } from './render';
import { DEFAULT_SMOOTHING } from './smoothing';
import { histogramChart, runClass, ScalarChart } from './tensorboard_charts';
import { ImageEntry, TensorBoardDoc, TextEntry } from './tensorboard_schema';

const SAFE_IMAGE = /^data:image\/(png|jpeg|gif);base64,[A-Za-z0-9+/]*={0,2}$/;

/** Only inline images of a raster format: never a URL that leaves the page, never SVG (it can hold script). */
export function safeImageSource(src: unknown): string | null {
  return typeof src === 'string' && SAFE_IMAGE.test(src) ? src : null;
}

/** TensorBoard's tag filter: a case-insensitive regular expression, or plain text when it is not a valid one. */
export function tagMatcher(filter: string): (tag: string) => boolean {
  if (!filter) return () => true;
  try {
    const re = new RegExp(filter, 'i');
    return (tag) => re.test(tag);
  } catch {
    const lower = filter.toLowerCase();
    return (tag) => tag.toLowerCase().includes(lower);
  }
}

type Section = 'scalars' | 'histograms' | 'images' | 'text' | 'graphs';
const SECTIONS: Array<[Section, string]> = [['scalars', 'Scalars'], ['histograms', 'Histograms'], ['images', 'Images'],
  ['text', 'Text'], ['graphs', 'Graphs']];

export class TensorBoardView {
  readonly root: HTMLDivElement;
  private readonly title: HTMLDivElement;
  private readonly runBox: HTMLDivElement;
  private readonly filterInput: HTMLInputElement;
  private readonly smoothingInput: HTMLInputElement;
  private readonly smoothingValue: HTMLSpanElement;
  private readonly sections = new Map<Section, HTMLDetailsElement>();
  private readonly bodies = new Map<Section, HTMLDivElement>();
  private readonly problems: HTMLUListElement;
  private readonly others: HTMLDivElement;
  private readonly charts = new Map<string, ScalarChart>();
  private readonly graphViews = new Map<string, GraphView>();
  private readonly hiddenRuns = new Set<string>();
  private doc: TensorBoardDoc | null = null;

  constructor(host: HTMLElement) {
    this.title = html('div', { class: 'wf-title' });
    this.runBox = html('div', { class: 'wf-tb-runs' });
    this.filterInput = html('input', { class: 'wf-tb-filter', type: 'search', placeholder: 'Filter tags (regular expression)' });
    this.smoothingInput = html('input', { class: 'wf-tb-smoothing', type: 'range', min: 0, max: 0.999, step: 0.001,
      value: DEFAULT_SMOOTHING });
    this.smoothingValue = html('span', { class: 'wf-tb-smoothing-value' }, String(DEFAULT_SMOOTHING));
    this.filterInput.addEventListener('input', () => this.redraw());
    this.smoothingInput.addEventListener('input', () => {
      setText(this.smoothingValue, this.smoothingInput.value);
      this.drawScalars();
    });
    const controls = html('div', { class: 'wf-tb-controls' },
      html('label', {}, 'Smoothing ', this.smoothingInput, ' ', this.smoothingValue), this.filterInput, this.runBox);
    this.problems = html('ul', { class: 'wf-tb-errors' });
    this.others = html('div', { class: 'wf-tb-caption wf-tb-others' });
    const sectionEls = SECTIONS.map(([key, name]) => {
      const body = html('div', { class: `wf-tb-body wf-tb-${key}-body` });
      const section = html('details', { class: 'wf-tb-section', 'data-section': key },
        html('summary', {}, html('span', { class: 'wf-tb-section-name' }, name), html('span', { class: 'wf-tb-count' })), body);
      section.open = key !== 'graphs';
      section.addEventListener('toggle', () => { if (key === 'graphs' && section.open) this.drawGraphs(); });
      this.sections.set(key, section);
      this.bodies.set(key, body);
      return section;
    });
    this.root = html('div', { class: 'wf-tensorboard' }, this.title, controls, this.problems, ...sectionEls, this.others);
    host.appendChild(this.root);
  }

  update(doc: TensorBoardDoc): void {
    this.doc = doc;
    setText(this.title, (doc.title ?? 'TensorBoard') + (doc.live ? ' (live)' : ''));
    update(this.root, { 'data-live': doc.live ? 'true' : 'false', 'data-runs': (doc.runs ?? []).length });
    this.drawRuns();
    this.redraw();
    const errors = doc.errors ?? [];
    this.problems.hidden = errors.length === 0;
    replaceChildren(this.problems, ...errors.map((e) => html('li', { 'data-run': e.run }, `${e.run}: ${e.message}`)));
    const others = Object.entries(doc.other_tags ?? {}).flatMap(([run, tags]) =>
      Object.entries(tags).map(([tag, plugin]) => `${tag} (${plugin || 'tensor'}, ${run})`));
    this.others.hidden = others.length === 0;
    setText(this.others, others.length ? `Not drawn here: ${others.join(', ')}` : '');
  }

  dispose(): void {
    this.graphViews.forEach((view) => view.dispose());
    this.root.remove();
  }

  private runs(): string[] {
    return this.doc?.runs ?? [];
  }

  private colour(run: string): number {
    return Math.max(0, this.runs().indexOf(run));
  }

  private visibleRuns<T>(table: Record<string, T[]> | undefined): Array<[string, T[]]> {
    return Object.entries(table ?? {}).filter(([run]) => !this.hiddenRuns.has(run));
  }

  private drawRuns(): void {
    replaceChildren(this.runBox, ...this.runs().map((run) => {
      const box = html('input', { type: 'checkbox', 'data-run': run });
      box.checked = !this.hiddenRuns.has(run);
      box.addEventListener('change', () => {
        if (box.checked) this.hiddenRuns.delete(run);
        else this.hiddenRuns.add(run);
        this.redraw();
      });
      return html('label', { class: `wf-tb-run ${runClass(this.colour(run))}`, 'data-run': run },
        box, html('span', { class: 'wf-swatch' }), run);
    }));
    if (!this.runs().length) replaceChildren(this.runBox, `No event files under ${this.doc?.logdir ?? 'the logdir'} yet.`);
  }

  private redraw(): void {
    this.drawScalars();
    this.drawHistograms();
    this.drawImages();
    this.drawText();
    if (this.sections.get('graphs')?.open) this.drawGraphs();
    else this.countGraphs();
  }

  private tags<T>(table: Record<string, T> | undefined): string[] {
    const matches = tagMatcher(this.filterInput.value);
    return Object.keys(table ?? {}).filter(matches);
  }

  private setCount(section: Section, shown: number, total: number): void {
    const el = this.sections.get(section)?.querySelector('.wf-tb-count') as Element;
    setText(el, shown === total ? ` (${total})` : ` (${shown} of ${total})`);
    (this.sections.get(section) as HTMLElement).hidden = total === 0;
  }

  private drawScalars(): void {
    const table = this.doc?.scalars ?? {};
    const tags = this.tags(table);
    const weight = Number(this.smoothingInput.value);
    const body = this.bodies.get('scalars') as HTMLDivElement;
    for (const [tag, chart] of this.charts) {
      if (!(tag in table)) {
        chart.element.remove();
        this.charts.delete(tag);
      } else {
        chart.element.hidden = !tags.includes(tag); // filtered out: hidden, kept (no redraw when it comes back)
      }
    }
    for (const tag of tags) {
      let chart = this.charts.get(tag);
      if (!chart) {
        chart = new ScalarChart(tag);
        this.charts.set(tag, chart);
      }
      body.appendChild(chart.element); // keeps tag order; moves, never recreates
      chart.update(this.visibleRuns(table[tag]).map(([run, points]) => ({ run, colour: this.colour(run), points })), weight);
    }
    this.setCount('scalars', tags.length, Object.keys(table).length);
  }

  private drawHistograms(): void {
    const table = this.doc?.histograms ?? {};
    const tags = this.tags(table);
    replaceChildren(this.bodies.get('histograms') as HTMLDivElement, ...tags.map((tag) =>
      html('div', { class: 'wf-tb-card', 'data-tag': tag }, html('h4', { class: 'wf-tb-tag' }, tag),
        ...this.visibleRuns(table[tag]).map(([run, steps]) => histogramChart(tag, run, this.colour(run), steps)))));
    this.setCount('histograms', tags.length, Object.keys(table).length);
  }

  private drawImages(): void {
    const table = this.doc?.images ?? {};
    const tags = this.tags(table);
    replaceChildren(this.bodies.get('images') as HTMLDivElement, ...tags.map((tag) =>
      html('div', { class: 'wf-tb-card', 'data-tag': tag }, html('h4', { class: 'wf-tb-tag' }, tag),
        ...this.visibleRuns(table[tag]).map(([run, images]) => imageViewer(tag, run, this.colour(run), images)))));
    this.setCount('images', tags.length, Object.keys(table).length);
  }

  private drawText(): void {
    const table = this.doc?.text ?? {};
    const tags = this.tags(table);
    replaceChildren(this.bodies.get('text') as HTMLDivElement, ...tags.map((tag) =>
      html('div', { class: 'wf-tb-card', 'data-tag': tag }, html('h4', { class: 'wf-tb-tag' }, tag),
        ...this.visibleRuns(table[tag]).map(([run, entries]) => html('div', { class: `wf-tb-text-run ${runClass(this.colour(run))}`, 'data-run': run },
          html('div', { class: 'wf-tb-caption' }, run), ...[...entries].reverse().map(textEntry))))));
    this.setCount('text', tags.length, Object.keys(table).length);
  }

  private countGraphs(): void {
    const total = Object.keys(this.doc?.graphs ?? {}).length;
    this.setCount('graphs', total, total);
  }

  private drawGraphs(): void {
    const graphs = this.doc?.graphs ?? {};
    const body = this.bodies.get('graphs') as HTMLDivElement;
    const runs = Object.keys(graphs).filter((run) => !this.hiddenRuns.has(run));
    for (const [run, view] of this.graphViews) if (!runs.includes(run)) {
      view.dispose();
      this.graphViews.delete(run);
      [...body.children].find((el) => el.getAttribute('data-run') === run)?.remove();
    }
    for (const run of runs) {
      const graph = graphs[run];
      let holder = [...body.children].find((el) => el.getAttribute('data-run') === run) as HTMLDivElement | undefined;
      if (!holder) {
        holder = html('div', { class: 'wf-tb-graph', 'data-run': run });
        body.appendChild(holder);
      }
      if (!graph.document) {
        replaceChildren(holder, `${run}: a graph of ${graph.node_count} nodes (too big to draw here)`);
        continue;
      }
      let view = this.graphViews.get(run);
      if (!view) {
        view = new GraphView(holder);
        this.graphViews.set(run, view);
      }
      view.update(graph.document);
    }
    this.countGraphs();
  }
}

function imageViewer(tag: string, run: string, colour: number, images: ImageEntry[]): HTMLDivElement {
  const shown = images.filter((i) => safeImageSource(i.src) !== null);
  const img = html('img', { class: 'wf-tb-image', alt: `${tag} (${run})` });
  const caption = html('div', { class: 'wf-tb-caption' });
  const show = (index: number): void => {
    const entry = shown[index];
    update(img, { src: safeImageSource(entry.src), 'data-step': entry.step, width: entry.width, height: entry.height });
    setText(caption, `${run}: step ${entry.step} (${entry.width}×${entry.height})`);
  };
  const holder = html('div', { class: `wf-tb-image-run ${runClass(colour)}`, 'data-tag': tag, 'data-run': run });
  if (!shown.length) {
    replaceChildren(holder, `${run}: no image in a format shown here`);
    return holder;
  }
  const slider = html('input', { class: 'wf-tb-step-slider', type: 'range', min: 0, max: shown.length - 1, step: 1, value: shown.length - 1 });
  slider.addEventListener('input', () => show(Number(slider.value)));
  slider.hidden = shown.length < 2;
  show(shown.length - 1);
  replaceChildren(holder, caption, slider, img);
  return holder;
}

function textEntry(entry: TextEntry): HTMLElement {
  const shape = entry.shape ?? [];
  let content: HTMLElement;
  if (shape.length === 2) {
    const [rows, cols] = shape;
    content = html('table', { class: 'wf-tb-text-table' }, ...Array.from({ length: rows }, (_, r) =>
      html('tr', {}, ...Array.from({ length: cols }, (_, c) => html('td', {}, entry.values[r * cols + c] ?? '')))));
  } else {
    content = html('pre', { class: 'wf-tb-text' }, entry.values.join('\n'));
  }
  return html('div', { class: 'wf-tb-text-entry', 'data-step': entry.step }, html('div', { class: 'wf-tb-caption' }, `step ${entry.step}`), content);
}
