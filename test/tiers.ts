// The test tiers and which folder (or, where a folder is mixed, which file) belongs to each. `npm test` runs the
// tiers in TIER_ORDER through test/run-tiers.ts, `npm run test:<tier>` one of them. A test file no row places
// belongs to no tier and would never run: the runner refuses to start then, and test/tiers.test.ts fails.
//
// A folder row covers the folder and everything below it; a file row wins over its folder's row. Folders whose
// files are mixed default to the heavier tier, so that a file another branch adds there runs somewhere that
// allows what it does; the unit tier's guard (test/helpers/unit-guard.ts) fails a file placed in unit that
// opens a database, starts a process or thread, or listens or connects.

import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export const TIERS = ['unit', 'integration', 'store', 'e2e', 'browser', 'disk', 'serial'] as const;
export type Tier = (typeof TIERS)[number];

export const TIER_MEANING: Record<Tier, string> = {
  unit: 'pure: no database, no process or thread, no socket',
  integration: 'real threads, child processes (OCR, office readers, graph builds) and fake outside services on local HTTP; no store',
  store: 'real SQLite and PostgreSQL (a throwaway cluster), services in the test process; no service over HTTP',
  e2e: 'the real service (supervisor, api and worker processes) over HTTP, on SQLite and (but for the files above the store) again on PostgreSQL',
  browser: 'the web console and API reference in Chromium against the real service',
  disk: 'full disks (a tmpfs per store), once each on the store it fills',
  serial: 'measurements that need the machine to themselves, one file at a time',
};

/** Paths relative to the checkout, with '/' separators; a key ending in '/' is a folder. */
export const PLACES: Record<string, Tier> = {
  'test/architecture.test.ts': 'unit',
  'test/config-limits.test.ts': 'unit',
  'test/config.test.ts': 'unit',
  'test/docs.test.ts': 'unit',
  'test/log-lines.test.ts': 'unit',
  'test/spec-limits.test.ts': 'unit',
  'test/supervisor-link.test.ts': 'unit',
  'test/fault-points.test.ts': 'unit',
  'test/fault-holds.test.ts': 'integration', // the preload in processes of its own
  'test/tiers.test.ts': 'unit',
  'test/unit-guard.test.ts': 'integration', // starts node --test runs under the guard to see it refuse

  'test/classify/': 'unit',
  'test/cli/': 'unit',
  'test/cli/request-budget.test.ts': 'integration', // a fake service on local HTTP
  'test/client/': 'unit',
  'test/client/service-budget.test.ts': 'integration', // a fake service on local HTTP
  'test/domain/': 'unit',
  'test/entities/': 'unit',
  'test/text/': 'unit',

  'test/console/': 'unit',
  'test/console/budget.test.ts': 'integration', // a fake service on local HTTP

  'test/bench/': 'unit', // the benchmarks' own helpers (bench/), pure

  'test/search/': 'unit',
  'test/search/chunk-texts.test.ts': 'store',

  'test/models/': 'unit',
  'test/models/factory.test.ts': 'integration', // fake providers on local HTTP
  'test/models/http-reranker.test.ts': 'integration',
  'test/models/openai-embedder.test.ts': 'integration',

  'test/http/': 'unit',
  'test/http/rate-limit.test.ts': 'store',
  'test/http/response-serialization.test.ts': 'store', // the api and worker in the test process, on SQLite

  // Most of ingest runs OCR and office readers as child processes, or parses on threads.
  'test/ingest/': 'integration',
  'test/ingest/charset.test.ts': 'unit',
  'test/ingest/chunk.test.ts': 'unit',
  'test/ingest/csv-records.test.ts': 'unit',
  'test/ingest/detect.test.ts': 'unit',
  'test/ingest/guards.test.ts': 'unit',
  'test/ingest/language.test.ts': 'unit',
  'test/ingest/ocr-tsv.test.ts': 'unit',
  'test/ingest/pdf-text-layer.test.ts': 'unit',

  'test/serving/': 'store',
  'test/serving/distinct-rows.test.ts': 'unit',
  'test/serving/memory-estimate.test.ts': 'unit',
  'test/serving/shared-values.test.ts': 'unit',
  'test/serving/snapshot.test.ts': 'unit',
  'test/serving/merge-policy.test.ts': 'unit',
  'test/serving/memory-pressure.test.ts': 'integration',
  'test/serving/graph-builder.test.ts': 'integration',
  'test/serving/threaded-graph-walks.test.ts': 'integration',

  'test/jobs/': 'store',
  'test/jobs/upload-integrity.test.ts': 'unit',
  'test/jobs/threaded-lanes.test.ts': 'integration',

  'test/health/': 'store',
  'test/publication/': 'store',
  'test/services/': 'store',
  'test/storage/': 'store',
  'test/runtime/': 'integration', // real threads
  'test/runtime/connection-shares.test.ts': 'unit',
  'test/runtime/fresh-reads.test.ts': 'unit',
  'test/runtime/spare-cores.test.ts': 'unit',
  'test/webhooks/': 'integration', // a receiver on local HTTP

  'test/e2e/': 'e2e',
  'test/browser/': 'browser',
  'test/disk/': 'disk',
  'test/serial/': 'serial',
};

