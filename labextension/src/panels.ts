// The HTML side panels of the graph view: node details, hover tooltip, error explanation and profile.
// All user strings go in as text nodes (dom.ts has no markup parser on purpose).

import { formatUs, html, replaceChildren, svg } from './dom';
import { ErrorFrame, ErrorInfo, GraphNode, ProfileInfo, ProfileOp, SourceRef } from './schema';

function row(label: string, value: string | Node | null | undefined): HTMLElement | null {
  if (value === null || value === undefined || value === '') return null;
  return html('div', { class: 'wf-row' }, html('span', { class: 'wf-key' }, label), html('span', { class: 'wf-value' }, value));
}

function sourceLine(src: SourceRef | null | undefined): string {
  if (!src) return '';
  return `${src.file}:${src.line}${src.function ? ` in ${src.function}` : ''}`;
}

/** Short text for the hover tooltip of an op. */
export function nodeTooltip(node: GraphNode): HTMLElement {
  const attrs = Object.entries(node.attrs ?? {});
  return html(
    'div',
    {},
    html('div', { class: 'wf-tip-title' }, node.name),
    html('div', { class: 'wf-tip-sub' }, `${node.type} · ${node.kind}`),
    row('device', node.device || ''),
    row('backend', node.backend ?? 'not run yet'),
    row('time', formatUs(node.timing_us)),
    ...attrs.slice(0, 8).map(([k, v]) => row(k, v)),
    attrs.length > 8 ? html('div', { class: 'wf-tip-more' }, `… ${attrs.length - 8} more attributes`) : null
  );
}

export function groupTooltip(scope: string, members: number, collapsed: boolean): HTMLElement {
  return html(
    'div',
    {},
    html('div', { class: 'wf-tip-title' }, scope),
    html('div', { class: 'wf-tip-sub' }, `name scope · ${members} ops · click to ${collapsed ? 'expand' : 'collapse'}`)
  );
}

/** The details panel shown when an op is clicked: everything the document knows about it. */
export function nodeDetails(node: GraphNode, onClose: () => void): HTMLElement {
  const close = html('button', { class: 'wf-close', type: 'button', title: 'Close' }, '×');
  close.addEventListener('click', onClose);
  const attrs = Object.entries(node.attrs ?? {});
  const outputs = node.outputs ?? [];
  const kernel = node.kernel;
  return html(
    'div',
    { class: 'wf-details-body' },
    html('div', { class: 'wf-details-head' }, html('span', { class: 'wf-details-name' }, node.name), close),
    row('type', node.type),
    row('kind', node.kind),
    row('device', node.device || ''),
    row('backend', node.backend ?? 'not run yet'),
    row('time', formatUs(node.timing_us)),
    node.executed ? row('executed', 'yes (last run)') : null,
    attrs.length ? html('h4', {}, 'Attributes') : null,
    attrs.length ? html('table', { class: 'wf-attrs' }, ...attrs.map(([k, v]) => html('tr', {}, html('td', {}, k), html('td', {}, v)))) : null,
    outputs.length ? html('h4', {}, 'Outputs') : null,
    outputs.length
      ? html('ul', { class: 'wf-outputs' }, ...outputs.map((o) => html('li', {}, html('code', {}, o.name), ` ${o.shape} ${o.dtype}`)))
      : null,
    node.source ? html('h4', {}, 'Source') : null,
    node.source ? html('div', { class: 'wf-source-ref' }, sourceLine(node.source)) : null,
    node.source?.code ? html('pre', { class: 'wf-code' }, node.source.code) : null,
    kernel ? html('h4', {}, 'Kernel') : null,
    kernel ? row('backend', kernel.backend) : null,
    kernel?.python ? row('python', `${kernel.python.function} (${kernel.python.file}:${kernel.python.line})`) : null,
    kernel?.c_symbol ? row('C symbol', kernel.c_symbol) : null,
    kernel?.hints?.length ? html('div', { class: 'wf-hints-title' }, 'Step into it:') : null,
    kernel?.hints?.length ? html('ul', { class: 'wf-kernel-hints' }, ...kernel.hints.map((h) => html('li', {}, html('code', {}, h)))) : null
  );
}

