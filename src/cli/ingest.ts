// `ingest DIR`: uploads every file under a folder, a bounded number at a time, each as a document named by its
// path under DIR and a version named by its content's digest. That makes a run resumable: versions the service
// already holds are skipped (listed once through GET /documents), and a file that changed becomes a new version.
// A progress bar counts files to their terminal job state and says what the run waits for: the rate limit (with
// the seconds left) or the work, whose estimate never promises less than the budget allows. The run ends with a
// table of failures. `upload FILE` is the same for one file.

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import pLimit from 'p-limit';
import cliProgress from 'cli-progress';
import type { JobStatus, SearchClient } from '../../clients/typescript/src/index.ts';
import { UsageError } from './connection.ts';
import type { JobWatch } from './job-watch.ts';
import type { RequestBudget } from './request-budget.ts';
import { count, duration, errorText, table } from './render.ts';
import type { Paint } from './render.ts';

/** Hex characters of the content digest a version id keeps: 64 bits, ample to tell a folder's revisions apart. */
const VERSION_DIGEST_HEX = 16;
/** How often the bar's state (a rate-limit countdown, the estimate) is redrawn. */
const STATE_REFRESH_MS = 1_000;

export interface IngestOptions {
  concurrency: number;
  metadata: Record<string, string>;
  /** Where the progress bar is drawn (stderr), and whether it is a terminal. */
  progressStream: NodeJS.WriteStream;
  /** No bar at all (--json: a script reads the outcome, not the progress). */
  quiet: boolean;
}

export interface IngestFile {
  path: string;
  documentId: string;
  versionId: string;
  bytes: Uint8Array;
}

export interface IngestOutcome {
  file: string;
  status: string;
  error: string;
  job_id: string | null;
}

export interface IngestReport {
  uploaded: number;
  skipped: number;
  outcomes: IngestOutcome[];
  /** What the run cost: its time, the requests it sent, how long they waited for the rate limit, the 429s met. */
  took_ms: number;
  requests: number;
  rate_limit_wait_ms: number;
  rate_limit_refusals: number;
}

const digestOf = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex').slice(0, VERSION_DIGEST_HEX);

/** Files under `dir` (dot-files and dot-folders left out), in path order, each with its document and version id. */
export function filesToIngest(dir: string): IngestFile[] {
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`${dir} is not a folder`);
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => !relative(dir, path).split(sep).some((part) => part.startsWith('.')))
    .sort()
    .map((path) => {
      const bytes = new Uint8Array(readFileSync(path));
      return { path, documentId: relative(dir, path).split(sep).join('/'), versionId: digestOf(bytes), bytes };
    });
}

/** One file as `upload FILE` sends it: its name as the document id unless given, its digest as the version. */
export function fileToUpload(path: string, documentId?: string, versionId?: string): IngestFile {
  if (!statSync(path, { throwIfNoEntry: false })?.isFile()) throw new UsageError(`${path} is not a file`);
  const bytes = new Uint8Array(readFileSync(path));
  return { path, documentId: documentId ?? basename(path), versionId: versionId ?? digestOf(bytes), bytes };
}

const versionKey = (documentId: string, versionId: string | null) => `${documentId}\u0000${versionId ?? ''}`;

async function heldVersions(client: SearchClient): Promise<Set<string>> {
  const held = new Set<string>();
  for await (const summary of client.documents({ pageSize: 1000 })) held.add(versionKey(summary.document_id, summary.version_id));
  return held;
}

/** Uploads one file and waits for its job's terminal state; a refusal is the outcome `not accepted`. */
export async function uploadAndWait(client: SearchClient, watch: JobWatch, file: IngestFile, metadata: Record<string, string>, onAccepted?: () => void): Promise<IngestOutcome & { job?: JobStatus }> {
  let jobId: string | null = null;
  try {
    const accepted = await client.uploadFile({ documentId: file.documentId, versionId: file.versionId, file: file.bytes, filename: basename(file.path), metadata: Object.keys(metadata).length ? metadata : undefined });
    jobId = accepted.job_id;
    onAccepted?.();
    const job = await watch.terminal(accepted.job_id);
    return { file: file.documentId, status: job.status, error: job.status === 'completed' ? '' : (job.error ?? ''), job_id: jobId, job };
  } catch (error) {
    return { file: file.documentId, status: jobId === null ? 'not accepted' : 'unknown', error: errorText(error), job_id: jobId };
  }
}

