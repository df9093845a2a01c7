// Jobs: the uploads and metadata updates started from this tab, newest first, each followed to its end. A job is
// polled with a growing pause (budget.ts) and through the rate gate, so a handful in flight stay within the
// Client's budget; a job the worker retries is read again when the service says it will have tried again.

import { TERMINAL_JOB_STATES } from '../../clients/typescript/src/index.ts';
import type { JobStatus } from '../../clients/typescript/src/index.ts';
import { pause, pollPauseMs } from './budget.ts';
import { byId, el } from './dom.ts';
import { plural } from './format.ts';
import { describeError } from './messages.ts';
import type { Session } from './session.ts';

export type JobKind = 'upload' | 'update';

export interface JobRow {
  kind: JobKind;
  progress: HTMLProgressElement;
  accepted(jobId: string): void;
  status(state: string): void;
  detail(text: string): void;
  /** The request never became a job (refused, or the connection failed): shown with its reason. */
  refused(error: unknown): void;
}

/** What a finished job did, in words. */
export function jobDetail(job: JobStatus, kind: JobKind): string {
  if (job.status === 'completed' && kind === 'update') return 'metadata updated';
  if (job.status === 'completed') return `${plural(job.chunks_created ?? 0, 'chunk')}${job.search_ready ? ', searchable' : ''}`;
  if (job.status === 'retrying' && typeof job.next_retry_in_seconds === 'number') return `${job.error ?? 'retrying'} (again in ${Math.ceil(job.next_retry_in_seconds)} s)`;
  return job.error ?? '';
}

export function jobsView(session: () => Session, onCount: (running: number) => void): { add(documentId: string, kind: JobKind): JobRow; watch(row: JobRow, jobId: string): Promise<JobStatus>; reset(): void } {
  const rows = byId<HTMLTableElement>('jobs-table').tBodies[0];
  const summary = byId('jobs-summary');
  let running = 0;

  function counted(change: number): void {
    running += change;
    onCount(running);
    const total = rows.rows.length;
    summary.textContent = total === 0 ? 'No uploads or updates yet in this tab.' : `${plural(total, 'job')}; ${running === 0 ? 'all finished' : `${running} running`}.`;
  }

  function add(documentId: string, kind: JobKind): JobRow {
    const progress = el('progress', { max: '1', value: kind === 'update' ? '1' : '0', 'aria-label': `Upload of ${documentId}` });
    const jobCell = el('td', { class: 'job', 'data-label': 'Job' }, el('span', { class: 'muted' }, '—'));
    const statusCell = el('td', { class: 'status', 'data-label': 'Status' }, el('span', { class: 'pill', 'data-state': 'uploading' }, kind === 'upload' ? 'uploading' : 'sending'));
    const detailCell = el('td', { class: 'detail', 'data-label': 'Detail' }, '');
    rows.prepend(el('tr', { 'data-file': documentId, 'data-kind': kind }, el('th', { scope: 'row' }, documentId), el('td', { 'data-label': 'Kind' }, kind), el('td', { 'data-label': 'Progress' }, progress), jobCell, statusCell, detailCell));
    counted(1);
    let open = true;
    const finish = () => {
      if (open) counted(-1);
      open = false;
    };
    const state = (text: string) => statusCell.replaceChildren(el('span', { class: 'pill', 'data-state': text }, text));
    return {
      kind,
      progress,
      accepted(jobId) {
        progress.value = progress.max;
        jobCell.replaceChildren(el('code', {}, jobId));
        state('pending');
      },
      status(text) {
        state(text);
        if (TERMINAL_JOB_STATES.has(text)) finish();
      },
      refused(error) {
        state('refused');
        detailCell.textContent = describeError(error);
        finish();
      },
      detail(text) {
        detailCell.textContent = text;
      },
    };
  }

  async function watch(row: JobRow, jobId: string): Promise<JobStatus> {
    row.accepted(jobId);
    for (let polls = 1; ; polls++) {
      const job = await session().read((client) => client.status(jobId));
      row.detail(jobDetail(job, row.kind));
      row.status(job.status);
      if (TERMINAL_JOB_STATES.has(job.status)) return job;
      const retryMs = job.status === 'retrying' && typeof job.next_retry_in_seconds === 'number' ? job.next_retry_in_seconds * 1000 : 0;
      await pause(Math.max(pollPauseMs(polls), retryMs, session().pollHoldMs()));
    }
  }

  return {
    add,
    watch,
    reset() {
      rows.replaceChildren();
      running = 0;
      counted(0);
    },
  };
}
