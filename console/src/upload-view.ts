// Upload: files with custom metadata, each sent with its progress shown (XMLHttpRequest reports upload
// progress; fetch does not) through the rate gate, then its job followed under Jobs.

import { SearchServiceError, typedValue } from '../../clients/typescript/src/index.ts';
import type { AcceptedJob } from '../../clients/typescript/src/index.ts';
import { byId, pairLines } from './dom.ts';
import { plural } from './format.ts';
import type { JobRow } from './jobs-view.ts';
import { say, sayError } from './messages.ts';
import type { Session } from './session.ts';

/** One POST /embed; a refusal rejects with the envelope and its Retry-After, as the typed client's do. */
function send(key: string, form: FormData, progress: HTMLProgressElement): Promise<AcceptedJob> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', `${location.origin}/embed`);
    request.setRequestHeader('X-API-Key', key);
    request.responseType = 'json';
    request.upload.addEventListener('progress', (event) => {
      if (!event.lengthComputable) return;
      progress.max = event.total;
      progress.value = event.loaded;
    });
    request.addEventListener('load', () => {
      const body = request.response as { job_id?: string } | null;
      if (request.status === 202 && body?.job_id) resolve(body as AcceptedJob);
      else reject(new SearchServiceError(request.status, body, request.getResponseHeader('retry-after')));
    });
    request.addEventListener('error', () => reject(new Error('The upload did not reach the service')));
    request.send(form);
  });
}

export interface Jobs {
  add(documentId: string, kind: 'upload'): JobRow;
  watch(row: JobRow, jobId: string): Promise<{ status: string }>;
}

export function uploadView(session: () => Session, jobs: Jobs, showJobs: () => void): void {
  const form = byId<HTMLFormElement>('upload-form');

  async function upload(file: File, fields: { documentId: string; versionId: string; metadata: Record<string, unknown> }): Promise<void> {
    const row = jobs.add(fields.documentId, 'upload');
    const data = new FormData();
    data.set('document_id', fields.documentId);
    if (fields.versionId) data.set('version_id', fields.versionId);
    if (Object.keys(fields.metadata).length > 0) data.set('metadata', JSON.stringify(fields.metadata));
    data.set('file', file, file.name);
    let accepted: AcceptedJob;
    try {
      accepted = await session().write(() => send(session().key, data, row.progress));
    } catch (error) {
      row.refused(error);
      return;
    }
    try {
      await jobs.watch(row, accepted.job_id);
    } catch (error) {
      // The job exists; only following it failed (e.g. the connection went away): say so without calling it refused.
      row.detail(`could not read its status: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const files = [...(byId<HTMLInputElement>('upload-files').files ?? [])];
    const data = new FormData(form);
    let metadata: Record<string, unknown>;
    try {
      metadata = Object.fromEntries(pairLines(String(data.get('metadata') ?? '')).map(([key, value]) => [key, typedValue(value)]));
    } catch (error) {
      sayError(error);
      return;
    }
    const documentId = String(data.get('document_id') ?? '').trim();
    if (documentId && files.length > 1) {
      say('A document id names one file: leave it empty to name each document after its file.', 'error');
      return;
    }
    const versionId = String(data.get('version_id') ?? '').trim();
    for (const file of files) void upload(file, { documentId: documentId || file.name, versionId, metadata });
    form.reset();
    // The outcome of each is its row under Jobs (and the Jobs summary), not a message that would outlive the tab.
    showJobs();
    say(`${plural(files.length, 'file')} sent; ${files.length === 1 ? 'its job is' : 'their jobs are'} followed here.`);
  });
}
