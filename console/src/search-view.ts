// Search: query, scope, alpha, filters, rerank, a sort choice; facets beside the results (facets-view.ts); ranked hit cards whose chunks are cut to the passages around the
// matched words (marked), with their page or sheet (places.ts), the lanes that found them, matched metadata fields and the whole
// metadata as a table; a pager over offset. "Similar" on a card lists the documents most like it (POST /similar) in
// the same cards, without a pager. A failed search clears the cards of the search before it.

import { filtersFromPairs } from '../../clients/typescript/src/index.ts';
import type { SearchClient, SearchHit, SearchRequest, SearchResponse, SimilarRequest } from '../../clients/typescript/src/index.ts';
import { byId, el, markedText, pairLines } from './dom.ts';
import { plural, valueText } from './format.ts';
import { clearMessage, sayError } from './messages.ts';
import { metadataTable } from './metadata-table.ts';
import { passages } from './passages.ts';
import { isWorkbook, locationLabels, placeName, placeWithRows } from './places.ts';
import type { PageLabels } from './places.ts';
import type { Session } from './session.ts';
import { facetElements, facetsOf, sortOf } from './facets-view.ts';

/** Opens a document's view; `labels` are the page labels a hit already told (a workbook's sheet names). */
export type OpenDocument = (documentId: string, labels?: PageLabels) => void;

function evidenceElement(item: SearchHit['content_evidence']['items'][number], labels: PageLabels, workbook: boolean): HTMLElement {
  const place = placeWithRows(placeName(item.page, labels, workbook), item.rows);
  const label = place ? el('span', { class: 'where' }, place) : null;
  return el(
    'div',
    { class: 'evidence' },
    label,
    ...passages(item.text!, item.highlights).map((passage) => el('p', { class: 'passage' }, passage.cutBefore ? '… ' : '', ...markedText(passage.text, passage.spans), passage.cutAfter ? ' …' : '')),
  );
}

/** Lists the documents most like a hit's version. */
type ShowSimilar = (hit: SearchHit) => void;

function hitElement(hit: SearchHit, open: OpenDocument, similar: ShowSimilar): HTMLLIElement {
  const { document_id, version_id } = hit.document_version;
  const metadata = hit.canonical_metadata as { source?: { filename?: string }; extracted?: { title?: string } };
  const title = metadata.extracted?.title ?? metadata.source?.filename ?? '';
  const evidence = hit.content_evidence.items.filter((item) => item.text);
  const fields = hit.metadata_evidence.items;
  const link = el('button', { type: 'button', class: 'link document-link' }, document_id);
  const labels = locationLabels(hit.canonical_metadata);
  const workbook = isWorkbook(hit.canonical_metadata);
  link.addEventListener('click', () => open(document_id, labels));
  const like = el('button', { type: 'button', class: 'link similar', 'aria-label': `Documents similar to ${document_id}` }, 'Similar');
  like.addEventListener('click', () => similar(hit));
  const more = hit.content_evidence.total - evidence.length;
  return el(
    'li',
    { class: 'hit card', 'data-document-id': document_id },
    el(
      'header',
      {},
      el('span', { class: 'rank' }, String(hit.rank)),
      el('h3', {}, link, version_id !== null && version_id !== document_id ? el('span', { class: 'version' }, `@ ${version_id}`) : null),
      el('span', { class: 'lanes' }, ...hit.retrieval_contributions.map((entry) => el('span', { class: `lane lane-${entry.lane}` }, `${entry.lane} #${entry.rank}`))),
      like,
    ),
    title && title !== document_id ? el('p', { class: 'title' }, title) : null,
    ...evidence.map((item) => evidenceElement(item, labels, workbook)),
    more > 0 ? el('p', { class: 'muted' }, `and ${plural(more, 'more matching chunk')}`) : null,
    ...fields.map((item) => {
      const value = valueText(item.value);
      return el('p', { class: 'field-match' }, el('code', {}, (item.path ?? []).join('.')), ' ', el('span', { class: 'muted' }, item.match_kind ?? 'match'), ' ', ...(typeof item.value === 'string' ? markedText(value, item.highlights) : [document.createTextNode(value)]));
    }),
    el('details', {}, el('summary', {}, 'Metadata'), metadataTable(hit.canonical_metadata, `Metadata of ${document_id}`)),
  );
}

