// What `hds search --facet` and `--sort` take on the command line, as POST /search takes them: a facet is
// `path` or `path:day|month|year` (a date histogram), a sort key `field:asc` or `field:desc`.

import type { SearchRequest, SearchResponse, SortKey } from '../../clients/typescript/src/index.ts';
import { UsageError } from './connection.ts';
import type { Paint } from './render.ts';

const INTERVALS = ['day', 'month', 'year'];
const ORDERS = ['asc', 'desc'];

type Facet = NonNullable<SearchRequest['facets']>[number];

/** A repeatable --facet: the suffix after the last colon is an interval only when it names one. */
export function facetOption(text: string, previous: Facet[] = []): Facet[] {
  const at = text.lastIndexOf(':');
  const suffix = at < 0 ? '' : text.slice(at + 1);
  return [...previous, INTERVALS.includes(suffix) ? { field: text.slice(0, at), interval: suffix as 'day' | 'month' | 'year' } : text];
}

/** A repeatable --sort field:order. */
export function sortOption(text: string, previous: SortKey[] = []): SortKey[] {
  const at = text.lastIndexOf(':');
  const order = at < 0 ? '' : text.slice(at + 1);
  if (at <= 0 || !ORDERS.includes(order)) throw new UsageError(`--sort takes field:asc or field:desc, not ${JSON.stringify(text)}`);
  return [...previous, { field: text.slice(0, at), order: order as 'asc' | 'desc' }];
}

/** The facets of an answer under its results: each path, its values with their counts, and the rest. */
export function renderFacets(facets: SearchResponse['meta']['facets'], paint: Paint): string {
  if (!facets) return '';
  const lines: string[] = [];
  for (const [path, counts] of Object.entries(facets)) {
    const values = counts.values.map((entry) => `${String(entry.value)} ${paint('dim', `(${entry.count}${counts.is_lower_bound ? '+' : ''})`)}`);
    if (counts.other_count > 0) values.push(paint('dim', `other (${counts.other_count})`));
    lines.push(`${paint('bold', path)}: ${values.length > 0 ? values.join(', ') : paint('dim', 'none')}`);
  }
  return `\n${lines.join('\n')}\n`;
}