/** The source line with every operand wrapped in a <mark> (offsets are clamped and overlaps skipped). */
export function markedCode(code: string, operands: ErrorInfo['operands']): HTMLElement {
  const pre = html('pre', { class: 'wf-code wf-error-code' });
  const spans = [...(operands ?? [])]
    .filter((o) => Number.isInteger(o.start) && Number.isInteger(o.end) && o.end > o.start)
    .sort((a, b) => a.start - b.start);
  let at = 0;
  for (const op of spans) {
    const start = Math.max(op.start, at);
    const end = Math.min(op.end, code.length);
    if (start >= end) continue;
    pre.appendChild(document.createTextNode(code.slice(at, start)));
    const mark = html('mark', { class: 'wf-operand', title: op.shape ? `${op.text}: ${op.shape}` : op.text }, code.slice(start, end));
    if (op.shape) mark.setAttribute('data-shape', op.shape);
    pre.appendChild(mark);
    at = end;
  }
  pre.appendChild(document.createTextNode(code.slice(at)));
  return pre;
}

function frameItem(frame: ErrorFrame): HTMLElement {
  const fn = frame.function && frame.function !== '<module>' ? `, in ${frame.function}` : '';
  return html(
    'li',
    { class: frame.engine ? 'wf-trace-frame wf-engine-frame' : 'wf-trace-frame', 'data-engine': frame.engine ? 'true' : 'false' },
    html('div', { class: 'wf-trace-where' }, frame.where + fn),
    frame.code ? html('pre', { class: 'wf-code wf-trace-code' }, frame.code) : null
  );
}

/** The learner's frames, then the engine's frames folded behind a "show engine frames" toggle. */
function framesList(frames: ErrorFrame[]): HTMLElement | null {
  const engine = frames.filter((f) => f.engine);
  if (!frames.length) return null;
  const learner = html('ol', { class: 'wf-trace-frames' }, ...frames.filter((f) => !f.engine).map(frameItem));
  if (!engine.length) return learner;
  const folded = html('ol', { class: 'wf-trace-frames wf-engine-frames', hidden: '' }, ...frames.map(frameItem));
  const label = (open: boolean): string => `${open ? 'hide' : 'show'} engine frames (${engine.length})`;
  const toggle = html('button', { class: 'wf-link wf-engine-toggle', type: 'button', 'aria-expanded': 'false' }, label(false));
  toggle.addEventListener('click', () => {
    const open = folded.hidden;
    folded.hidden = !open;
    learner.hidden = open; // the full list replaces the learner's one, in call order
    toggle.setAttribute('aria-expanded', open ? 'true' : 'false');
    toggle.textContent = label(open);
  });
  return html('div', { class: 'wf-traceback' }, learner, folded, toggle);
}

/** The error section, one of it: the learner's line (as IPython names it) with the operands marked, TensorFlow's
 * message, one explanation, the learner's frames (engine frames folded) and the failing op. */
export function errorPanel(error: ErrorInfo, onShowNode: (name: string) => void): HTMLElement {
  const show = error.node ? html('button', { class: 'wf-link', type: 'button' }, `show ${error.node}`) : null;
  if (show && error.node) {
    const name = error.node;
    show.addEventListener('click', () => onShowNode(name));
  }
  const operands = error.operands ?? [];
  const where = error.where ?? (error.source ? sourceLine(error.source) : '');
  const explanation = error.summary ?? error.explanation;
  return html(
    'div',
    { class: 'wf-error-body' },
    where ? html('div', { class: 'wf-error-where' }, where) : null,
    error.source?.code ? markedCode(error.source.code, operands) : null,
    html('div', { class: 'wf-error-head' }, html('strong', {}, error.type), ': ', error.message),
    explanation ? html('div', { class: 'wf-explanation' }, explanation) : null,
    error.frames ? framesList(error.frames) : null,
    error.node ? html('div', { class: 'wf-error-node' }, 'Failing op: ', html('code', {}, error.node), ' ', show) : null,
    operands.length // long expressions by their short name (`a`), as the explanation calls them
      ? html('ul', { class: 'wf-operands' }, ...operands.map((o) => html('li', {}, html('code', {}, o.name ?? o.text), o.shape ? ` shape ${o.shape}` : '')))
      : null
  );
}

/** How many ops the profile table lists before "show all". */
export const PROFILE_TOP = 10;

/** Per-op time table (the top ten; click the duration header to flip the order) and a folded timeline of bars. */
export class ProfilePanel {
  readonly element: HTMLElement;
  private descending = true;
  private showAll = false;
  private profile: ProfileInfo | null = null;

