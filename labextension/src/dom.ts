// The only way this renderer creates DOM: elements plus attributes plus text nodes.
// There is deliberately no helper that parses markup (no HTML strings at all): op names, attributes, messages and
// source code are user data and must stay text.

const SVG_NS = 'http://www.w3.org/2000/svg';

type Attrs = Record<string, string | number | null | undefined>;

function setAttrs(el: Element, attrs: Attrs): void {
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined) el.removeAttribute(key);
    else el.setAttribute(key, String(value));
  }
}

/** An HTML element with attributes and children (strings become text nodes). */
export function html<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Array<Node | string | null | undefined>
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, ...children);
  return el;
}

/** An SVG element with attributes and children. */
export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Array<Node | string | null | undefined>
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag) as SVGElementTagNameMap[K];
  setAttrs(el, attrs);
  append(el, ...children);
  return el;
}

export function append(parent: Node, ...children: Array<Node | string | null | undefined>): void {
  for (const child of children) {
    if (child === null || child === undefined) continue;
    parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

/** Replace all children of `el` (used for small panels; the graph itself is updated in place). */
export function replaceChildren(el: Element, ...children: Array<Node | string | null | undefined>): void {
  while (el.firstChild) el.removeChild(el.firstChild);
  append(el, ...children);
}

/** Set text only when it changed (keeps live updates cheap and avoids needless DOM mutations). */
export function setText(el: Element, text: string): void {
  if (el.textContent !== text) el.textContent = text;
}

export function update(el: Element, attrs: Attrs): void {
  for (const [key, value] of Object.entries(attrs)) {
    const next = value === null || value === undefined ? null : String(value);
    if (el.getAttribute(key) !== next) {
      if (next === null) el.removeAttribute(key);
      else el.setAttribute(key, next);
    }
  }
}

/** Format microseconds for people: 850 µs, 12.5 ms, 3.20 s. */
export function formatUs(us: number | null | undefined): string {
  if (us === null || us === undefined || !Number.isFinite(us)) return '';
  if (us < 1000) return `${us < 10 ? us.toFixed(2) : us.toFixed(1)} µs`;
  if (us < 1e6) return `${(us / 1000).toFixed(us < 1e4 ? 2 : 1)} ms`;
  return `${(us / 1e6).toFixed(2)} s`;
}