/**
 * End-to-end files whose subject lies above or beside the store: the HTTP contract's shape (validation, hostile
 * requests, the fuzzer, auth, OpenAPI, rate limits), HTTP connections across api processes (keep-alive balance
 * after a restart, the drain of a graceful stop), the CLI, the typed client and the console's walk of a document's
 * versions, the outside providers (web search, a remote embedder and reranker), the log lines (the supervisor's,
 * the audit events) and the api process's memory view, the env file, parsing (the corpus sample, workbooks as
 * pages, the limits on large documents and the memory they leave: each way a job fails is stored by job-outcomes
 * on both stores), scoring in the api process's own segments (chunk languages, similar documents, the metadata
 * lane's scope and rules, the content lane's rules, filters never moving rank: the full-precision vectors that
 * rescoring reads are test/storage/contract-generations.test.ts's on both adapters), webhook deliveries (their
 * outbox and its leases are test/storage/contract-webhooks.test.ts's on both adapters), and the operations
 * routes (/metrics, MAINTENANCE, a bad setting at start; health.test.ts probes each store's components on
 * both). They run once, on SQLite; the postgres step runs every other
 * e2e file again. What the store does under them is the store tier's contract (test/storage/, on both adapters)
 * and the e2e files that stay on both stores (publication, followers, processes, consistency, deletes, backups,
 * transfer, facets and sorting). A new e2e file runs on both stores until it is named here.
 */
export const E2E_ABOVE_THE_STORE: ReadonlySet<string> = new Set([
  'test/e2e/audit-log.test.ts',
  'test/e2e/auth.test.ts',
  'test/e2e/chunk-language.test.ts',
  'test/e2e/cli-admin.test.ts',
  'test/e2e/cli-people.test.ts',
  'test/e2e/cli-rate-limit.test.ts',
  'test/e2e/cli-synonyms.test.ts',
  'test/e2e/cli.test.ts',
  'test/e2e/connection-balance.test.ts',
  'test/e2e/console-versions.test.ts',
  'test/e2e/corpus-ingest.test.ts',
  'test/e2e/env-file.test.ts',
  'test/e2e/filter-rank.test.ts',
  'test/e2e/fuzz.test.ts',
  'test/e2e/graceful-stop.test.ts',
  'test/e2e/hostile-requests.test.ts',
  'test/e2e/large-documents.test.ts',
  'test/e2e/metadata-scope.test.ts',
  'test/e2e/network-reads.test.ts',
  'test/e2e/observability.test.ts',
  'test/e2e/openapi.test.ts',
  'test/e2e/operations.test.ts',
  'test/e2e/operator-memory.test.ts',
  'test/e2e/rate-limit.test.ts',
  'test/e2e/rules.test.ts',
  'test/e2e/search-rules.test.ts',
  'test/e2e/sheets.test.ts',
  'test/e2e/similar.test.ts',
  'test/e2e/supervisor-lines.test.ts',
  'test/e2e/typescript-client-package.test.ts',
  'test/e2e/typescript-client.test.ts',
  'test/e2e/validation.test.ts',
  'test/e2e/web-search.test.ts',
  'test/e2e/webhooks.test.ts',
]);

/**
 * Files that spend most of their time waiting out SPEC.md's rate-limit window (a sliding minute) at a small limit or
 * the default one, computing little meanwhile: the CLI's and the typed client's budgets, and the console's. They run
 * apart from their steps, all at once in a run of their own that starts with the first chosen step holding one
 * (the e2e step under `npm test`) and goes on beside the steps after it, so that their minutes of waiting overlap
 * work instead of holding the slots the other files compute in. Those of the e2e tier lie above the store.
 */