  constructor(private readonly onShowNode: (name: string) => void) {
    this.element = html('div', { class: 'wf-profile-body' });
  }

  update(profile: ProfileInfo): void {
    this.profile = profile;
    this.draw();
  }

  private draw(): void {
    const profile = this.profile as ProfileInfo;
    const ops = [...profile.ops].sort((a, b) => (this.descending ? b.duration_us - a.duration_us : a.duration_us - b.duration_us));
    const sortButton = html('button', { class: 'wf-sort', type: 'button', 'data-order': this.descending ? 'desc' : 'asc' },
      `duration ${this.descending ? '▼' : '▲'}`);
    sortButton.addEventListener('click', () => {
      this.descending = !this.descending;
      this.draw();
    });
    const total = profile.total_us || ops.reduce((s, o) => s + o.duration_us, 0) || 1;
    const shown = this.showAll ? ops : ops.slice(0, PROFILE_TOP);
    const table = html(
      'table',
      { class: 'wf-profile-table' },
      html('thead', {}, html('tr', {}, html('th', {}, 'op'), html('th', {}, 'type'), html('th', {}, 'backend'),
        html('th', {}, 'calls'), html('th', {}, sortButton), html('th', {}, '%'))),
      html('tbody', {}, ...shown.map((op) => this.tableRow(op, total)))
    );
    let more: HTMLElement | null = null;
    if (ops.length > PROFILE_TOP) {
      more = html('button', { class: 'wf-link wf-profile-more', type: 'button' },
        this.showAll ? `show the top ${PROFILE_TOP}` : `show all ${ops.length} ops`);
      more.addEventListener('click', () => {
        this.showAll = !this.showAll;
        this.draw();
      });
    }
    // the timeline is folded: a training graph's would be as long as the page (issue 31)
    const folded = html('details', { class: 'wf-timeline-box' }, html('summary', {}, `timeline (${profile.ops.length} ops)`),
      timeline(profile.ops, total));
    replaceChildren(this.element, html('div', { class: 'wf-profile-total' }, `total ${formatUs(profile.total_us)}`), table,
      more, folded);
  }

  private tableRow(op: ProfileOp, total: number): HTMLElement {
    const name = html('button', { class: 'wf-link', type: 'button' }, op.node);
    name.addEventListener('click', () => this.onShowNode(op.node));
    return html('tr', { 'data-op-name': op.node }, html('td', {}, name), html('td', {}, op.type), html('td', {}, op.backend ?? ''),
      html('td', {}, String(op.calls ?? 1)), html('td', { class: 'wf-num' }, formatUs(op.duration_us)),
      html('td', { class: 'wf-num' }, `${((100 * op.duration_us) / total).toFixed(1)}`));
  }
}

/** One bar per op at its start time, as long as its duration (rows in start order). */
export function timeline(ops: ProfileOp[], total: number): SVGSVGElement {
  const width = 600;
  const rowHeight = 14;
  const sorted = [...ops].sort((a, b) => a.start_us - b.start_us);
  const end = Math.max(total, ...sorted.map((o) => o.start_us + o.duration_us), 1);
  const chart = svg('svg', { class: 'wf-timeline', viewBox: `0 0 ${width} ${sorted.length * rowHeight + 4}`, width: '100%' });
  sorted.forEach((op, i) => {
    const x = (op.start_us / end) * width;
    const w = Math.max(1, (op.duration_us / end) * width);
    const bar = svg('rect', { class: `wf-bar wf-backend-${(op.backend ?? 'none').replace(/[^a-z0-9_-]/gi, '')}`, x, y: i * rowHeight + 2,
      width: w, height: rowHeight - 3, 'data-op-name': op.node },
      svg('title', {}, `${op.node} (${op.type}): ${formatUs(op.duration_us)} at ${formatUs(op.start_us)}`));
    chart.appendChild(bar);
    // Labels go right of the bar, or left of it when the bar ends near the right edge.
    const right = x + w + 3 <= width * 0.7;
    const label = svg('text', { class: 'wf-bar-label', x: right ? x + w + 3 : Math.max(x - 3, 2), y: i * rowHeight + 11,
      'text-anchor': right ? 'start' : 'end' }, op.node);
    chart.appendChild(label);
  });
  return chart;
}
