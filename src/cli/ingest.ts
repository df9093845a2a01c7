// `ingest DIR`: uploads every file under a folder, a bounded number at a time, each as a document named by its
// path under DIR and a version named by its content's digest. That makes a run resumable: versions the service
// already holds are skipped (listed once through GET /documents), and a file that changed becomes a new version.
// A progress bar counts files to their terminal job state; the run ends with a table of failures.

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import pLimit from 'p-limit';
import cliProgress from 'cli-progress';
import type { SearchClient } from '../../clients/typescript/src/index.ts';
import { SearchServiceError } from '../../clients/typescript/src/index.ts';
import type { Paint } from './render.ts';
import { table } from './render.ts';

/** Hex characters of the content digest a version id keeps: 64 bits, ample to tell a folder's revisions apart. */
const VERSION_DIGEST_HEX = 16;

export interface IngestOptions {
  concurrency: number;
  metadata: Record<string, string>;
  /** How often a job is polled, ms. */
  pollMs: number;
  /** Where the progress bar is drawn (stderr), and whether it is a terminal. */
  progressStream: NodeJS.WriteStream;
  paint: Paint;
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
}

export interface IngestReport {
  uploaded: number;
  skipped: number;
  outcomes: IngestOutcome[];
}

/** Files under `dir` (dot-files and dot-folders left out), in path order, each with its document and version id. */
export function filesToIngest(dir: string): IngestFile[] {
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`${dir} is not a folder`);
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => !relative(dir, path).split(sep).some((part) => part.startsWith('.')))
    .sort()
    .map((path) => {
      const bytes = new Uint8Array(readFileSync(path));
      return { path, documentId: relative(dir, path).split(sep).join('/'), versionId: createHash('sha256').update(bytes).digest('hex').slice(0, VERSION_DIGEST_HEX), bytes };
    });
}

const versionKey = (documentId: string, versionId: string | null) => `${documentId}\u0000${versionId ?? ''}`;

async function heldVersions(client: SearchClient): Promise<Set<string>> {
  const held = new Set<string>();
  for await (const summary of client.documents({ pageSize: 1000 })) held.add(versionKey(summary.document_id, summary.version_id));
  return held;
}

function messageOf(error: unknown): string {
  if (error instanceof SearchServiceError) return `${error.status} ${error.code}: ${error.detail}`;
  return error instanceof Error ? error.message : String(error);
}

export async function ingestFolder(client: SearchClient, dir: string, options: IngestOptions): Promise<IngestReport> {
  const files = filesToIngest(dir);
  const held = await heldVersions(client);
  const pending = files.filter((file) => !held.has(versionKey(file.documentId, file.versionId)));
  const report: IngestReport = { uploaded: 0, skipped: files.length - pending.length, outcomes: [] };
  const bar = new cliProgress.SingleBar(
    {
      stream: options.progressStream,
      format: '{bar} {value}/{total} files | {failed} failed | {eta_formatted} left',
      hideCursor: true,
      noTTYOutput: !options.progressStream.isTTY,
      notTTYSchedule: 5000,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(pending.length, 0, { failed: 0 });
  let failed = 0;
  const limit = pLimit(options.concurrency);
  await Promise.all(
    pending.map((file) =>
      limit(async () => {
        let outcome: IngestOutcome;
        try {
          const accepted = await client.uploadFile({ documentId: file.documentId, versionId: file.versionId, file: file.bytes, filename: file.path.split(sep).pop()!, metadata: Object.keys(options.metadata).length ? options.metadata : undefined });
          report.uploaded++;
          const job = await client.waitForJob(accepted.job_id, { intervalMs: options.pollMs });
          outcome = { file: file.documentId, status: job.status, error: job.status === 'completed' ? '' : (job.error ?? '') };
        } catch (error) {
          outcome = { file: file.documentId, status: 'not accepted', error: messageOf(error) };
        }
        if (outcome.status !== 'completed') failed++;
        report.outcomes.push(outcome);
        bar.increment(1, { failed });
      }),
    ),
  );
  bar.stop();
  return report;
}

/** The closing summary: counts, then every file that did not complete with its state and error. */
export function renderIngestReport(report: IngestReport, paint: Paint): string {
  const failures = report.outcomes.filter((outcome) => outcome.status !== 'completed').sort((a, b) => a.file.localeCompare(b.file));
  const completed = report.outcomes.length - failures.length;
  let text = `${completed} completed, ${report.skipped} skipped (already held), ${failures.length} failed\n`;
  if (failures.length > 0) text += `\n${table(['FILE', 'STATUS', 'ERROR'], failures.map((failure) => [failure.file, failure.status, failure.error]), paint)}`;
  return text;
}