export const ON_THE_CLOCK: ReadonlySet<string> = new Set(['test/e2e/cli-rate-limit.test.ts', 'test/e2e/typescript-client.test.ts', 'test/browser/console-budget.test.ts']);

/**
 * The files that take longest in their step (many services each, services of several processes, a graph built or a
 * corpus parsed), longest first within each step, started before the others of their step: a run at a few files at
 * once otherwise ends waiting for a long file that began late (the unit step for its HNSW build, the integration
 * step for its corpus).
 */
export const STARTED_FIRST: readonly string[] = [
  'test/search/dense-lane.test.ts',
  'test/search/bm25-quality.test.ts',
  'test/search/bm25-pruned.test.ts',
  'test/ingest/corpus.test.ts',
  'test/ingest/deskew.test.ts',
  'test/ingest/limits.test.ts',
  'test/ingest/isolation.test.ts',
  'test/storage/contract-shared.test.ts',
  'test/health/health-probes.test.ts',
  'test/e2e/processes.test.ts',
  'test/e2e/webhooks.test.ts',
  'test/e2e/runtime-keys.test.ts',
  'test/e2e/corpus-ingest.test.ts',
  'test/e2e/cli-people.test.ts',
  'test/e2e/job-outcomes.test.ts',
  'test/e2e/backfill.test.ts',
  'test/e2e/filter-rank.test.ts',
  'test/e2e/lifecycle.test.ts',
  'test/e2e/client-transfer.test.ts',
  'test/e2e/hard-delete-erasure.test.ts',
];

/** A step's files in the order a run starts them: the long ones first, then the rest as they come. */
export function inStartOrder(files: readonly string[]): string[] {
  const first = STARTED_FIRST.filter((file) => files.includes(file));
  return [...first, ...files.filter((file) => !first.includes(file))];
}

/** A step's files split into those on the clock (run beside the steps) and the rest, in start order. */
export function offTheClock(files: readonly string[]): { rest: string[]; clock: string[] } {
  return { rest: inStartOrder(files.filter((file) => !ON_THE_CLOCK.has(file))), clock: files.filter((file) => ON_THE_CLOCK.has(file)) };
}

/** The e2e files the postgres step runs: all but those above the store. */
export function postgresE2e(e2eFiles: readonly string[]): string[] {
  return inStartOrder(e2eFiles.filter((file) => !E2E_ABOVE_THE_STORE.has(file)));
}

/** What a test file is called: node --test's files, and the serial suites that run one at a time. */
export function isTestFile(path: string): boolean {
  return path.endsWith('.test.ts') || (path.startsWith('test/serial/') && path.endsWith('.serial.ts'));
}

/** Every test file under test/, relative to `root`, sorted. */
export function testFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else {
        const rel = relative(root, path).split(sep).join('/');
        if (isTestFile(rel)) found.push(rel);
      }
    }
  };
  walk(join(root, 'test'));
  return found.sort();
}

/** The tier of a test file: its own row, else the row of the nearest folder above it, else null. */
export function tierOf(path: string, places: Record<string, Tier> = PLACES): Tier | null {
  if (places[path]) return places[path];
  for (let cut = path.lastIndexOf('/'); cut > 0; cut = path.lastIndexOf('/', cut - 1)) {
    const folder = places[path.slice(0, cut + 1)];
    if (folder) return folder;
  }
  return null;
}

export interface Placement {
  byTier: Record<Tier, string[]>;
  /** Test files no row places. */
  unplaced: string[];
  /** File rows naming no test file (renamed or removed): the row would place nothing. */
  stale: string[];
}

export function place(files: readonly string[], places: Record<string, Tier> = PLACES): Placement {
  const byTier = Object.fromEntries(TIERS.map((tier) => [tier, [] as string[]])) as Record<Tier, string[]>;
  const unplaced: string[] = [];
  for (const file of files) {
    const tier = tierOf(file, places);
    if (tier) byTier[tier].push(file);
    else unplaced.push(file);
  }
  const present = new Set(files);
  const stale = Object.keys(places).filter((key) => !key.endsWith('/') && !present.has(key));
  return { byTier, unplaced, stale };
}
