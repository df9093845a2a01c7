// Upload: files with custom metadata, each sent with its progress shown (XMLHttpRequest reports upload
// progress; fetch does not), then its job watched to the end through the typed client.

import { typedValue } from '../../clients/typescript/src/index.ts';
import type { JobStatus } from '../../clients/typescript/src/index.ts';
import { byId, el, pairLines } from './dom.ts';
import { describeError, say, sayError } from './messages.ts';
import type { Session } from './session.ts';

interface Accepted {
  job_id: string;
  document_id: string;
}

function send(key: string, form: FormData, progress: HTMLProgressElement): Promise<Accepted> {
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
      const body = request.response as { job_id?: string; document_id?: string; error_code?: string; detail?: string } | null;
      if (request.status === 202 && body?.job_id) resolve(body as Accepted);
      else reject(new Error(`${request.status} ${body?.error_code ?? 'error'}: ${body?.detail ?? request.statusText}`));
    });
    request.addEventListener('error', () => reject(new Error('the upload did not reach the service')));
    request.send(form);
  });
}

function jobDetail(job: JobStatus): string {
  if (job.status === 'completed') return `${job.chunks_created ?? 0} chunks${job.search_ready ? ', searchable' : ''}`;
  return job.error ?? '';
}

export function uploadView(session: () => Session): { reset(): void } {
  const form = byId<HTMLFormElement>('upload-form');
  const rows = byId<HTMLTableElement>('upload-jobs').tBodies[0];

  async function upload(file: File, fields: { documentId: string; versionId: string; metadata: Record<string, unknown> }): Promise<void> {
    const progress = el('progress', { max: '1', value: '0', 'aria-label': `Upload of ${file.name}` });
    const jobCell = el('td', {}, '');
    const statusCell = el('td', { class: 'status' }, 'uploading');
    const detailCell = el('td', {}, '');
    rows.append(el('tr', { 'data-file': file.name }, el('td', {}, file.name), el('td', {}, progress), jobCell, statusCell, detailCell));
    const data = new FormData();
    data.set('document_id', fields.documentId);
    if (fields.versionId) data.set('version_id', fields.versionId);
    if (Object.keys(fields.metadata).length > 0) data.set('metadata', JSON.stringify(fields.metadata));
    data.set('file', file, file.name);
    try {
      const accepted = await send(session().key, data, progress);
      progress.value = progress.max;
      jobCell.textContent = accepted.job_id;
      statusCell.textContent = 'pending';
      const job = await session().client.waitForJob(accepted.job_id, {
        intervalMs: 500,
        onPoll: (seen) => {
          statusCell.textContent = seen.status;
        },
      });
      statusCell.textContent = job.status;
      detailCell.textContent = jobDetail(job);
      say(`${file.name}: ${job.status}.`, job.status === 'completed' ? 'info' : 'error');
    } catch (error) {
      statusCell.textContent = 'refused';
      detailCell.textContent = describeError(error);
      sayError(error);
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
    for (const file of files) void upload(file, { documentId: documentId || file.name, versionId: String(data.get('version_id') ?? '').trim(), metadata });
    form.reset();
  });
  return {
    reset() {
      rows.replaceChildren();
    },
  };
}
