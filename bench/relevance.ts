// Relevance of the service's own search path on ../shared/datasets: nDCG@10, Recall@100 and MRR@10 for
// alpha 0, the default alpha and alpha 1, with and without rerank. Usage:
//   node bench/relevance.ts [--synonyms FILE] [dataset...]
// --synonyms sets the bench Client's synonym set (the file's `synonyms` field, as in the body of PUT
// /settings/synonyms, e.g. bench/synonyms-ms-en.json; another field, such as the description in
// bench/synonyms-ms.json, is the file's own) before the queries run; without it the Client has none.

import { loadDataset, meanScores, scoreRanking } from './datasets.ts';
import type { Dataset, Scores } from './datasets.ts';
import { startBenchService, loadDocuments, BENCH_CLIENT } from './bench-service.ts';
import { readFileSync } from 'node:fs';
import type { SynonymRule } from '../src/search/synonyms.ts';

const DATASETS: Record<string, () => Dataset> = {
  scifact: () => loadDataset('scifact', 'train.tsv'),
  cranfield: () => loadDataset('cranfield', 'test.tsv'),
  'malay-squad': () => loadDataset('malay-squad-supervised', 'test.tsv'),
};

const RECALL_DEPTH = 100;

function format(scores: Scores): string {
  return `nDCG@10 ${scores.ndcg10.toFixed(3)}  Recall@100 ${scores.recall100.toFixed(3)}  MRR@10 ${scores.mrr10.toFixed(3)}`;
}

async function evaluate(name: string, synonyms: SynonymRule[] | null): Promise<void> {
  const dataset = DATASETS[name]();
  const bench = await startBenchService();
  try {
    const loadMs = await loadDocuments(bench.service, dataset.documents);
    const defaultAlpha = bench.service.services.config.hybridAlpha;
    if (synonyms) await bench.service.services.synonyms.replace(BENCH_CLIENT, synonyms);
    console.log(`\n${name}: ${dataset.documents.length} documents loaded in ${(loadMs / 1000).toFixed(1)} s, ${dataset.qrels.size} judged queries, ${synonyms ? `${synonyms.length} synonym rules` : 'no synonyms'}`);
    for (const rerank of [false, true]) {
      for (const [label, alpha] of [
        ['alpha 0 (sparse)', 0],
        [`alpha ${defaultAlpha} (default)`, undefined],
        ['alpha 1 (dense)', 1],
      ] as const) {
        const all: Scores[] = [];
        const started = performance.now();
        for (const [queryId, relevant] of dataset.qrels) {
          const query = dataset.queries.get(queryId);
          if (!query) continue;
          const response = await bench.service.services.search.search(BENCH_CLIENT, {
            query,
            scope: 'content',
            alpha,
            limit: RECALL_DEPTH,
            offset: 0,
            filters: {},
            rerank,
            topKRerank: 20,
            includeDeleted: false,
            highlight: false,
          });
          const ranked = (response.results as { document_version: { document_id: string } }[]).map((row) => row.document_version.document_id);
          all.push(scoreRanking(ranked, relevant));
        }
        const perQuery = (performance.now() - started) / Math.max(1, all.length);
        console.log(`  ${rerank ? 'rerank ' : 'fused  '} ${label.padEnd(24)} ${format(meanScores(all))}  (${perQuery.toFixed(1)} ms/query)`);
      }
    }
  } finally {
    await bench.close();
  }
}

const args = process.argv.slice(2);
const synonymsAt = args.indexOf('--synonyms');
const synonyms = synonymsAt >= 0 ? (JSON.parse(readFileSync(args.splice(synonymsAt, 2)[1], 'utf8')) as { synonyms: SynonymRule[] }).synonyms : null;
const names = args.length > 0 ? args : ['scifact', 'cranfield'];
for (const name of names) {
  if (!DATASETS[name]) throw new Error(`unknown dataset ${name}; choose from ${Object.keys(DATASETS).join(', ')}`);
  await evaluate(name, synonyms);
}
