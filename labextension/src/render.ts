// The graph view: an SVG of the visible graph (ops, collapsed groups, frames of expanded scopes, edges)
// plus the HTML panels. update(doc) can be called again and again (update_display in a live training loop):
// elements are kept by id and only their attributes and texts change, so nothing flickers and the
// pan/zoom and collapse state survive.

import { compoundLayout, CompoundResult, FRAME_HEADER } from './compound';
import { formatUs, html, replaceChildren, setText, svg, update } from './dom';
import { Box, Point } from './layout';
import { errorPanel, groupTooltip, nodeDetails, nodeTooltip, ProfilePanel } from './panels';
import { PanZoom } from './panzoom';
import { GraphDoc, GraphNode, safeKind } from './schema';
import { buildScopeTree, defaultExpanded, homeScope, ScopeTree, visibleGraph, VisibleEdge, VisibleGraph, VisibleItem } from './scopes';

export const NODE_HEIGHT = 38;
const CHAR_WIDTH = 7; // rough width of one character of the 12px label font (layout runs before the text exists)
const MAX_LABEL = 48;
let viewCount = 0; // unique marker ids when several graphs share one page
/** Ops and collapsed scopes drawn by default (larger scopes start collapsed, as in TensorBoard). */
export const DEFAULT_COLLAPSE_LIMIT = 40;
/** The first fit never zooms out past this: the smallest label font (11 px, style/base.css) stays >= 11 px.
 * The Fit button may go further (then a learner asked for the overview). */
export const MIN_FIT_SCALE = 1;

export interface GraphViewOptions { collapseLimit?: number }

function shortName(name: string): string {
  const last = name.slice(name.lastIndexOf('/') + 1) || name;
  return last.length > MAX_LABEL ? `${last.slice(0, MAX_LABEL - 1)}…` : last;
}

function boxWidth(...texts: string[]): number {
  return Math.min(340, Math.max(64, Math.max(...texts.map((t) => t.length)) * CHAR_WIDTH + 24));
}

function itemSize(item: VisibleItem): { width: number; height: number } {
  if (item.kind === 'group') return { width: boxWidth(shortName(item.name), `${item.members?.length ?? 0} ops  +`), height: NODE_HEIGHT };
  const node = item.node as GraphNode;
  return { width: boxWidth(shortName(node.name), `${node.type} · 000.0 µs`), height: NODE_HEIGHT };
}

function edgeLabel(edge: VisibleEdge): string {
  if (edge.control) return '';
  const labels = [...new Set(edge.edges.filter((e) => !e.control).map((e) => `${e.shape ?? '?'} ${e.dtype ?? ''}`.trim()))];
  const n = edge.edges.filter((e) => !e.control).length;
  return n > 1 ? `${labels[0]}${labels.length > 1 ? ' …' : ''} ×${n}` : labels[0] ?? '';
}

function pathFor(from: Box, to: Box, bends: Point[]): Point[] {
  return [{ x: from.x + from.width / 2, y: from.y + from.height }, ...bends, { x: to.x + to.width / 2, y: to.y }];
}

export class GraphView {
  readonly root: HTMLDivElement;
  private readonly surface: SVGSVGElement;
  private readonly viewport: SVGGElement;
  private readonly frameLayer: SVGGElement;
  private readonly edgeLayer: SVGGElement;
  private readonly nodeLayer: SVGGElement;
  private readonly title: HTMLDivElement;
  private readonly badge: HTMLSpanElement;
  private readonly tooltip: HTMLDivElement;
  private readonly details: HTMLDivElement;
  private readonly errorBox: HTMLDivElement;
  private readonly profileBox: HTMLDivElement;
  private readonly profile: ProfilePanel;
  private readonly panzoom: PanZoom;
  private readonly markerId: string;
  private readonly collapseLimit: number;

  private doc: GraphDoc | null = null;
  private tree: ScopeTree = new Map();
  private expanded: Set<string> | null = null;
  private readonly knownScopes = new Set<string>();
  private visible: VisibleGraph | null = null;
  private layout: CompoundResult | null = null;
  private layoutKey = '';
  private selected: string | null = null;
  private fitted = false;
  private readonly itemEls = new Map<string, SVGGElement>();
  private readonly frameEls = new Map<string, SVGGElement>();
  private readonly edgeEls = new Map<string, SVGGElement>();

