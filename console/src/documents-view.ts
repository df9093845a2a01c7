// Documents: a page of document versions (metadata filter, deleted ones on request) with delete (asked first),
// restore and edit of custom metadata (a JSON Merge Patch, queued as an update job and followed under Jobs). The
// edit dialog stays open with the text as typed until the service has accepted the patch; a refusal is shown in
// the dialog. A failed listing clears the rows of the listing before it.

import { filtersFromPairs } from '../../clients/typescript/src/index.ts';
import type { DocumentPage, DocumentSummary, JobStatus } from '../../clients/typescript/src/index.ts';
import { confirmAction } from './confirm.ts';
import { byId, el, pairLines } from './dom.ts';
import { leaves, plural, valueText, when } from './format.ts';
import type { JobRow } from './jobs-view.ts';
import { clearMessage, errorBlock, say, sayError } from './messages.ts';
import type { Session } from './session.ts';

const PAGE_SIZE = 25;

export interface UpdateJobs {
  add(documentId: string, kind: 'update'): JobRow;
  watch(row: JobRow, jobId: string): Promise<JobStatus>;
}

/** Parses the dialog's text: a JSON object, or an Error saying what is wrong with it. */
export function parsePatch(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`The patch is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('The patch must be a JSON object, e.g. {"branch": "KL"}');
  return value as Record<string, unknown>;
}

export function documentsView(session: () => Session, jobs: UpdateJobs, open: (documentId: string) => void): { reset(): void; refresh(): Promise<void> } {
  const form = byId<HTMLFormElement>('documents-form');
  const rows = byId<HTMLTableElement>('documents-table').tBodies[0];
  const summary = byId('documents-summary');
  const previous = byId<HTMLButtonElement>('documents-prev');
  const next = byId<HTMLButtonElement>('documents-next');
  const dialog = byId<HTMLDialogElement>('edit-dialog');
  const editForm = byId<HTMLFormElement>('edit-form');
  const patch = byId<HTMLTextAreaElement>('edit-patch');
  const editError = byId('edit-error');
  let offset = 0;
  let editing: DocumentSummary | null = null;
  /** Bumped by each listing, so an answer that arrives after a later listing started is dropped. */
  let generation = 0;

  function listing() {
    const data = new FormData(form);
    return { metadataFilter: filtersFromPairs(pairLines(String(data.get('filter') ?? ''))) as Record<string, string | number | boolean>, includeDeleted: data.get('include_deleted') !== null };
  }

  async function act(label: string, action: () => Promise<unknown>): Promise<void> {
    try {
      await action();
    } catch (error) {
      sayError(error);
      return;
    }
    await refresh();
    say(label);
  }

  function scopeOf(summary: DocumentSummary): { versionId?: string } {
    return summary.version_id !== null && summary.version_id !== summary.document_id ? { versionId: summary.version_id } : {};
  }

  function edit(summary: DocumentSummary): void {
    const custom = (summary.metadata as { custom?: Record<string, unknown> }).custom ?? {};
    editing = summary;
    byId('edit-target').textContent = `${summary.document_id}${summary.version_id && summary.version_id !== summary.document_id ? ` @ ${summary.version_id}` : ''}`;
    patch.value = JSON.stringify(custom, null, 2);
    editError.replaceChildren();
    dialog.showModal();
    patch.focus();
  }

  function row(summary: DocumentSummary): HTMLTableRowElement {
    const custom = (summary.metadata as { custom?: Record<string, unknown> }).custom ?? {};
    const name = summary.document_id;
    const link = el('button', { type: 'button', class: 'link' }, name);
    link.addEventListener('click', () => open(name));
    const buttons = summary.deleted
      ? [el('button', { type: 'button', 'aria-label': `Restore ${name}` }, 'Restore')]
      : [el('button', { type: 'button', 'aria-label': `Edit metadata of ${name}` }, 'Edit'), el('button', { type: 'button', class: 'danger', 'aria-label': `Delete ${name}` }, 'Delete')];
    if (summary.deleted) buttons[0].addEventListener('click', () => act(`Restored ${name}.`, () => session().write((client) => client.restore(name, scopeOf(summary)))));
    else {
      buttons[0].addEventListener('click', () => edit(summary));
      buttons[1].addEventListener('click', async () => {
        if (!(await confirmAction(`Delete ${name}?`, 'Searches stop finding it. It stays restorable: list with "Include deleted" and choose Restore.', 'Delete'))) return;
        await act(`Deleted ${name} (restorable).`, () => session().write((client) => client.delete(name, scopeOf(summary))));
      });
    }
    const pairs = leaves(custom);
    return el(
      'tr',
      { 'data-document-id': name, class: summary.deleted ? 'deleted' : '' },
      el('th', { scope: 'row', 'data-label': 'Document' }, link, summary.deleted ? el('span', { class: 'pill', 'data-state': 'deleted' }, 'deleted') : null),
      el('td', { 'data-label': 'Version' }, summary.version_id ?? ''),
      el('td', { 'data-label': 'Chunks', class: 'number' }, plural(summary.chunk_count, 'chunk')),
      el('td', { 'data-label': 'Created' }, el('time', { datetime: summary.created_at }, when(summary.created_at))),
      el('td', { 'data-label': 'Custom metadata', class: 'custom' }, ...(pairs.length === 0 ? [el('span', { class: 'muted' }, 'none')] : pairs.map(([key, value]) => el('span', { class: 'chip' }, `${key}: ${valueText(value)}`)))),
      el('td', { 'data-label': 'Actions', class: 'actions' }, ...buttons),
    );
  }

  function clear(): void {
    generation++;
    rows.replaceChildren();
    summary.textContent = '';
    previous.disabled = next.disabled = true;
  }

  async function refresh(): Promise<void> {
    let page: DocumentPage;
    const mine = ++generation;
    try {
      const request = { ...listing(), pageSize: PAGE_SIZE, offset };
      page = await session().read((client) => client.documentPage(request));
    } catch (error) {
      if (mine !== generation) return;
      clear();
      sayError(error);
      return;
    }
    if (mine !== generation) return;
    rows.replaceChildren(...page.documents.map(row));
    summary.textContent = page.total === 0 ? 'No documents.' : `${plural(page.total, 'version')}; showing ${page.offset + 1} to ${page.offset + page.documents.length}.`;
    previous.disabled = page.offset === 0;
    next.disabled = !page.has_more;
    clearMessage();
  }

  editForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const target = editing;
    if (!target) return;
    // The error of an earlier try goes; the text stays as typed.
    editError.replaceChildren();
    let metadata: Record<string, unknown>;
    try {
      metadata = parsePatch(patch.value);
    } catch (error) {
      editError.replaceChildren(errorBlock(error));
      return;
    }
    let accepted: { job_id: string };
    try {
      accepted = await session().write((client) => client.update({ document_id: target.document_id, metadata, ...(target.version_id !== null && { version_id: target.version_id }) }));
    } catch (error) {
      editError.replaceChildren(errorBlock(error));
      return;
    }
    editing = null;
    dialog.close();
    say(`Update of ${target.document_id} queued (job ${accepted.job_id}).`);
    const job = await jobs.watch(jobs.add(target.document_id, 'update'), accepted.job_id).catch((error: unknown) => error);
    if (job instanceof Error || (job as JobStatus).status !== 'completed') {
      sayError(job instanceof Error ? job : new Error(`The update of ${target.document_id} ended ${(job as JobStatus).status}: ${(job as JobStatus).error ?? ''}`));
      return;
    }
    if (!byId('tab-documents').hidden) await act(`Metadata of ${target.document_id} updated.`, async () => undefined);
  });
  byId('edit-cancel').addEventListener('click', () => {
    editing = null;
    dialog.close();
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
      clear();
    },
    refresh,
  };
}
