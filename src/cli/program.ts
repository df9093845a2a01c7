// The CLI's commands (commander): a person's commands over the typed client (ingest, upload, search, docs,
// status, update, delete, restore, and `synonyms get|set` and `similar`, synonyms.ts) and the operator's over /admin (authority, mode, backfill, and `admin clients|keys`, admin.ts). Every command
// prints for a person by default and the service's JSON with --json. Exit codes: 0 done, 1 refused or failed
// (the envelope, its details, or the failures are printed), 2 wrong usage.

import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { Argument, Command, CommanderError, Option } from 'commander';
import { createSearchClient, filtersFromPairs, SearchServiceError, typedValue } from '../../clients/typescript/src/index.ts';
import type { JobStatus, SearchClient, SearchRequest, UpdateRequest } from '../../clients/typescript/src/index.ts';
import { assumedRateLimit, clientKey, ConnectionError, operatorKey, serviceUrl, UsageError } from './connection.ts';
import type { ConnectionOptions } from './connection.ts';
import { fileToUpload, ingestFolder, renderIngestReport } from './ingest.ts';
import { JobWatch, POLL_FIRST_MS } from './job-watch.ts';
import { operatorCall, AUTHORITY_MODES } from './operator.ts';
import { addAdminDataCommands } from './admin-data.ts';
import type { DeploymentFiles } from './admin-data.ts';
import { registerAdminCommands } from './admin.ts';
import { registerSynonymCommands } from './synonyms.ts';
import { errorText, outputWidth, paintFor, renderDeletion, renderDocuments, renderJob, renderRestore, renderSearch } from './render.ts';
import { budgetedFetch, RequestBudget } from './request-budget.ts';
import { webhookCommands } from './webhooks.ts';
import { facetOption, renderFacets, sortOption } from './search-options.ts';

/** The package's version, as the service's health reports its own (read here: src/version.ts is the root's). */
const CLI_VERSION: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
/** How many times the client repeats a read refused with a 503's Retry-After (the 429s are the budget's). */
const CLI_RETRIES = 5;
/** A wait for the rate limit shorter than this goes unsaid. */
const RATE_WAIT_SHOWN_MS = 1_000;
/** A job that ended in one of these makes the command exit 1. */
const FAILED_JOB_STATES = new Set(['failed', 'partial_failed']);

