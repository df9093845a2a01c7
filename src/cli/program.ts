// The CLI's commands (commander): a person's commands over the typed client (ingest, search, docs, status,
// update, delete, restore) and the operator's over /admin (authority, mode, backfill). Exit codes: 0 done,
// 1 refused or failed (the envelope or the failures are printed), 2 wrong usage.

import { Argument, Command, CommanderError, Option } from 'commander';
import { createSearchClient, filtersFromPairs, SearchServiceError, typedValue } from '../../clients/typescript/src/index.ts';
import type { SearchClient, SearchRequest, UpdateRequest } from '../../clients/typescript/src/index.ts';
import { clientKey, operatorKey, serviceUrl, UsageError } from './connection.ts';
import type { ConnectionOptions } from './connection.ts';
import { ingestFolder, renderIngestReport } from './ingest.ts';
import { paintFor, renderDocuments, renderSearch } from './render.ts';
import { operatorCall, AUTHORITY_MODES } from './operator.ts';

/** How many times the CLI repeats a request refused with Retry-After (a busy loader meets the rate limit often). */
const CLI_RETRIES = 30;

export interface CliIo {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}

function pairs(label: string) {
  return (pair: string, previous: [string, string][] = []): [string, string][] => {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`${label} takes key=value, not ${JSON.stringify(pair)}`);
    return [...previous, [pair.slice(0, at), pair.slice(at + 1)]];
  };
}

const filtersOf = (entries: [string, string][] = []) => filtersFromPairs(entries);

function number(label: string) {
  return (text: string): number => {
    const value = Number(text);
    if (text.trim() === '' || !Number.isFinite(value)) throw new UsageError(`${label} takes a number, not ${JSON.stringify(text)}`);
    return value;
  };
}

