// One document: its latest version's text page by page (GET /document/{id}/text, a page of chunks at a time), its
// metadata as a table, its versions and whether it is deleted. Opened from a hit card or the documents list.

import type { DocumentText } from '../../clients/typescript/src/index.ts';
import { byId, el } from './dom.ts';
import { plural, when } from './format.ts';
import { errorBlock } from './messages.ts';
import { metadataRows } from './metadata-table.ts';
import { isWorkbook, placeName, rowsName } from './places.ts';
import type { PageLabels } from './places.ts';
import type { Session } from './session.ts';
import { versionsOf } from './versions.ts';
import type { DocumentVersions } from './versions.ts';

type Chunk = NonNullable<DocumentText['chunks']>[number];

/** Chunks grouped by their page (a workbook's sheet), in order; chunks without a page (plain text, DOCX) form one group. */
function byPage(chunks: readonly Chunk[]): { page: number | null; chunks: Chunk[] }[] {
  const groups: { page: number | null; chunks: Chunk[] }[] = [];
  for (const chunk of chunks) {
    const page = chunk.page ?? null;
    const last = groups.at(-1);
    if (last && last.page === page) last.chunks.push(chunk);
    else groups.push({ page, chunks: [chunk] });
  }
  return groups;
}

export function documentView(session: () => Session): { open(documentId: string, labels?: PageLabels): Promise<void>; reset(): void } {
  const heading = byId('document-heading');
  const state = byId('document-state');
  const text = byId('document-text');
  const more = byId<HTMLButtonElement>('document-more');
  const versions = byId<HTMLTableElement>('document-versions').tBodies[0];
  const versionsNote = byId('document-versions-note');
  const metadata = byId<HTMLTableElement>('document-metadata').tBodies[0];
  let current: { documentId: string; nextOffset: number | null; labels: Map<number, string>; workbook: boolean } | null = null;
  /** Bumped on each open, so the answers of a document opened before never land in this one's view. */
  let generation = 0;

  function reset(): void {
    generation++;
    current = null;
    heading.textContent = '';
    state.replaceChildren();
    text.replaceChildren();
    versions.replaceChildren();
    versionsNote.replaceChildren();
    versionsNote.hidden = true;
    metadata.replaceChildren();
    more.hidden = true;
  }

  function appendText(answer: DocumentText): void {
    let section = text.lastElementChild as HTMLElement | null;
    for (const group of byPage(answer.chunks ?? [])) {
      // The text route names each chunk's page (page_label): a sheet is headed by its name, whichever hit opened it.
      const named = group.chunks.find((chunk) => chunk.page_label)?.page_label;
      if (current && group.page !== null && named) current.labels.set(group.page, named);
      // Chunks without a page (plain text, Word documents) are one run of text with no heading.
      const label = (current && placeName(group.page, current.labels, current.workbook)) ?? (group.page === null ? '' : `Page ${group.page}`);
      if (!section || section.dataset.label !== label) {
        section = el('section', { class: 'page-text', 'data-label': label }, label ? el('h4', {}, label) : null);
        text.append(section);
      }
      for (const chunk of group.chunks) {
        // A chunk of a sheet (or a CSV file) is headed by the rows it holds.
        const rows = rowsName(chunk.rows);
        if (rows) section.append(el('span', { class: 'chunk-rows', 'data-rows-of': String(chunk.index ?? '') }, rows));
        section.append(el('p', { 'data-chunk': String(chunk.index ?? '') }, chunk.text ?? ''));
      }
    }
    more.hidden = answer.next_chunk_offset === null || answer.next_chunk_offset === undefined;
    if (current) current.nextOffset = answer.next_chunk_offset ?? null;
  }

  function showVersions(documentId: string, listed: DocumentVersions): void {
    const { rows } = listed;
    versions.replaceChildren(
      ...rows.map((row) =>
        el(
          'tr',
          { class: row.deleted ? 'deleted' : '' },
          el('th', { scope: 'row', 'data-label': 'Version' }, row.version_id ?? documentId, el('span', { class: 'created' }, when(row.created_at))),
          el('td', { 'data-label': 'Chunks', class: 'number' }, plural(row.chunk_count, 'chunk')),
          el('td', { 'data-label': 'State' }, row.deleted ? el('span', { class: 'pill', 'data-state': 'deleted' }, `deleted ${when(row.deleted_at)}`) : el('span', { class: 'pill', 'data-state': 'completed' }, 'active')),
        ),
      ),
    );
    const active = rows.filter((row) => !row.deleted).length;
    state.replaceChildren(
      rows.length === 0
        ? el('span', { class: 'muted' }, 'No versions listed.')
        : active === 0
          ? el('span', { class: 'pill', 'data-state': 'deleted' }, 'Deleted (restorable from the documents list)')
          : el('span', { class: 'pill', 'data-state': 'completed' }, `Active: ${plural(active, 'version')}${rows.length > active ? `, ${rows.length - active} deleted` : ''}`),
    );
    versionsNote.hidden = listed.complete;
    if (!listed.complete) versionsNote.textContent = `Listed from the first ${listed.read.toLocaleString('en')} of the Client's ${listed.total.toLocaleString('en')} versions: this document may have more.`;
  }

  async function open(documentId: string, labels: PageLabels = new Map()): Promise<void> {
    reset();
    const mine = generation;
    current = { documentId, nextOffset: null, labels: new Map(labels), workbook: false };
    heading.textContent = documentId;
    state.textContent = 'Loading…';
    try {
      // GET /documents has no document filter: the Client's versions page by page, this document's kept (versions.ts).
      const [answer, listed] = await Promise.all([
        session().read((client) => client.text(documentId, { includeDeleted: true })),
        versionsOf(documentId, (offset, limit) => session().read((client) => client.documentPage({ includeDeleted: true, pageSize: limit, offset }))),
      ]);
      if (mine !== generation) return;
      if (current) current.workbook = isWorkbook(answer.metadata);
      appendText(answer);
      metadata.replaceChildren(...metadataRows(answer.metadata ?? {}, ['schema_version']));
      showVersions(documentId, listed);
    } catch (error) {
      if (mine !== generation) return;
      state.replaceChildren(errorBlock(error));
    }
  }

  more.addEventListener('click', async () => {
    if (!current || current.nextOffset === null) return;
    const mine = generation;
    const { documentId, nextOffset } = current;
    try {
      const answer = await session().read((client) => client.text(documentId, { includeDeleted: true, chunkOffset: nextOffset }));
      if (mine === generation) appendText(answer);
    } catch (error) {
      if (mine === generation) state.replaceChildren(errorBlock(error));
    }
  });
  return { open, reset };
}
