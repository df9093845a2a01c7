// The facets beside the search results: each path the search counted, its values with how many matched
// versions hold them, and the rest summed. A value that a filter can match exactly is a button that adds that
// filter and searches again; a date bucket (an ISO prefix) is no value a filter matches, so it is shown as text.

import type { FacetCounts, SearchRequest } from '../../clients/typescript/src/index.ts';
import { el } from './dom.ts';
import { valueText } from './format.ts';

const INTERVALS = ['day', 'month', 'year'];

type Facet = NonNullable<SearchRequest['facets']>[number];

/** The facets field: comma-separated paths, `path:day|month|year` for a date histogram (as GET /documents takes them). */
export function facetsOf(text: string): Facet[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((path) => {
      const at = path.lastIndexOf(':');
      const suffix = at < 0 ? '' : path.slice(at + 1);
      return INTERVALS.includes(suffix) ? { field: path.slice(0, at), interval: suffix as 'day' | 'month' | 'year' } : path;
    });
}

/** The sort choice `field:order` as POST /search takes it; empty: relevance. */
export function sortOf(text: string): SearchRequest['sort'] {
  const at = text.lastIndexOf(':');
  if (text === '' || at <= 0) return undefined;
  return [{ field: text.slice(0, at), order: text.slice(at + 1) === 'asc' ? 'asc' : 'desc' }];
}

/** Paths whose facet values are buckets, not values: those asked for with an interval. */
function bucketed(request: SearchRequest): Set<string> {
  return new Set((request.facets ?? []).flatMap((facet) => (typeof facet === 'string' ? [] : [facet.field])));
}

export function facetElements(facets: Record<string, FacetCounts> | undefined, request: SearchRequest, pick: (path: string, value: string | number | boolean) => void): HTMLElement[] {
  if (!facets) return [];
  const buckets = bucketed(request);
  return Object.entries(facets).map(([path, counts]) => {
    const bound = counts.is_lower_bound ? '+' : '';
    const items = counts.values.map(({ value, count }) => {
      const label = valueText(value);
      let shown: HTMLElement;
      if (buckets.has(path)) shown = el('span', { class: 'facet-value' }, label);
      else {
        shown = el('button', { type: 'button', class: 'link facet-value', title: `Filter by ${path} = ${label}` }, label);
        shown.addEventListener('click', () => pick(path, value));
      }
      return el('li', {}, shown, el('span', { class: 'count' }, `${count.toLocaleString('en')}${bound}`));
    });
    if (counts.other_count > 0) items.push(el('li', { class: 'muted' }, el('span', {}, 'other'), el('span', { class: 'count' }, `${counts.other_count.toLocaleString('en')}${bound}`)));
    if (items.length === 0) items.push(el('li', { class: 'muted' }, 'none'));
    return el('section', { class: 'facet card', 'data-facet': path }, el('h3', {}, path), el('ul', {}, ...items));
  });
}
