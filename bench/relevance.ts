// Relevance of the service's own search path on ../shared/datasets: nDCG@10, Recall@100 and MRR@10 for
// alpha 0, the default alpha and alpha 1, with and without rerank. Usage:
//   node bench/relevance.ts [--synonyms FILE] [--queries all|dev|heldout] [dataset...]
// --synonyms FILE: the file's `synonyms` field is a synonym set as in the body of PUT /settings/synonyms (e.g.
//   bench/synonyms-ms-en.json; another field, such as a `description`, is the file's own). Every row is then
//   measured twice on the same loaded Client, first with no synonyms and then with the set, and a line per pair
//   counts the questions whose nDCG@10 went up or down. Without it the Client has none and each row runs once.
// --queries dev|heldout: only the judged queries of one half (bench/query-split.ts: the split by a hash of each
//   question's judged passage); `all` (the default) runs every judged query.

import { loadDataset, meanScores, scoreRanking } from './datasets.ts';
import type { Dataset, Scores } from './datasets.ts';
import { startBenchService, loadDocuments, BENCH_CLIENT } from './bench-service.ts';
import type { InProcessService } from './bench-service.ts';
import { QUERY_HALVES, isQueryHalf, selectHalf } from './query-split.ts';
import type { QueryHalf } from './query-split.ts';
import { readFileSync } from 'node:fs';
import { synonymRuleProblems } from '../src/search/synonyms.ts';
import type { SynonymRule } from '../src/search/synonyms.ts';

const DATASETS: Record<string, () => Dataset> = {
  scifact: () => loadDataset('scifact', 'train.tsv'),
  cranfield: () => loadDataset('cranfield', 'test.tsv'),
  'malay-squad': () => loadDataset('malay-squad-supervised', 'test.tsv'),
};

const RECALL_DEPTH = 100;
const TOP_K_RERANK = 20;
/** Differences of one question's nDCG@10 below this are float noise, not a change. */
const SCORE_EPSILON = 1e-9;

function format(scores: Scores): string {
  return `nDCG@10 ${scores.ndcg10.toFixed(3)}  Recall@100 ${scores.recall100.toFixed(3)}  MRR@10 ${scores.mrr10.toFixed(3)}`;
}

/** Each judged query's scores, in qrels order, for one setting of the search. */
async function scoreQueries(service: InProcessService, dataset: Dataset, alpha: number | undefined, rerank: boolean): Promise<Scores[]> {
  const all: Scores[] = [];
  for (const [queryId, relevant] of dataset.qrels) {
    const query = dataset.queries.get(queryId);
    if (!query) continue;
    const response = await service.services.search.search(BENCH_CLIENT, {
      query,
      scope: 'content',
      alpha,
      limit: RECALL_DEPTH,
      offset: 0,
      filters: {},
      rerank,
      topKRerank: TOP_K_RERANK,
      includeDeleted: false,
      highlight: false,
    });
    const ranked = (response.results as { document_version: { document_id: string } }[]).map((row) => row.document_version.document_id);
    all.push(scoreRanking(ranked, relevant));
  }
  return all;
}

function changes(before: Scores[], after: Scores[]): string {
  let up = 0;
  let down = 0;
  before.forEach((scores, index) => {
    const delta = after[index].ndcg10 - scores.ndcg10;
    if (delta > SCORE_EPSILON) up++;
    else if (delta < -SCORE_EPSILON) down++;
  });
  return `nDCG@10 up for ${up}, down for ${down} of ${before.length} questions`;
}

async function evaluate(name: string, synonyms: SynonymRule[] | null, half: QueryHalf | null): Promise<void> {
  const whole = DATASETS[name]();
  const dataset = half ? selectHalf(whole, half) : whole;
  const bench = await startBenchService();
  try {
    const loadMs = await loadDocuments(bench.service, dataset.documents);
    const defaultAlpha = bench.service.services.config.hybridAlpha;
    const queries = half ? `${dataset.qrels.size} of ${whole.qrels.size} judged queries (${half} half)` : `${dataset.qrels.size} judged queries`;
    console.log(`\n${name}: ${dataset.documents.length} documents loaded in ${(loadMs / 1000).toFixed(1)} s, ${queries}, ${synonyms ? `no synonyms, then ${synonyms.length} synonym rules` : 'no synonyms'}`);
    for (const rerank of [false, true]) {
      for (const [label, alpha] of [
        ['alpha 0 (sparse)', 0],
        [`alpha ${defaultAlpha} (default)`, undefined],
        ['alpha 1 (dense)', 1],
      ] as const) {
        const row = `  ${rerank ? 'rerank ' : 'fused  '} ${label.padEnd(24)}`;
        const started = performance.now();
        const without = await scoreQueries(bench.service, dataset, alpha, rerank);
        const perQuery = (performance.now() - started) / Math.max(1, without.length);
        console.log(`${row} ${format(meanScores(without))}  (${perQuery.toFixed(1)} ms/query)${synonyms ? '  no synonyms' : ''}`);
        if (!synonyms) continue;
        await bench.service.services.synonyms.replace(BENCH_CLIENT, synonyms);
        const withSynonyms = await scoreQueries(bench.service, dataset, alpha, rerank);
        await bench.service.services.synonyms.replace(BENCH_CLIENT, []);
        console.log(`${' '.repeat(row.length)} ${format(meanScores(withSynonyms))}  synonyms: ${changes(without, withSynonyms)}`);
      }
    }
  } finally {
    await bench.close();
  }
}

/** Removes `--flag VALUE` from args and answers VALUE (null when absent). */
function takeOption(args: string[], flag: string): string | null {
  const at = args.indexOf(flag);
  if (at < 0) return null;
  const value = args.splice(at, 2)[1];
  if (value === undefined) throw new Error(`${flag} needs a value`);
  return value;
}

function readSynonyms(path: string): SynonymRule[] {
  const rules = (JSON.parse(readFileSync(path, 'utf8')) as { synonyms?: unknown }).synonyms;
  if (!Array.isArray(rules)) throw new Error(`${path} has no "synonyms" array`);
  const problems = synonymRuleProblems(rules as Record<string, unknown>[]);
  if (problems.length > 0) throw new Error(`${path}: ${problems.map((problem) => `${problem.loc.join('.')}: ${problem.msg}`).join('; ')}`);
  return rules as SynonymRule[];
}

const args = process.argv.slice(2);
const synonymsFile = takeOption(args, '--synonyms');
const synonyms = synonymsFile ? readSynonyms(synonymsFile) : null;
const queries = takeOption(args, '--queries') ?? 'all';
if (queries !== 'all' && !isQueryHalf(queries)) throw new Error(`--queries ${queries}: choose all, ${QUERY_HALVES.join(' or ')}`);
const names = args.length > 0 ? args : ['scifact', 'cranfield'];
for (const name of names) {
  if (!DATASETS[name]) throw new Error(`unknown dataset ${name}; choose from ${Object.keys(DATASETS).join(', ')}`);
  await evaluate(name, synonyms, queries === 'all' ? null : queries);
}