export function searchView(session: () => Session, open: OpenDocument): { reset(): void } {
  const form = byId<HTMLFormElement>('search-form');
  const results = byId<HTMLOListElement>('search-results');
  const summary = byId('search-summary');
  const facetsPanel = byId('search-facets');
  const filtersField = byId<HTMLTextAreaElement>('search-filters');
  const previous = byId<HTMLButtonElement>('search-prev');
  const next = byId<HTMLButtonElement>('search-next');
  let last: { request: SearchRequest; answer: SearchResponse } | null = null;
  /** Bumped by each search, so an answer that arrives after a later search started is dropped. */
  let generation = 0;

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
    const facets = facetsOf(String(data.get('facets') ?? ''));
    if (facets.length > 0) request.facets = facets;
    const sort = sortOf(String(data.get('sort') ?? ''));
    if (sort) request.sort = sort;
    return request;
  }

  function clear(): void {
    generation++;
    results.removeAttribute('aria-busy');
    last = null;
    results.replaceChildren();
    facetsPanel.replaceChildren();
    summary.textContent = '';
    previous.disabled = next.disabled = true;
  }

  function showSimilar(hit: SearchHit): void {
    const { document_id, version_id } = hit.document_version;
    const request: SimilarRequest = { document_id, limit: Number(new FormData(form).get('limit') || 10) };
    if (version_id !== null) request.version_id = version_id;
    void show(null, (client) => client.similar(request), `like ${document_id}`);
  }

  /** Shows an answer's cards: a search's (`request`, paged) or the documents like one (no pager). */
  async function show(request: SearchRequest | null, ask: (client: SearchClient) => Promise<SearchResponse>, what = 'found'): Promise<void> {
    const mine = ++generation;
    summary.textContent = 'Searching…';
    results.setAttribute('aria-busy', 'true');
    try {
      const answer = await session().read(ask);
      if (mine !== generation) return;
      results.removeAttribute('aria-busy');
      last = request ? { request, answer } : null;
      results.replaceChildren(...answer.results.map((hit) => hitElement(hit, open, showSimilar)));
      results.start = answer.meta.offset + 1;
      // The documents like one come without facets: none were asked for.
      facetsPanel.replaceChildren(...(request ? facetElements(answer.meta.facets, request, pick) : []));
      const { meta } = answer;
      summary.textContent = answer.results.length === 0 ? `Nothing ${what}.` : `${meta.total.toLocaleString('en')}${meta.total_is_lower_bound ? '+' : ''} ${what}; ${plural(answer.results.length, 'row')} from ${meta.offset + 1} (${meta.query_time_ms} ms).`;
      previous.disabled = request === null || meta.offset === 0;
      next.disabled = request === null || !meta.has_more;
      clearMessage();
    } catch (error) {
      if (mine !== generation) return;
      clear();
      sayError(error);
    }
  }

  const run = (request: SearchRequest) => show(request, (client) => client.search(request));

  /** A facet value clicked: its exact filter joins the others and the search runs again from the first page. */
  function pick(path: string, value: string | number | boolean): void {
    const line = `${path}=${String(value)}`;
    const lines = filtersField.value.split('\n').map((entry) => entry.trim()).filter(Boolean);
    if (!lines.includes(line)) filtersField.value = [...lines, line].join('\n');
    try {
      void run(requestOf(0));
    } catch (error) {
      clear();
      sayError(error);
    }
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    try {
      void run(requestOf(0));
    } catch (error) {
      clear();
      sayError(error);
    }
  });
  // A new sort choice orders the same search again, from its first page.
  byId<HTMLSelectElement>('search-sort').addEventListener('change', () => last && void run(requestOf(0)));
  previous.addEventListener('click', () => last && void run({ ...last.request, offset: Math.max(0, last.answer.meta.offset - last.answer.meta.limit) }));
  next.addEventListener('click', () => last && void run({ ...last.request, offset: last.answer.meta.offset + last.answer.results.length }));
  return { reset: clear };
}
