// Words and values as a person reads them: counts with their plural, dates in the reader's locale, and nested
// metadata as rows of a table (a dotted path and its value) instead of JSON.

/** "1 chunk", "2 chunks"; `many` for irregular plurals. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en')} ${count === 1 ? one : many}`;
}

/** An ISO timestamp as local date and time (the ISO text when it does not parse). */
export function when(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A leaf value as text: strings as they are, lists joined, anything else as JSON. */
export function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null)) return value.map((item) => String(item)).join(', ');
  return JSON.stringify(value);
}

/** Every leaf of a nested object as [dotted path, value]; a list of plain values is one leaf. */
export function leaves(value: unknown, prefix = ''): [string, unknown][] {
  if (typeof value !== 'object' || value === null || (Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null))) return prefix ? [[prefix, value]] : [];
  const rows: [string, unknown][] = [];
  for (const [key, inner] of Object.entries(value)) rows.push(...leaves(inner, prefix ? `${prefix}.${key}` : key));
  return rows;
}
