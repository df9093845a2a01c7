// Search: query, scope, alpha, filters, rerank; ranked rows with their evidence (matched spans marked), page
// numbers and metadata, and a pager over offset.

import { filtersFromPairs } from '../../clients/typescript/src/index.ts';
import type { SearchHit, SearchRequest, SearchResponse } from '../../clients/typescript/src/index.ts';
import { byId, el, markedText, pairLines } from './dom.ts';
import { say, sayError } from './messages.ts';
import type { Session } from './session.ts';

function hitElement(hit: SearchHit): HTMLLIElement {
  const { document_id, version_id } = hit.document_version;
  const metadata = hit.canonical_metadata as { source?: { filename?: string }; extracted?: { title?: string }; custom?: Record<string, unknown> };
  const title = metadata.extracted?.title ?? metadata.source?.filename ?? '';
  const evidence = hit.content_evidence.items.filter((item) => item.text);
  const fields = hit.metadata_evidence.items;
  return el(
    'li',
    { class: 'hit', 'data-document-id': document_id },
    el('h3', {}, el('span', { class: 'rank' }, `${hit.rank}. `), document_id, version_id !== null && version_id !== document_id ? el('span', { class: 'version' }, ` @ ${version_id}`) : null, title && title !== document_id ? el('span', { class: 'title' }, ` ${title}`) : null),
    el('p', { class: 'lanes' }, hit.retrieval_contributions.map((entry) => `${entry.lane} #${entry.rank}`).join(', ')),
    ...evidence.map((item) => el('blockquote', { class: 'evidence' }, item.page !== null && item.page !== undefined ? el('span', { class: 'page' }, `p. ${item.page} `) : null, ...markedText(item.text!, item.highlights))),
    ...fields.map((item) => {
      const value = typeof item.value === 'string' ? item.value : JSON.stringify(item.value);
      return el('p', { class: 'field' }, el('code', {}, (item.path ?? []).join('.')), ` (${item.match_kind ?? 'match'}): `, ...(typeof item.value === 'string' ? markedText(value, item.highlights) : [document.createTextNode(value)]));
    }),
    el('details', {}, el('summary', {}, 'Metadata'), el('pre', {}, JSON.stringify(hit.canonical_metadata, null, 2))),
  );
}

export function searchView(session: () => Session): { reset(): void } {
  const form = byId<HTMLFormElement>('search-form');
  const results = byId<HTMLOListElement>('search-results');
  const summary = byId('search-summary');
  const previous = byId<HTMLButtonElement>('search-prev');
  const next = byId<HTMLButtonElement>('search-next');
  let last: { request: SearchRequest; answer: SearchResponse } | null = null;

  function requestOf(offset: number): SearchRequest {
    const data = new FormData(form);
    const request: SearchRequest = {
      query: String(data.get('query') ?? ''),
      scope: String(data.get('scope') ?? 'content'),
      limit: Number(data.get('limit') || 10),
      offset,
      highlight: true,
      filters: filtersFromPairs(pairLines(String(data.get('filters') ?? ''))),
    };
    const alpha = String(data.get('alpha') ?? '');
    if (alpha !== '') request.alpha = Number(alpha);
    if (data.get('rerank')) request.rerank = true;
    if (data.get('include_deleted')) request.include_deleted = true;
    return request;
  }

  async function run(request: SearchRequest): Promise<void> {
    try {
      const answer = await session().client.search(request);
      last = { request, answer };
      results.replaceChildren(...answer.results.map(hitElement));
      results.start = answer.meta.offset + 1;
      const { meta } = answer;
      summary.textContent = answer.results.length === 0 ? 'Nothing found.' : `${meta.total}${meta.total_is_lower_bound ? '+' : ''} found; rows ${meta.offset + 1} to ${meta.offset + answer.results.length} (${meta.query_time_ms} ms).`;
      previous.disabled = meta.offset === 0;
      next.disabled = !meta.has_more;
      say(`Search answered: ${answer.results.length} rows.`);
    } catch (error) {
      sayError(error);
    }
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    try {
      void run(requestOf(0));
    } catch (error) {
      sayError(error);
    }
  });
  previous.addEventListener('click', () => last && void run({ ...last.request, offset: Math.max(0, last.answer.meta.offset - last.answer.meta.limit) }));
  next.addEventListener('click', () => last && void run({ ...last.request, offset: last.answer.meta.offset + last.answer.results.length }));
  return {
    reset() {
      last = null;
      results.replaceChildren();
      summary.textContent = '';
      previous.disabled = next.disabled = true;
    },
  };
}
