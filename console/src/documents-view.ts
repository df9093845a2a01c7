// Documents: a page of document versions (metadata filter, deleted ones on request) with delete, restore and
// edit of custom metadata (a JSON Merge Patch, queued as an update job and watched to the end).

import { filtersFromPairs } from '../../clients/typescript/src/index.ts';
import type { DocumentPage, DocumentSummary } from '../../clients/typescript/src/index.ts';
import { byId, el, pairLines } from './dom.ts';
import { say, sayError } from './messages.ts';
import type { Session } from './session.ts';

const PAGE_SIZE = 25;

export function documentsView(session: () => Session): { reset(): void; refresh(): Promise<void> } {
  const form = byId<HTMLFormElement>('documents-form');
  const rows = byId<HTMLTableElement>('documents-table').tBodies[0];
  const summary = byId('documents-summary');
  const previous = byId<HTMLButtonElement>('documents-prev');
  const next = byId<HTMLButtonElement>('documents-next');
  const dialog = byId<HTMLDialogElement>('edit-dialog');
  const patch = byId<HTMLTextAreaElement>('edit-patch');
  let offset = 0;
  let editing: DocumentSummary | null = null;

  function listing() {
    const data = new FormData(form);
    return { metadataFilter: filtersFromPairs(pairLines(String(data.get('filter') ?? ''))) as Record<string, string | number | boolean>, includeDeleted: data.get('include_deleted') !== null };
  }

  async function act(label: string, action: () => Promise<unknown>): Promise<void> {
    try {
      await action();
      say(label);
      await refresh();
    } catch (error) {
      sayError(error);
    }
  }

  function row(summary: DocumentSummary): HTMLTableRowElement {
    const custom = (summary.metadata as { custom?: Record<string, unknown> }).custom ?? {};
    const name = summary.document_id;
    const scope = summary.version_id !== null && summary.version_id !== summary.document_id ? { versionId: summary.version_id } : {};
    const buttons = summary.deleted
      ? [el('button', { type: 'button', 'aria-label': `Restore ${name}` }, 'Restore')]
      : [el('button', { type: 'button', 'aria-label': `Delete ${name}` }, 'Delete'), el('button', { type: 'button', 'aria-label': `Edit metadata of ${name}` }, 'Edit metadata')];
    if (summary.deleted) buttons[0].addEventListener('click', () => act(`Restored ${name}.`, () => session().client.restore(name, scope)));
    else {
      buttons[0].addEventListener('click', () => act(`Deleted ${name} (restorable).`, () => session().client.delete(name, scope)));
      buttons[1].addEventListener('click', () => {
        editing = summary;
        byId('edit-target').textContent = `${name}${summary.version_id ? ` @ ${summary.version_id}` : ''}`;
        patch.value = JSON.stringify(custom, null, 2);
        dialog.showModal();
        patch.focus();
      });
    }
    return el(
      'tr',
      { 'data-document-id': name, class: summary.deleted ? 'deleted' : '' },
      el('th', { scope: 'row' }, name, summary.deleted ? el('span', { class: 'badge' }, ' deleted') : null),
      el('td', {}, summary.version_id ?? ''),
      el('td', {}, String(summary.chunk_count)),
      el('td', {}, summary.created_at),
      el('td', {}, el('code', {}, JSON.stringify(custom))),
      el('td', {}, ...buttons),
    );
  }

  async function refresh(): Promise<void> {
    let page: DocumentPage;
    try {
      page = await session().client.documentPage({ ...listing(), pageSize: PAGE_SIZE, offset });
    } catch (error) {
      sayError(error);
      return;
    }
    rows.replaceChildren(...page.documents.map(row));
    summary.textContent = page.total === 0 ? 'No documents.' : `${page.total} versions; showing ${page.offset + 1} to ${page.offset + page.documents.length}.`;
    previous.disabled = page.offset === 0;
    next.disabled = !page.has_more;
  }

  dialog.addEventListener('close', () => {
    const target = editing;
    editing = null;
    if (dialog.returnValue !== 'save' || !target) return;
    let metadata: Record<string, unknown>;
    try {
      metadata = JSON.parse(patch.value);
      if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) throw new Error('The patch must be a JSON object');
    } catch (error) {
      sayError(error);
      return;
    }
    void act(`Metadata of ${target.document_id} updated.`, async () => {
      const accepted = await session().client.update({ document_id: target.document_id, metadata, ...(target.version_id !== null && { version_id: target.version_id }) });
      say(`Update of ${target.document_id} queued (job ${accepted.job_id}).`);
      const job = await session().client.waitForJob(accepted.job_id);
      if (job.status !== 'completed') throw new Error(`The update ended ${job.status}: ${job.error ?? ''}`);
    });
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    offset = 0;
    void refresh();
  });
  previous.addEventListener('click', () => {
    offset = Math.max(0, offset - PAGE_SIZE);
    void refresh();
  });
  next.addEventListener('click', () => {
    offset += PAGE_SIZE;
    void refresh();
  });
  return {
    reset() {
      offset = 0;
      rows.replaceChildren();
      summary.textContent = '';
    },
    refresh,
  };
}