export function buildProgram(io: CliIo): Command {
  const out = (text: string) => io.stdout.write(text);
  const paint = paintFor(io.stdout);
  const program = new Command('hds')
    .description('Search, upload and manage documents of the hybrid document search service.')
    .option('--url <url>', 'the service (default: HDS_URL, else HOST and PORT)')
    .option('--key <key>', 'API key (default: HDS_API_KEY, else the first of API_KEY_CLIENTS; operator commands: OPERATOR_API_KEYS)')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) });
  const connection = (): ConnectionOptions => program.opts<ConnectionOptions>();
  const client = (): SearchClient => createSearchClient({ baseUrl: serviceUrl(connection(), io.env), apiKey: clientKey(connection(), io.env), retries: CLI_RETRIES });
  const json = (value: unknown): void => void out(`${JSON.stringify(value, null, 2)}\n`);

  program
    .command('search')
    .description('search the documents; matched words are highlighted')
    .argument('<query>')
    .addOption(new Option('--scope <scope>', 'content, metadata or both').choices(['content', 'metadata', 'both']).default('content'))
    .option('--alpha <alpha>', 'dense (1) against keyword (0) weight', number('--alpha'))
    .option('--filter <key=value>', 'exact filter, repeatable (e.g. metadata.custom.branch=KL)', pairs('--filter'))
    .option('--limit <n>', 'rows per page', number('--limit'), 10)
    .option('--offset <n>', 'rows to skip', number('--offset'), 0)
    .option('--rerank', 'rerank the first rows')
    .option('--include-deleted', 'include soft-deleted documents')
    .option('--json', 'print the answer as JSON')
    .action(async (query: string, options) => {
      const request: SearchRequest = { query, scope: options.scope, limit: options.limit, offset: options.offset, highlight: true, filters: filtersOf(options.filter) };
      if (options.alpha !== undefined) request.alpha = options.alpha;
      if (options.rerank) request.rerank = true;
      if (options.includeDeleted) request.include_deleted = true;
      const answer = await client().search(request);
      if (options.json) json(answer);
      else out(renderSearch(answer, paint));
    });

  program
    .command('ingest')
    .description('upload every file under a folder; resumable: versions already held are skipped')
    .argument('<dir>')
    .option('--concurrency <n>', 'uploads in flight', number('--concurrency'), 4)
    .option('--metadata <key=value>', 'custom metadata for every file, repeatable', pairs('--metadata'))
    .option('--poll-ms <ms>', 'how often each job is polled', number('--poll-ms'), 1000)
    .action(async (dir: string, options) => {
      if (!Number.isInteger(options.concurrency) || options.concurrency < 1) throw new UsageError('--concurrency takes a whole number of at least 1');
      const metadata = Object.fromEntries(options.metadata ?? []);
      const report = await ingestFolder(client(), dir, { concurrency: options.concurrency, metadata, pollMs: options.pollMs, progressStream: io.stderr, paint });
      out(renderIngestReport(report, paint));
      if (report.outcomes.some((outcome) => outcome.status !== 'completed')) process.exitCode = 1;
    });

  program
    .command('docs')
    .description('list documents')
    .option('--filter <key=value>', 'metadata filter, repeatable (e.g. metadata.custom.branch=KL)', pairs('--filter'))
    .option('--limit <n>', 'documents per page (1 to 1000)', number('--limit'), 50)
    .option('--offset <n>', 'documents to skip', number('--offset'), 0)
    .option('--all', 'every page')
    .option('--include-deleted', 'include soft-deleted documents')
    .option('--json', 'print the page(s) as JSON')
    .action(async (options) => {
      const listing = { pageSize: options.limit, includeDeleted: options.includeDeleted === true, metadataFilter: filtersOf(options.filter) as Record<string, string | number | boolean> };
      const search = client();
      if (options.all) {
        const documents = [];
        for await (const summary of search.documents(listing)) documents.push(summary);
        if (options.json) json(documents);
        else out(renderDocuments(documents, documents.length, paint));
        return;
      }
      const page = await search.documentPage({ ...listing, offset: options.offset });
      if (options.json) json(page);
      else out(renderDocuments(page.documents, page.total, paint));
    });

  program
    .command('status')
    .description("show a job's status")
    .argument('<job_id>')
    .option('--wait', 'poll until the job is terminal')
    .action(async (jobId: string, options) => {
      const job = options.wait ? await client().waitForJob(jobId) : await client().status(jobId);
      json(job);
      if (['failed', 'partial_failed'].includes(job.status)) process.exitCode = 1;
    });

  program
    .command('update')
    .description('correct custom metadata (merge patch) or the filename; queued as a job')
    .argument('<document_id>')
    .option('--set <key=value>', 'set a custom metadata key, repeatable', pairs('--set'))
    .option('--unset <key>', 'remove a custom metadata key, repeatable', (key: string, previous: string[] = []) => [...previous, key])
    .option('--filename <name>', 'rename the source file')
    .option('--version <version_id>', 'only this version')
    .option('--wait', 'wait for the job to end')
    .action(async (documentId: string, options) => {
      const metadata: Record<string, unknown> = {};
      for (const [key, text] of (options.set ?? []) as [string, string][]) metadata[key] = typedValue(text);
      for (const key of (options.unset ?? []) as string[]) metadata[key] = null;
      if (Object.keys(metadata).length === 0 && options.filename === undefined) throw new UsageError('update needs --set, --unset or --filename');
      const request: UpdateRequest = { document_id: documentId, ...(Object.keys(metadata).length > 0 && { metadata }), ...(options.filename !== undefined && { filename: options.filename }), ...(options.version !== undefined && { version_id: options.version }) };
      const search = client();
      const accepted = await search.update(request);
      if (!options.wait) {
        json(accepted);
        return;
      }
      const job = await search.waitForJob(accepted.job_id);
      json(job);
      if (job.status !== 'completed') process.exitCode = 1;
    });

  program
    .command('delete')
    .description('soft-delete a document (restorable), or purge it with --hard')
    .argument('<document_id>')
    .option('--version <version_id>', 'only this version')
    .option('--hard', 'remove for good')
    
    .action(async (documentId: string, options) => json(await client().delete(documentId, { versionId: options.version, mode: options.hard ? 'hard' : 'soft' })));

  program
    .command('restore')
    .description('restore a soft-deleted document')
    .argument('<document_id>')
    .option('--version <version_id>', 'only this version')
    .action(async (documentId: string, options) => json(await client().restore(documentId, { versionId: options.version })));

  const operator = async (call: Parameters<typeof operatorCall>[2]) => {
    const answer = await operatorCall(serviceUrl(connection(), io.env), operatorKey(connection(), io.env), call);
    json(answer.body);
    if (!answer.ok) process.exitCode = 1;
  };
  program.command('authority').description('operator: the publication authority and this api process').action(() => operator({ method: 'GET', path: '/admin/authority' }));
  program
    .command('mode')
    .description('operator: change the publication authority mode')
    .addArgument(new Argument('<mode>').choices(AUTHORITY_MODES))
    .action((mode: string) => operator({ method: 'POST', path: '/admin/authority/mode', body: { mode } }));
  program
    .command('backfill')
    .description("operator: start a Client's metadata backfill")
    .argument('<client_id>')
    .action((clientId: string) => operator({ method: 'POST', path: '/admin/backfill', body: { client_id: clientId } }));
  return program;
}

/** Runs the CLI on `argv` (as process.argv: node, script, arguments...) and resolves with its exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv]);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2; // help, version: 0; wrong usage: 2
    if (error instanceof UsageError) {
      io.stderr.write(`usage: ${error.message}\n`);
      return 2;
    }
    if (error instanceof SearchServiceError) {
      io.stderr.write(`error: ${error.message}${error.requestId ? ` (request ${error.requestId})` : ''}\n`);
      return 1;
    }
    io.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
