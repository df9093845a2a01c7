// Measures each rule of a synonym set alone on one half of a dataset's judged queries (bench/query-split.ts):
// for every rule that widens at least one of the half's questions, the nDCG@10 of those questions at alpha 0
// without synonyms and with that rule alone, as how many went up, how many down and the summed change. It is
// how bench/synonyms-ms-en-general.json was pruned on the dev half (a rule, or a direction of a multi-way set
// split into one-way rules, was kept only if it lowered no dev question), and it must not be run on the
// held-out half to choose rules. Usage:
//   node bench/synonym-rules.ts --synonyms FILE [--queries dev|heldout] [dataset]
// (dev and malay-squad by default; the file's `synonyms` field is the set, as for bench/relevance.ts).

import { loadDataset, scoreRanking } from './datasets.ts';
import type { Dataset } from './datasets.ts';
import { isQueryHalf, selectHalf } from './query-split.ts';
import { startBenchService, loadDocuments, BENCH_CLIENT } from './bench-service.ts';
import type { InProcessService } from './bench-service.ts';
import { readFileSync } from 'node:fs';
import { SynonymExpander } from '../src/search/synonyms.ts';
import type { SynonymRule } from '../src/search/synonyms.ts';
import { normalizeText } from '../src/text/normalize.ts';

const DATASETS: Record<string, () => Dataset> = {
  'malay-squad': () => loadDataset('malay-squad-supervised', 'test.tsv'),
};
const RANKING_DEPTH = 10;
/** The keyword lane alone: synonyms widen nothing else (the dense lane embeds the query without them). */
const SPARSE_ALPHA = 0;
const SCORE_EPSILON = 1e-9;

async function ndcgs(service: InProcessService, dataset: Dataset, queries: [string, Map<string, number>][]): Promise<number[]> {
  const scores: number[] = [];
  for (const [queryId, relevant] of queries) {
    const response = await service.services.search.search(BENCH_CLIENT, {
      query: dataset.queries.get(queryId)!,
      scope: 'content',
      alpha: SPARSE_ALPHA,
      limit: RANKING_DEPTH,
      offset: 0,
      filters: {},
      rerank: false,
      topKRerank: RANKING_DEPTH,
      includeDeleted: false,
      highlight: false,
    });
    const ranked = (response.results as { document_version: { document_id: string } }[]).map((row) => row.document_version.document_id);
    scores.push(scoreRanking(ranked, relevant).ndcg10);
  }
  return scores;
}

const args = process.argv.slice(2);
const synonymsAt = args.indexOf('--synonyms');
if (synonymsAt < 0) throw new Error('--synonyms FILE is required');
const rules = (JSON.parse(readFileSync(args.splice(synonymsAt, 2)[1], 'utf8')) as { synonyms: SynonymRule[] }).synonyms;
const queriesAt = args.indexOf('--queries');
const half = queriesAt >= 0 ? args.splice(queriesAt, 2)[1] : 'dev';
if (!isQueryHalf(half)) throw new Error(`--queries ${half}: choose dev or heldout`);
const name = args[0] ?? 'malay-squad';
if (!DATASETS[name]) throw new Error(`unknown dataset ${name}; choose from ${Object.keys(DATASETS).join(', ')}`);

const dataset = selectHalf(DATASETS[name](), half);
const bench = await startBenchService();
try {
  await loadDocuments(bench.service, dataset.documents);
  console.log(`${name}, ${half} half: ${dataset.qrels.size} judged queries; each rule alone at alpha ${SPARSE_ALPHA}, nDCG@10 of the questions it widens`);
  for (const [index, rule] of rules.entries()) {
    const expander = new SynonymExpander([rule]);
    const widened = [...dataset.qrels].filter(([queryId]) => expander.expand(normalizeText(dataset.queries.get(queryId) ?? '')).length > 0);
    if (widened.length === 0) continue;
    await bench.service.services.synonyms.replace(BENCH_CLIENT, []);
    const before = await ndcgs(bench.service, dataset, widened);
    await bench.service.services.synonyms.replace(BENCH_CLIENT, [rule]);
    const after = await ndcgs(bench.service, dataset, widened);
    const up = after.filter((score, at) => score > before[at] + SCORE_EPSILON).length;
    const down = after.filter((score, at) => score < before[at] - SCORE_EPSILON).length;
    const change = after.reduce((sum, score, at) => sum + score - before[at], 0);
    console.log(`${String(index).padStart(3)}  widens ${String(widened.length).padStart(3)}  up ${up}  down ${down}  summed change ${change >= 0 ? '+' : ''}${change.toFixed(3)}  ${JSON.stringify(rule)}`);
  }
} finally {
  await bench.close();
}