  constructor(host: HTMLElement, options: GraphViewOptions = {}) {
    this.collapseLimit = options.collapseLimit ?? DEFAULT_COLLAPSE_LIMIT;
    this.markerId = `wf-arrow-${++viewCount}`;
    this.title = html('div', { class: 'wf-title' });
    this.badge = html('span', { class: 'wf-live-badge' }, 'live');
    const search = html('input', { class: 'wf-search', type: 'search', placeholder: 'find op…', 'aria-label': 'Find an op by name' });
    search.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') this.find(search.value);
    });
    const toolbar = html('div', { class: 'wf-toolbar' }, this.title, this.badge, search,
      this.button('−', () => this.zoomBy(1 / 1.25), 'Zoom out (or Ctrl/⌘ + wheel)'),
      this.button('+', () => this.zoomBy(1.25), 'Zoom in (or Ctrl/⌘ + wheel)'),
      this.button('Fit', () => this.fit()), this.button('Expand all', () => this.setAll(true)),
      this.button('Collapse all', () => this.setAll(false)));
    this.surface = svg('svg', { class: 'wf-graph-svg', width: '100%', height: 400, tabindex: 0 });
    const marker = svg('marker', { id: this.markerId, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7,
      orient: 'auto-start-reverse' }, svg('path', { d: 'M0,0 L10,5 L0,10 z', class: 'wf-arrow' }));
    this.viewport = svg('g', { class: 'wf-viewport' });
    this.frameLayer = svg('g', { class: 'wf-frames' });
    this.edgeLayer = svg('g', { class: 'wf-edges' });
    this.nodeLayer = svg('g', { class: 'wf-nodes' });
    this.viewport.append(this.frameLayer, this.edgeLayer, this.nodeLayer);
    this.surface.append(svg('defs', {}, marker), this.viewport);
    this.tooltip = html('div', { class: 'wf-tooltip', hidden: '' });
    this.details = html('div', { class: 'wf-details', hidden: '' });
    this.errorBox = html('div', { class: 'wf-error-slot', hidden: '' }); // a .wf-error-panel only while it shows an error
    this.profileBox = html('div', { class: 'wf-profile', hidden: '' });
    this.profile = new ProfilePanel((name) => this.select(name, true));
    this.profileBox.append(html('h3', {}, 'Profile'), this.profile.element);
    const stage = html('div', { class: 'wf-stage' }, this.surface, this.tooltip, this.details);
    this.root = html('div', { class: 'wf-graph' }, toolbar, this.errorBox, stage, this.profileBox);
    host.appendChild(this.root);
    this.panzoom = new PanZoom(this.surface, this.viewport);
    this.surface.addEventListener('click', (event) => this.onClick(event));
    this.surface.addEventListener('mouseover', (event) => this.onHover(event));
    this.surface.addEventListener('mouseleave', () => (this.tooltip.hidden = true));
  }

  /** Render `doc`; called again with a new document, updates the existing elements in place. */
  update(doc: GraphDoc): void {
    this.doc = doc;
    this.tree = buildScopeTree(doc.nodes ?? [], this.collapseLimit);
    const errorNode = doc.error?.node ? doc.nodes.find((n) => n.name === doc.error?.node) : undefined;
    const defaults = defaultExpanded(this.tree, this.collapseLimit, errorNode ? homeScope(this.tree, errorNode) : null);
    if (this.expanded === null) this.expanded = defaults;
    else for (const scope of this.tree.keys()) if (!this.knownScopes.has(scope) && defaults.has(scope)) this.expanded.add(scope);
    for (const scope of this.tree.keys()) this.knownScopes.add(scope);
    this.redraw();
  }

  /** Expand or collapse one name scope (what a click on a group does). */
  toggle(scope: string): void {
    if (!this.expanded) return;
    if (this.expanded.has(scope)) this.expanded.delete(scope);
    else this.expanded.add(scope);
    this.redraw();
  }

  isExpanded(scope: string): boolean {
    return this.expanded?.has(scope) ?? false;
  }

  /** Show the details of an op; with `reveal`, open the scopes around it first. */
  select(name: string | null, reveal = false): void {
    this.selected = name;
    const node = name === null ? undefined : this.doc?.nodes.find((n) => n.name === name);
    if (node && reveal && this.expanded) {
      const parts = homeScope(this.tree, node).split('/');
      parts.forEach((_, i) => parts[0] && this.expanded?.add(parts.slice(0, i + 1).join('/')));
      this.redraw();
    }
    this.drawDetails();
    for (const [id, el] of this.itemEls) el.classList.toggle('wf-selected', node !== undefined && id === this.visible?.owner.get(node.name));
  }

  fit(readable = false): void {
    if (!this.layout) return;
    const available = this.root.clientWidth || 800;
    const { width, height } = this.layout;
    // never below MIN_FIT_SCALE: a label stays >= 11 px at the default zoom; a larger graph is panned, not shrunk
    const k = Math.max(readable ? MIN_FIT_SCALE : 0.2, Math.min(1, (available - 32) / Math.max(width, 1), 560 / Math.max(height, 1)));
    // wider than the view at a readable scale: show its middle (the left edge of a wide layer is often empty)
    const x = width * k > available - 32 ? (available - width * k) / 2 : Math.max(16, (available - width * k) / 2);
    this.panzoom.set(x, 16, k);
    this.surface.setAttribute('height', String(Math.round(Math.min(600, Math.max(160, height * k + 40)))));
  }

  dispose(): void {
    this.panzoom.dispose();
    this.root.remove();
  }

  /** Search by op name (the toolbar's field, Enter): the first op whose name contains `text` (case-insensitive;
   * an exact name first) is selected, its scopes opened, and the view centred on it. Returns its name or null. */
  find(text: string): string | null {
    const query = text.trim().toLowerCase();
    const nodes = this.doc?.nodes ?? [];
    if (!query) return null;
    const found = nodes.find((n) => n.name.toLowerCase() === query) ?? nodes.find((n) => n.name.toLowerCase().includes(query));
    if (!found) return null;
    this.select(found.name, true);
    const box = this.layout?.boxes.get(this.visible?.owner.get(found.name) ?? '');
    if (box) {
      const rect = this.surface.getBoundingClientRect();
      const { k } = this.panzoom.transform;
      this.panzoom.set((rect.width || 800) / 2 - (box.x + box.width / 2) * k, (rect.height || 400) / 2 - (box.y + box.height / 2) * k, k);
    }
    return found.name;
  }

  /** Zoom around the middle of the visible area (the toolbar's − and + buttons). */
  zoomBy(factor: number): void {
    const rect = this.surface.getBoundingClientRect();
    this.panzoom.zoomAt(factor, (rect.width || 800) / 2, (rect.height || 400) / 2);
  }

  private button(label: string, onClick: () => void, title?: string): HTMLButtonElement {
    const b = html('button', { class: 'wf-button', type: 'button', ...(title ? { title } : {}) }, label);
    b.addEventListener('click', onClick);
    return b;
  }

  private setAll(open: boolean): void {
    this.expanded = open ? new Set([...this.tree.keys()].filter((s) => s !== '')) : new Set();
    this.redraw();
    this.fit(true);
  }

  private redraw(): void {
    const doc = this.doc as GraphDoc;
    const visible = visibleGraph(doc, this.tree, this.expanded as Set<string>);
    this.visible = visible;
    const sizes = new Map(visible.items.map((item) => [item.id, itemSize(item)]));
    // Only a change of what is visible moves boxes: a live update of timings keeps the layout.
    const key = JSON.stringify([visible.items.map((i) => [i.id, i.container, sizes.get(i.id)?.width]),
      visible.frames.map((f) => [f.id, f.container]), visible.edges.map((e) => e.key)]);
    if (key !== this.layoutKey) {
      this.layout = compoundLayout(visible.items.map((i) => ({ id: i.id, container: i.container, ...(sizes.get(i.id) as { width: number; height: number }) })),
        visible.frames, visible.edges);
      this.layoutKey = key;
    }
    this.drawFrames();
    this.drawItems();
    this.drawEdges();
    this.drawPanels();
    if (!this.fitted) {
      this.fitted = true;
      this.fit(true);
    }
  }

  /** Add, update and remove children of `layer` so they match `wanted` (id → create/update functions). */
  private sync<T>(cache: Map<string, SVGGElement>, layer: SVGGElement, wanted: Array<[string, T]>,
    create: () => SVGGElement, fill: (el: SVGGElement, value: T) => void): void {
    const keep = new Set(wanted.map(([id]) => id));
    for (const [id, el] of cache) if (!keep.has(id)) {
      el.remove();
      cache.delete(id);
    }
    for (const [id, value] of wanted) {
      let el = cache.get(id);
      if (!el) {
        el = create();
        cache.set(id, el);
        layer.appendChild(el);
      }
      fill(el, value);
    }
  }

  private drawFrames(): void {
    const layout = this.layout as CompoundResult;
    this.sync(this.frameEls, this.frameLayer, (this.visible as VisibleGraph).frames.map((f) => [f.id, f.scope]),
      () => svg('g', { class: 'wf-frame' }, svg('rect', { class: 'wf-frame-box', rx: 6 }),
        svg('rect', { class: 'wf-frame-header', rx: 6, height: FRAME_HEADER }), svg('text', { class: 'wf-frame-label', x: 10, y: 16 })),
      (el, scope) => {
        const box = layout.boxes.get(`g:${scope}`) as Box;
        update(el, { 'data-scope': scope, 'data-id': `g:${scope}`, transform: `translate(${box.x},${box.y})` });
        update(el.children[0], { width: box.width, height: box.height });
        update(el.children[1], { width: box.width });
        setText(el.children[2], `▾ ${shortName(scope)}`);
      });
  }

  private drawItems(): void {
    const doc = this.doc as GraphDoc;
    const layout = this.layout as CompoundResult;
    const visible = this.visible as VisibleGraph;
    const errorOwner = doc.error?.node ? visible.owner.get(doc.error.node) : undefined;
    const selectedOwner = this.selected ? visible.owner.get(this.selected) : undefined;
    this.sync(this.itemEls, this.nodeLayer, visible.items.map((i) => [i.id, i]),
      () => svg('g', {}, svg('rect', { class: 'wf-box', rx: 4 }), svg('text', { class: 'wf-label' }), svg('text', { class: 'wf-sublabel' })),
      (el, item) => {
        const box = layout.boxes.get(item.id) as Box;
        const [rect, label, sub] = [el.children[0], el.children[1], el.children[2]];
        const flags = [item.id === errorOwner ? 'wf-error' : '', item.id === selectedOwner ? 'wf-selected' : ''];
        if (item.kind === 'group') {
          const gradient = /^gradients(_\d+)?(\/|$)/.test(item.name);
          update(el, { class: ['wf-group', 'wf-collapsed', gradient ? 'wf-gradient-group' : '', ...flags].filter(Boolean).join(' '),
            'data-scope': item.name, 'data-id': item.id, 'data-op-name': null, 'data-op-type': null });
          setText(label, shortName(item.name));
          setText(sub, `${item.members?.length ?? 0} ops  +`);
        } else {
          const node = item.node as GraphNode;
          update(el, { class: ['wf-node', `wf-kind-${safeKind(node.kind)}`, node.executed ? 'wf-executed' : '', ...flags]
            .filter(Boolean).join(' '), 'data-op-name': node.name, 'data-op-type': node.type, 'data-id': item.id,
            'data-executed': node.executed ? 'true' : null, 'data-scope': null });
          setText(label, shortName(node.name));
          const time = formatUs(node.timing_us);
          setText(sub, time ? `${node.type} · ${time}` : node.type);
        }
        update(el, { 'data-error': item.id === errorOwner ? 'true' : null, transform: `translate(${box.x},${box.y})` });
        update(rect, { width: box.width, height: box.height });
        update(label, { x: box.width / 2, y: 16 });
        update(sub, { x: box.width / 2, y: 31 });
      });
  }

  private drawEdges(): void {
    const layout = this.layout as CompoundResult;
    this.sync(this.edgeEls, this.edgeLayer, (this.visible as VisibleGraph).edges.map((e) => [e.key, e]),
      () => svg('g', {}, svg('path', { class: 'wf-edge-path', 'marker-end': `url(#${this.markerId})` }), svg('text', { class: 'wf-edge-label' })),
      (el, edge) => {
        const points = pathFor(layout.boxes.get(edge.source) as Box, layout.boxes.get(edge.target) as Box, layout.routes.get(edge.key) ?? []);
        const first = edge.edges[0];
        update(el, { class: edge.control ? 'wf-edge wf-control' : 'wf-edge', 'data-source': edge.source, 'data-target': edge.target,
          'data-tensor': first?.tensor ?? null, 'data-count': edge.edges.length });
        update(el.children[0], { d: points.map((p, i) => `${i ? 'L' : 'M'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' '),
          'stroke-dasharray': edge.control ? '4 3' : null });
        // The label sits on the middle segment, just right of it.
        const m = Math.floor((points.length - 1) / 2);
        const [a, b] = [points[m], points[m + 1]];
        const labelText = edgeLabel(edge);
        update(el.children[1], { x: ((a.x + b.x) / 2 + 4).toFixed(1), y: ((a.y + b.y) / 2 + 3).toFixed(1), hidden: labelText ? null : '' });
        setText(el.children[1], labelText);
      });
  }

  private drawPanels(): void {
    const doc = this.doc as GraphDoc;
    setText(this.title, doc.title ?? 'webflow graph');
    this.badge.hidden = !doc.live;
    this.root.classList.toggle('wf-live', Boolean(doc.live));
    this.errorBox.hidden = !doc.error;
    // only a shown panel carries the class: a notebook's error panels are counted by it (lessons, tests)
    this.errorBox.className = doc.error ? 'wf-error-panel' : 'wf-error-slot';
    if (doc.error) replaceChildren(this.errorBox, errorPanel(doc.error, (name) => this.select(name, true)));
    else replaceChildren(this.errorBox);
    this.profileBox.hidden = !doc.profile;
    if (doc.profile) this.profile.update(doc.profile);
    this.drawDetails();
  }

  private drawDetails(): void {
    const node = this.selected === null ? undefined : this.doc?.nodes.find((n) => n.name === this.selected);
    this.details.hidden = !node;
    if (node) replaceChildren(this.details, nodeDetails(node, () => this.select(null)));
    else replaceChildren(this.details);
  }

  private itemAt(event: Event): VisibleItem | { frame: string } | null {
    const el = (event.target as Element | null)?.closest?.('[data-id]');
    if (!el || !this.root.contains(el)) return null;
    const id = el.getAttribute('data-id') as string;
    if (el.classList.contains('wf-frame')) {
      // Only the header of an expanded scope collapses it; its background is for panning.
      const onHeader = (event.target as Element).matches('.wf-frame-header, .wf-frame-label');
      return onHeader || event.type !== 'click' ? { frame: el.getAttribute('data-scope') as string } : null;
    }
    return this.visible?.items.find((i) => i.id === id) ?? null;
  }

  private onClick(event: MouseEvent): void {
    if (this.panzoom.moved) {
      this.panzoom.moved = false;
      return;
    }
    const hit = this.itemAt(event);
    if (!hit) return;
    if ('frame' in hit) this.toggle(hit.frame);
    else if (hit.kind === 'group') this.toggle(hit.name);
    else this.select(hit.name);
  }

  private onHover(event: MouseEvent): void {
    const hit = this.itemAt(event);
    if (!hit) {
      this.tooltip.hidden = true;
      return;
    }
    const content = 'frame' in hit
      ? groupTooltip(hit.frame, this.tree.get(hit.frame)?.total ?? 0, false)
      : hit.kind === 'group' ? groupTooltip(hit.name, hit.members?.length ?? 0, true) : nodeTooltip(hit.node as GraphNode);
    replaceChildren(this.tooltip, content);
    const stage = this.surface.getBoundingClientRect();
    this.tooltip.style.left = `${Math.max(0, event.clientX - stage.left + 14)}px`;
    this.tooltip.style.top = `${Math.max(0, event.clientY - stage.top + 14)}px`;
    this.tooltip.hidden = false;
  }
}
