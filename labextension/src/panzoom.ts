// Pan (drag the background) and zoom (Ctrl/⌘ + wheel, or the wheel once the graph has focus, around the pointer)
// of one SVG <g> inside an <svg>. A plain wheel over an unfocused graph scrolls the notebook, as a learner expects.
// The transform lives here, so re-rendering the graph keeps where the user was looking.

export interface ViewTransform { x: number; y: number; k: number }

export class PanZoom {
  readonly transform: ViewTransform = { x: 16, y: 16, k: 1 };
  /** True right after a drag, so the click that ends it does not also select a node. */
  moved = false;
  private drag: { id: number; x: number; y: number; startX: number; startY: number } | null = null;
  private readonly listeners: Array<[string, EventListener]> = [];

  constructor(private readonly surface: SVGSVGElement, private readonly target: SVGGElement) {
    this.on('wheel', (event) => this.onWheel(event as WheelEvent));
    this.on('pointerdown', (event) => this.onDown(event as PointerEvent));
    this.on('pointermove', (event) => this.onMove(event as PointerEvent));
    this.on('pointerup', (event) => this.onUp(event as PointerEvent));
    this.on('pointercancel', (event) => this.onUp(event as PointerEvent));
    this.apply();
  }

  set(x: number, y: number, k: number): void {
    Object.assign(this.transform, { x, y, k: Math.min(4, Math.max(0.05, k)) });
    this.apply();
  }

  /** Zoom by `factor` keeping the point (px, py) of the svg fixed on screen. */
  zoomAt(factor: number, px: number, py: number): void {
    const { x, y, k } = this.transform;
    const next = Math.min(4, Math.max(0.05, k * factor));
    this.set(px - ((px - x) * next) / k, py - ((py - y) * next) / k, next);
  }

  dispose(): void {
    for (const [type, fn] of this.listeners) this.surface.removeEventListener(type, fn);
  }

  private on(type: string, fn: EventListener): void {
    this.surface.addEventListener(type, fn, { passive: false } as AddEventListenerOptions);
    this.listeners.push([type, fn]);
  }

  private apply(): void {
    const { x, y, k } = this.transform;
    this.target.setAttribute('transform', `translate(${x.toFixed(1)},${y.toFixed(1)}) scale(${k.toFixed(4)})`);
  }

  private onWheel(event: WheelEvent): void {
    const focused = typeof document !== 'undefined' && document.activeElement === this.surface;
    if (!event.ctrlKey && !event.metaKey && !focused) return; // the page scrolls
    event.preventDefault();
    const rect = this.surface.getBoundingClientRect();
    this.zoomAt(Math.exp(-event.deltaY * 0.0015), event.clientX - rect.left, event.clientY - rect.top);
  }

  private onDown(event: PointerEvent): void {
    if (event.button !== 0) return;
    this.surface.focus?.(); // a click on the graph gives it the wheel
    this.moved = false;
    this.drag = { id: event.pointerId, x: event.clientX, y: event.clientY, startX: this.transform.x, startY: this.transform.y };
  }

  private onMove(event: PointerEvent): void {
    if (!this.drag || event.pointerId !== this.drag.id) return;
    const dx = event.clientX - this.drag.x;
    const dy = event.clientY - this.drag.y;
    if (!this.moved && Math.hypot(dx, dy) < 4) return; // a click, not a drag
    if (!this.moved) this.surface.setPointerCapture?.(event.pointerId);
    this.moved = true;
    this.surface.classList.add('wf-panning');
    this.set(this.drag.startX + dx, this.drag.startY + dy, this.transform.k);
  }

  private onUp(event: PointerEvent): void {
    if (!this.drag || event.pointerId !== this.drag.id) return;
    this.drag = null;
    this.surface.classList.remove('wf-panning');
    if (this.surface.hasPointerCapture?.(event.pointerId)) this.surface.releasePointerCapture(event.pointerId);
  }
}