export interface CliIo {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
  /** Backup and restore of an embedded deployment's files (src/cli.ts hands them in; absent, those commands refuse). */
  files?: DeploymentFiles;
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

function wholeNumber(label: string, least: number) {
  return (text: string): number => {
    const value = number(label)(text);
    if (!Number.isInteger(value) || value < least) throw new UsageError(`${label} takes a whole number of at least ${least}, not ${JSON.stringify(text)}`);
    return value;
  };
}

/** The client, the budget its requests keep to and the job watch, made once per run. */
interface Session {
  client: SearchClient;
  budget: RequestBudget;
  watch: JobWatch;
}

export function buildProgram(io: CliIo): Command {
  const out = (text: string) => void io.stdout.write(text);
  const paint = paintFor(io.stdout);
  const width = () => outputWidth(io.stdout, io.env);
  const program = new Command('hds')
    .description('Search, upload and manage documents of the hybrid document search service. `hds --version` prints its version.')
    .option('--url <url>', 'the service (default: HDS_URL, else HOST and PORT)')
    .option('--key <key>', 'API key (default: HDS_API_KEY, else the first of API_KEY_CLIENTS; operator commands: OPERATOR_API_KEYS)')
    .option('--rate-limit <n>', "requests a minute the Client may send, until the service tells its limit (default: this machine's RATE_LIMIT_PER_MINUTE, 30)", wholeNumber('--rate-limit', 1))
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) });
  const connection = (): ConnectionOptions => program.opts<ConnectionOptions>();
  let session: Session | null = null;
  const open = (firstPauseMs = POLL_FIRST_MS): Session => {
    if (session) return session;
    const url = serviceUrl(connection(), io.env);
    const budget = new RequestBudget(assumedRateLimit(connection(), io.env));
    budget.onWait = (ms) => {
      if (ms >= RATE_WAIT_SHOWN_MS) io.stderr.write(`waiting ${Math.ceil(ms / 1000)} s for the rate limit\n`);
    };
    const client = createSearchClient({ baseUrl: url, apiKey: clientKey(connection(), io.env), retries: CLI_RETRIES, fetch: budgetedFetch(budget, url) });
    session = { client, budget, watch: new JobWatch(client, firstPauseMs) };
    return session;
  };
  const client = () => open().client;
  const json = (value: unknown): void => out(`${JSON.stringify(value, null, 2)}\n`);
  const showJob = (job: JobStatus, asJson: boolean) => {
    if (asJson) json(job);
    else out(renderJob(job, paint));
    if (FAILED_JOB_STATES.has(job.status)) process.exitCode = 1;
  };

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
    .option('--facet <path>', 'count the matches by a path, repeatable (e.g. metadata.custom.branch, created_at:month)', facetOption)
    .option('--facet-limit <n>', 'values shown per facet (1 to 100)', number('--facet-limit'))
    .option('--sort <field:order>', 'order every match by a field, repeatable (e.g. created_at:desc)', sortOption)
    .option('--json', 'print the answer as JSON')
    .action(async (query: string, options) => {
      const request: SearchRequest = { query, scope: options.scope, limit: options.limit, offset: options.offset, highlight: true, filters: filtersOf(options.filter) };
      if (options.alpha !== undefined) request.alpha = options.alpha;
      if (options.rerank) request.rerank = true;
      if (options.includeDeleted) request.include_deleted = true;
      if (options.facet) request.facets = options.facet;
      if (options.facetLimit !== undefined) request.facet_limit = options.facetLimit;
      if (options.sort) request.sort = options.sort;
      const answer = await client().search(request);
      if (options.json) json(answer);
      else out(renderSearch(answer, paint, width()) + renderFacets(answer.meta.facets, paint));
    });

  registerSynonymCommands(program, {
    client,
    print: (answer, asJson, forPerson) => (asJson ? json(answer) : out(forPerson())),
    renderRows: (answer) => renderSearch(answer, paint, width()),
    filters: filtersOf,
    pairs: pairs('--filter'),
    limit: wholeNumber('--limit', 1),
  });

  program
    .command('ingest')
    .description('upload every file under a folder and wait for each job; resumable: versions already held are skipped')
    .argument('<dir>')
    .option('--concurrency <n>', 'uploads in flight', wholeNumber('--concurrency', 1), 4)
    .option('--metadata <key=value>', 'custom metadata for every file, repeatable', pairs('--metadata'))
    .option('--poll-ms <ms>', 'the first pause before a job is asked about; pauses grow from there', wholeNumber('--poll-ms', 1), POLL_FIRST_MS)
    .option('--json', 'print the outcome of every file as JSON (no progress bar)')
    .action(async (dir: string, options) => {
      const metadata = Object.fromEntries(options.metadata ?? []);
      const { client, watch, budget } = open(options.pollMs);
      // The progress bar shows the waits itself (a --json run has no bar: its waits are said on stderr).
      if (!options.json && io.stderr.isTTY) budget.onWait = null;
      const report = await ingestFolder(client, watch, budget, dir, { concurrency: options.concurrency, metadata, progressStream: io.stderr, quiet: options.json === true });
      if (options.json) json(report);
      else out(renderIngestReport(report, paint, width()));
      if (report.outcomes.some((outcome) => outcome.status !== 'completed')) process.exitCode = 1;
    });

  program
    .command('upload')
    .description('upload one file (as document <file name> unless --document) and wait for its job')
    .argument('<file>')
    .option('--document <document_id>', 'the document id (default: the file name)')
    .option('--version <version_id>', "the version id (default: the first 16 hex of the file's SHA-256)")
    .option('--metadata <key=value>', 'custom metadata, repeatable', pairs('--metadata'))
    .option('--no-wait', 'print the accepted job and return')
    .option('--json', 'print the job as JSON')
    .action(async (path: string, options) => {
      const file = fileToUpload(path, options.document, options.version);
      const metadata = Object.fromEntries(options.metadata ?? []);
      const { client, watch } = open();
      const accepted = await client.uploadFile({ documentId: file.documentId, versionId: file.versionId, file: file.bytes, filename: basename(path), metadata: Object.keys(metadata).length ? metadata : undefined });
      if (options.wait) showJob(await watch.terminal(accepted.job_id), options.json === true);
      else if (options.json) json(accepted);
      else out(`${file.documentId}: queued as job ${accepted.job_id} (hds status ${accepted.job_id} --wait)\n`);
    });

  program
    .command('docs')
    .description('list documents')
    .option('--filter <key=value>', 'metadata filter, repeatable (e.g. metadata.custom.branch=KL)', pairs('--filter'))
    .option('--limit <n>', 'documents per page (1 to 1000)', number('--limit'), 50)
    .option('--offset <n>', 'documents to skip', number('--offset'), 0)
    .option('--all', 'every page')
    .option('--include-deleted', 'include soft-deleted documents (a DELETED column says which)')
    .option('--json', 'print the page(s) as JSON')
    .action(async (options) => {
      const includeDeleted = options.includeDeleted === true;
      const listing = { pageSize: options.limit, includeDeleted, metadataFilter: filtersOf(options.filter) as Record<string, string | number | boolean> };
      const search = client();
      if (options.all) {
        const documents = [];
        for await (const summary of search.documents(listing)) documents.push(summary);
        if (options.json) json(documents);
        else out(renderDocuments(documents, documents.length, paint, width(), includeDeleted));
        return;
      }
      const page = await search.documentPage({ ...listing, offset: options.offset });
      if (options.json) json(page);
      else out(renderDocuments(page.documents, page.total, paint, width(), includeDeleted));
    });

  program
    .command('status')
    .description("show a job's status")
    .argument('<job_id>')
    .option('--wait', 'ask again, at growing intervals, until the job is terminal')
    .option('--json', 'print the status as JSON')
    .action(async (jobId: string, options) => {
      const { client, watch } = open();
      showJob(options.wait ? await watch.terminal(jobId) : await client.status(jobId), options.json === true);
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
    .option('--json', 'print the accepted job (or, with --wait, its end) as JSON')
    .action(async (documentId: string, options) => {
      const metadata: Record<string, unknown> = {};
      for (const [key, text] of (options.set ?? []) as [string, string][]) metadata[key] = typedValue(text);
      for (const key of (options.unset ?? []) as string[]) metadata[key] = null;
      if (Object.keys(metadata).length === 0 && options.filename === undefined) throw new UsageError('update needs --set, --unset or --filename');
      const request: UpdateRequest = { document_id: documentId, ...(Object.keys(metadata).length > 0 && { metadata }), ...(options.filename !== undefined && { filename: options.filename }), ...(options.version !== undefined && { version_id: options.version }) };
      const { client, watch } = open();
      const accepted = await client.update(request);
      if (options.wait) {
        const job = await watch.terminal(accepted.job_id);
        showJob(job, options.json === true);
        if (job.status !== 'completed') process.exitCode = 1;
      } else if (options.json) json(accepted);
      else out(`update of ${documentId} queued as job ${accepted.job_id} (hds status ${accepted.job_id} --wait)\n`);
    });

  program
    .command('delete')
    .description('soft-delete a document (restorable), or purge it with --hard')
    .argument('<document_id>')
    .option('--version <version_id>', 'only this version')
    .option('--hard', 'remove for good')
    .option('--json', 'print the answer as JSON')
    .action(async (documentId: string, options) => {
      const result = await client().delete(documentId, { versionId: options.version, mode: options.hard ? 'hard' : 'soft' });
      if (options.json) json(result);
      else out(renderDeletion(result));
    });

  program
    .command('restore')
    .description('restore a soft-deleted document')
    .argument('<document_id>')
    .option('--version <version_id>', 'only this version')
    .option('--json', 'print the answer as JSON')
    .action(async (documentId: string, options) => {
      const search = client();
      let result;
      try {
        result = await search.restore(documentId, { versionId: options.version });
      } catch (error) {
        throw await restoreRefusal(search, documentId, options.version, error);
      }
      if (options.json) json(result);
      else out(renderRestore(result));
    });

  program.addCommand(webhookCommands({ client, out, paint }));

  const operator = async (call: Parameters<typeof operatorCall>[2], asJson: boolean) => {
    const answer = await operatorCall(serviceUrl(connection(), io.env), operatorKey(connection(), io.env), call);
    if (asJson) json(answer);
    else out(renderFields(answer, paint));
  };
  program
    .command('authority')
    .description('operator: the publication authority and this api process')
    .option('--json', 'print the answer as JSON')
    .action((options) => operator({ method: 'GET', path: '/admin/authority' }, options.json === true));
  program
    .command('mode')
    .description('operator: change the publication authority mode')
    .addArgument(new Argument('<mode>').choices(AUTHORITY_MODES))
    .option('--json', 'print the answer as JSON')
    .action((mode: string, options) => operator({ method: 'POST', path: '/admin/authority/mode', body: { mode } }, options.json === true));
  program
    .command('backfill')
    .description("operator: start a Client's metadata backfill")
    .argument('<client_id>')
    .option('--json', 'print the backfill job as JSON')
    .action((clientId: string, options) => operator({ method: 'POST', path: '/admin/backfill', body: { client_id: clientId } }, options.json === true));
  const admin = program.command('admin').description('operator: Clients and keys, backups and restores, exports and imports of a Client');
  addAdminDataCommands(admin, { env: io.env, connection, files: io.files, print: (value, asJson) => (asJson ? json(value) : out(renderFields(value, paint))) });
  registerAdminCommands(
    admin,
    async (call, render, asJson) => {
      const answer = await operatorCall(serviceUrl(connection(), io.env), operatorKey(connection(), io.env), call);
      out(asJson ? `${JSON.stringify(answer, null, 2)}\n` : render(answer));
    },
    (answer) => renderFields(answer, paint),
    paint,
    (text) => void io.stderr.write(text),
  );
  return program;
}

/** An object's fields as `field  value` lines (nested values as compact JSON). */
function renderFields(body: Record<string, unknown>, paint: ReturnType<typeof paintFor>): string {
  const entries = Object.entries(body).filter(([, value]) => value !== null && value !== undefined);
  const width = Math.max(0, ...entries.map(([key]) => key.length));
  return `${entries.map(([key, value]) => `${paint('dim', key.padEnd(width))}  ${typeof value === 'string' ? value : JSON.stringify(value)}`).join('\n')}\n`;
}

/**
 * The service answers a restore of a document that is not soft-deleted with 404 "Document not found", the same as
 * for one it does not hold. A person needs to know which: when the document can still be read, it is active.
 */
async function restoreRefusal(client: SearchClient, documentId: string, versionId: string | undefined, error: unknown): Promise<unknown> {
  if (!(error instanceof SearchServiceError) || error.status !== 404) return error;
  const active = await client.text(documentId).then(
    () => true,
    () => false,
  );
  if (!active) return new NotRestorable(`${documentId}${versionId ? ` (version ${versionId})` : ''}: no such document, active or deleted`, error);
  return new NotRestorable(`${documentId}${versionId ? ` (version ${versionId})` : ''} is not deleted: nothing to restore`, error);
}

/** A restore refused for a reason the 404 alone does not say; `refusal` is what the service answered. */
class NotRestorable extends Error {
  readonly refusal: SearchServiceError;
  constructor(message: string, refusal: SearchServiceError) {
    super(message);
    this.name = 'NotRestorable';
    this.refusal = refusal;
  }
}

const envelopeOf = (error: SearchServiceError) => ({ detail: error.detail, error_code: error.code, request_id: error.requestId, ...(error.details !== undefined && { details: error.details }) });

/** Runs the CLI on `argv` (as process.argv: node, script, arguments...) and resolves with its exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const args = argv.slice(2);
  // Subcommands take a --version of their own (a version id), so only a leading one asks for the CLI's.
  if (args[0] === '--version' || args[0] === '-V') {
    io.stdout.write(`hds ${CLI_VERSION}\n`);
    return 0;
  }
  const program = buildProgram(io);
  const asJson = args.includes('--json');
  try {
    await program.parseAsync([...argv]);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2; // help: 0; wrong usage: 2
    if (error instanceof UsageError) {
      io.stderr.write(`usage: ${error.message}\n(run with --help for usage)\n`);
      return 2;
    }
    const refusal = error instanceof NotRestorable ? error.refusal : error instanceof SearchServiceError ? error : null;
    if (refusal && asJson) io.stdout.write(`${JSON.stringify(envelopeOf(refusal), null, 2)}\n`);
    if (error instanceof SearchServiceError) {
      io.stderr.write(`error: ${errorText(error)}${error.requestId ? ` [request ${error.requestId}]` : ''}\n`);
      return 1;
    }
    if (error instanceof ConnectionError || error instanceof NotRestorable) {
      io.stderr.write(`error: ${error.message}\n`);
      return 1;
    }
    io.stderr.write(`error: ${errorText(error)}\n`);
    return 1;
  }
}
