// Metadata as a two-column table (dotted path, value) instead of JSON; document data stays text (dom.ts).

import { el } from './dom.ts';
import { leaves, valueText } from './format.ts';

export function metadataRows(metadata: unknown, skip: readonly string[] = []): HTMLTableRowElement[] {
  return leaves(metadata)
    // A field the document does not have (null, an empty list) is left out rather than shown as "null".
    .filter(([, value]) => value !== null && !(Array.isArray(value) && value.length === 0))
    .filter(([path]) => !skip.some((prefix) => path === prefix || path.startsWith(`${prefix}.`)))
    .map(([path, value]) => el('tr', {}, el('th', { scope: 'row' }, path), el('td', {}, valueText(value))));
}

export function metadataTable(metadata: unknown, caption: string): HTMLTableElement {
  const rows = metadataRows(metadata, ['schema_version']);
  return el('table', { class: 'pairs' }, el('caption', { class: 'visually-hidden' }, caption), el('tbody', {}, ...(rows.length > 0 ? rows : [el('tr', {}, el('td', {}, 'none'))])));
}