/** What the run is waiting for, as the bar shows it. */
function stateOf(budget: RequestBudget, startedAt: number, done: number, uploadsLeft: number, jobsLeft: number): string {
  const waitUntil = budget.waitingUntil();
  if (waitUntil !== null && waitUntil - Date.now() >= STATE_REFRESH_MS) return `waiting ${Math.ceil((waitUntil - Date.now()) / 1000)} s for the rate limit`;
  const left = uploadsLeft + jobsLeft;
  if (left === 0) return 'done';
  // Each file left needs a status request at least, and an upload if it has not been sent: the budget's bound.
  const budgetMs = budget.msFor(uploadsLeft + left, 'poll');
  const workMs = done > 0 ? ((Date.now() - startedAt) / done) * left : 0;
  const estimate = Math.max(budgetMs, workMs);
  if (estimate >= 1000) return `about ${duration(estimate)} left`;
  return done === 0 ? 'starting' : 'finishing';
}

export async function ingestFolder(client: SearchClient, watch: JobWatch, budget: RequestBudget, dir: string, options: IngestOptions): Promise<IngestReport> {
  const startedAt = Date.now();
  const files = filesToIngest(dir);
  const held = await heldVersions(client);
  const pending = files.filter((file) => !held.has(versionKey(file.documentId, file.versionId)));
  const report: IngestReport = { uploaded: 0, skipped: files.length - pending.length, outcomes: [], took_ms: 0, requests: 0, rate_limit_wait_ms: 0, rate_limit_refusals: 0 };
  const bar = new cliProgress.SingleBar(
    {
      stream: options.progressStream,
      format: '{bar} {value}/{total} files | {failed} failed | {state}',
      hideCursor: true,
      noTTYOutput: !options.progressStream.isTTY,
      notTTYSchedule: 5000,
    },
    cliProgress.Presets.shades_classic,
  );
  // Nothing to send (a run again over a folder the service holds): no bar, only the summary.
  const quiet = options.quiet || pending.length === 0;
  let failed = 0;
  /** Files whose upload has not been answered (a refused one may be sent again), and jobs accepted, not terminal. */
  let uploadsLeft = pending.length;
  let jobsLeft = 0;
  const state = () => ({ failed, state: stateOf(budget, startedAt, report.outcomes.length, uploadsLeft, jobsLeft) });
  if (!quiet) bar.start(pending.length, 0, state());
  const refresh = quiet ? null : setInterval(() => bar.update(state()), STATE_REFRESH_MS);
  // Ctrl-C mid-run: the bar gives the terminal its cursor back; a run again skips what was indexed meanwhile.
  const interrupted = () => {
    bar.stop();
    process.exit(130);
  };
  if (!quiet) process.once('SIGINT', interrupted);
  const limit = pLimit(options.concurrency);
  try {
    await Promise.all(
      pending.map((file) =>
        limit(async () => {
          const { job: _job, ...outcome } = await uploadAndWait(client, watch, file, options.metadata, () => {
            report.uploaded++;
            uploadsLeft--;
            jobsLeft++;
          });
          if (outcome.job_id === null) uploadsLeft--;
          else jobsLeft--;
          if (outcome.status !== 'completed') failed++;
          report.outcomes.push(outcome);
          if (!quiet) bar.increment(1, state());
        }),
      ),
    );
  } finally {
    process.off('SIGINT', interrupted);
    if (refresh) clearInterval(refresh);
    if (!quiet) {
      bar.update(state());
      bar.stop();
    }
  }
  Object.assign(report, { took_ms: Date.now() - startedAt, requests: budget.requests, rate_limit_wait_ms: budget.waitedMs, rate_limit_refusals: budget.refusals });
  return report;
}

/** The closing summary: counts, then every file that did not complete with its state and error. */
export function renderIngestReport(report: IngestReport, paint: Paint, width: number): string {
  const failures = report.outcomes.filter((outcome) => outcome.status !== 'completed').sort((a, b) => a.file.localeCompare(b.file));
  const completed = report.outcomes.length - failures.length;
  let text = `${completed} completed, ${report.skipped} skipped (already held), ${failures.length} failed\n`;
  const refusals = report.rate_limit_refusals > 0 ? `; ${report.rate_limit_refusals} answered 429 and sent again after their Retry-After` : '';
  text += paint('dim', `took ${duration(report.took_ms)} and ${count(report.requests, 'request')}; waited ${duration(report.rate_limit_wait_ms)} for the rate limit${refusals}\n`);
  if (failures.length > 0) text += `\n${table(['FILE', 'STATUS', 'ERROR'], failures.map((failure) => [failure.file, failure.status, failure.error]), paint, width, ['FILE', 'ERROR'])}`;
  return text;
}
