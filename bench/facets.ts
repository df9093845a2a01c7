// Facets and sorting at CHUNKS chunks in one Client, in-process (an api of this process, no worker, searched by
// direct calls): p50/p95 of a content search (default alpha, limit 10) alone, with three facets (a custom string,
// a custom ISO date by month, source.extension), sorted by a custom number, and both; each against the plain
// search, with how many versions the searches matched (what facets count and sorting orders). Every query runs
// every variant in turn, the order rotated per query, so a drift of the machine weighs on all of them alike.
// Usage: node bench/facets.ts [chunks=100000] [queries=200]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDataset } from './datasets.ts';
import { percentile } from './stats.ts';
import { benchEnv, startInProcess } from './bench-service.ts';
import { seedScifactChunks } from './seed-store.ts';
import { loadConfig } from '../src/config.ts';
import { parseFacets } from '../src/search/facets.ts';
import { parseSort } from '../src/search/sort.ts';
import type { SearchRequest } from '../src/search/search-service.ts';

const CLIENT = 'facets-client';
const KEY = 'facets-key';
const TEAMS = ['ops', 'finance', 'audit', 'treasury', 'credit', 'retail', 'legal'];
const WARM_UP_QUERIES = 50;

const FACETS = parseFacets(['metadata.custom.team', { field: 'metadata.custom.due', interval: 'month' }, 'source.extension'], ['bench']);
const SORT = parseSort([{ field: 'metadata.custom.amount', order: 'desc' }], ['bench']);
const VARIANTS: Record<string, Partial<SearchRequest>> = {
  plain: {},
  'three facets': { facets: FACETS, facetLimit: 10 },
  'sort by amount': { sort: SORT },
  'sort + three facets': { facets: FACETS, facetLimit: 10, sort: SORT },
};

/** Custom metadata of the nth seeded document: a team, an amount (missing on one in ten) and a due date. */
function customOf(n: number): Record<string, string | number> {
  const custom: Record<string, string | number> = { team: TEAMS[n % TEAMS.length], due: `2026-${String(1 + (n % 12)).padStart(2, '0')}-${String(1 + (n % 28)).padStart(2, '0')}` };
  if (n % 10 !== 9) custom.amount = (n * 7919) % 10_000;
  return custom;
}

const targetChunks = Number(process.argv[2] ?? 100_000);
const queryCount = Number(process.argv[3] ?? 200);
const dataDir = mkdtempSync(join(tmpdir(), 'hds-facets-'));
try {
  const seededFrom = performance.now();
  const seeded = await seedScifactChunks(dataDir, CLIENT, targetChunks, 'doc-', undefined, customOf);
  console.log(`wrote ${seeded.chunks} chunks in ${seeded.documents} versions in ${((performance.now() - seededFrom) / 1000).toFixed(1)} s`);
  const service = await startInProcess(loadConfig(benchEnv(dataDir, CLIENT, KEY)), { worker: false });
  try {
    const queries = [...loadDataset('scifact', 'train.tsv').queries.values()].slice(0, queryCount);
    const search = (query: string, variant: Partial<SearchRequest>) =>
      service.services.search.search(CLIENT, { query, scope: 'content', alpha: undefined, limit: 10, offset: 0, filters: {}, rerank: false, topKRerank: 20, includeDeleted: false, highlight: false, ...variant });
    // The Client loads on its first search; a large one may answer 503 while it does (READ_CATCH_UP_TIMEOUT_MS).
    for (;;) {
      try {
        await search(queries[0], {});
        break;
      } catch (error) {
        if ((error as { code?: string }).code !== 'publication_unavailable') throw error;
      }
    }
    await service.services.serving.annSettled();
    const names = Object.keys(VARIANTS);
    for (const query of queries.slice(0, WARM_UP_QUERIES)) for (const name of names) await search(query, VARIANTS[name]);
    const times: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
    const matched: number[] = [];
    let lowerBounds = 0;
    for (const [q, query] of queries.entries()) {
      for (let k = 0; k < names.length; k++) {
        const name = names[(q + k) % names.length];
        const started = performance.now();
        const answer = await search(query, VARIANTS[name]);
        times[name].push(performance.now() - started);
        if (name === 'plain') {
          matched.push(answer.meta.total);
          if (answer.meta.total_is_lower_bound) lowerBounds++;
        }
      }
    }
    console.log(`${queries.length} SciFact queries; versions matched per search: p50 ${percentile(matched, 50)}, max ${Math.max(...matched)}; ${lowerBounds} totals a lower bound (a lane at its candidate cap)`);
    const plain50 = percentile(times.plain, 50);
    const plain95 = percentile(times.plain, 95);
    for (const name of names) {
      const p50 = percentile(times[name], 50);
      const p95 = percentile(times[name], 95);
      console.log(`${name.padEnd(22)} p50 ${p50.toFixed(2)} ms  p95 ${p95.toFixed(2)} ms  (x${(p50 / plain50).toFixed(2)} p50, x${(p95 / plain95).toFixed(2)} p95 of plain)`);
    }
  } finally {
    await service.close();
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
