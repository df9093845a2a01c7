// Small DOM helpers. Document data (text, metadata, ids) only ever reaches the page as text nodes: it is data to
// show, never markup (SPEC.md's untrusted data rule).

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing from the page`);
  return element as T;
}

type Child = Node | string | null | undefined | false;

/** An element with attributes (strings; `true` for a bare attribute) and children (strings become text nodes). */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Record<string, string | boolean> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false) continue;
    element.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) element.append(child);
  return element;
}

/** `key=value` lines (blank lines ignored); a line without `=` is refused with its text. */
export function pairLines(text: string): [string, string][] {
  const pairs: [string, string][] = [];
  for (const line of text.split('\n').map((entry) => entry.trim()).filter(Boolean)) {
    const at = line.indexOf('=');
    if (at <= 0) throw new Error(`"${line}" is not key=value`);
    pairs.push([line.slice(0, at).trim(), line.slice(at + 1).trim()]);
  }
  return pairs;
}

/** Text with each [start, end) span (UTF-16 offsets, sorted, not overlapping) wrapped in <mark>. */
export function markedText(text: string, spans: readonly { start: number; end: number }[] | undefined): Node[] {
  const nodes: Node[] = [];
  let at = 0;
  for (const { start, end } of spans ?? []) {
    if (start < at || end <= start || end > text.length) continue;
    if (start > at) nodes.push(document.createTextNode(text.slice(at, start)));
    nodes.push(el('mark', {}, text.slice(start, end)));
    at = end;
  }
  if (at < text.length) nodes.push(document.createTextNode(text.slice(at)));
  return nodes;
}
