// The operator's data commands, `hds admin backup|restore|export|import`. Backup and restore work on the files
// of an embedded (SQLite) deployment on this machine, through the functions the composition root hands in
// (src/cli.ts: the CLI itself never opens a store); export and import are requests to the operator routes
// GET and POST /admin/clients/{client_id}/export|import, so they reach a deployment on either store anywhere.

import { createReadStream, createWriteStream, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { SearchServiceError } from '../../clients/typescript/src/index.ts';
import { loadConfig } from '../config.ts';
import { connectionFailure, operatorKey, serviceUrl, UsageError } from './connection.ts';
import type { ConnectionOptions } from './connection.ts';

/** The NDJSON media type of an export and an import's body. */
export const EXPORT_MEDIA_TYPE = 'application/x-ndjson';

/** What backup and restore report; the composition root's functions return it. */
export interface DataFileOutcome {
  [field: string]: string | number;
}

/** Backup and restore of the files of an embedded deployment, as the composition root provides them. */
export interface DeploymentFiles {
  backup(dataDir: string, out: string): DataFileOutcome;
  restore(archive: string, dataDir: string): DataFileOutcome;
  /** Whether the error refused the command before it did anything (exit 2), rather than failing part way (1). */
  isRefusal(error: unknown): boolean;
}

export interface AdminDataContext {
  env: NodeJS.ProcessEnv;
  connection(): ConnectionOptions;
  files: DeploymentFiles | undefined;
  print(value: Record<string, unknown>, asJson: boolean): void;
}

function filesOf(context: AdminDataContext): DeploymentFiles {
  if (!context.files) throw new UsageError('backup and restore run from the hds command itself (src/cli.ts)');
  return context.files;
}

/** Runs a backup or restore, turning a refusal (wrong DATA_DIR, non-empty target) into wrong usage: exit 2. */
function runFiles(context: AdminDataContext, run: (files: DeploymentFiles) => DataFileOutcome): DataFileOutcome {
  const files = filesOf(context);
  try {
    return run(files);
  } catch (error) {
    if (files.isRefusal(error)) throw new UsageError((error as Error).message);
    throw error;
  }
}

async function operatorFetch(context: AdminDataContext, path: string, init: RequestInit = {}): Promise<Response> {
  const url = serviceUrl(context.connection(), context.env);
  const key = operatorKey(context.connection(), context.env);
  let response: Response;
  try {
    response = await fetch(`${url}${path}`, { ...init, headers: { 'X-API-Key': key, ...init.headers } });
  } catch (error) {
    throw connectionFailure(url, error);
  }
  if (!response.ok) throw new SearchServiceError(response.status, await response.json().catch(() => ({})), response.headers.get('retry-after'));
  return response;
}

const clientPath = (clientId: string, action: 'export' | 'import') => `/admin/clients/${encodeURIComponent(clientId)}/${action}`;

export function addAdminDataCommands(admin: Command, context: AdminDataContext): void {
  admin
    .command('backup')
    .description('copy a running SQLite deployment (every database and the uploaded files) into one archive, on this machine')
    .requiredOption('--out <file>', 'the archive to write (a tar; never overwritten)')
    .option('--data-dir <dir>', 'the deployment (default: DATA_DIR)')
    .option('--json', 'print the outcome as JSON')
    .action((options) => {
      const config = loadConfig(context.env);
      if (config.store === 'postgres' && options.dataDir === undefined) {
        throw new UsageError('STORE=postgres: everything is in the database; back it up with pg_dump (docs/operations.md "Backups")');
      }
      const outcome = runFiles(context, (files) => files.backup(options.dataDir ?? config.dataDir, options.out));
      context.print(outcome, options.json === true);
    });

  admin
    .command('restore')
    .description('lay a backup into an empty DATA_DIR, which `npm start` then serves')
    .argument('<file>', 'the archive hds admin backup wrote')
    .requiredOption('--data-dir <dir>', 'the empty (or absent) directory to restore into')
    .option('--json', 'print the outcome as JSON')
    .action((archive: string, options) => {
      context.print(runFiles(context, (files) => files.restore(archive, options.dataDir)), options.json === true);
    });

  admin
    .command('export')
    .description("write one Client's Document Versions as NDJSON (hds-export/1)")
    .argument('<client_id>')
    .requiredOption('--out <file>', 'the file to write (never overwritten)')
    .option('--json', 'print the outcome as JSON')
    .action(async (clientId: string, options) => {
      if (existsSync(options.out)) throw new UsageError(`${options.out} exists: an export never overwrites a file`);
      const response = await operatorFetch(context, clientPath(clientId, 'export'));
      const partial = `${options.out}.partial-${process.pid}`;
      try {
        await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), createWriteStream(partial, { flags: 'wx' }));
        renameSync(partial, options.out);
      } catch (error) {
        rmSync(partial, { force: true });
        throw error;
      }
      context.print({ client_id: clientId, out: options.out, bytes: statSync(options.out).size }, options.json === true);
    });

  admin
    .command('import')
    .description('import an export into a Client of this deployment: its versions are queued as embed jobs (versions it holds are skipped)')
    .argument('<client_id>')
    .argument('<file>', 'an export (hds-export/1 NDJSON)')
    .option('--json', 'print the answer as JSON')
    .action(async (clientId: string, file: string, options) => {
      if (!existsSync(file)) throw new UsageError(`${file}: no such file`);
      const response = await operatorFetch(context, clientPath(clientId, 'import'), {
        method: 'POST',
        headers: { 'Content-Type': EXPORT_MEDIA_TYPE },
        body: Readable.toWeb(createReadStream(file)) as unknown as ReadableStream,
        duplex: 'half',
      } as RequestInit);
      const answer = (await response.json()) as Record<string, unknown>;
      if (options.json) context.print(answer, true);
      else {
        const jobs = Array.isArray(answer.jobs) ? answer.jobs.length : 0;
        context.print({ client_id: clientId, queued: jobs, skipped: answer.skipped as number }, false);
      }
    });
}
