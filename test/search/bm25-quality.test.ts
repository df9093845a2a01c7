// Relevance regression guard on the shared datasets (train/test qrels as documented in their PROVENANCE).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { buildBm25Segment, searchBm25 } from '../../src/search/bm25.ts';
import type { FieldAnalyzer } from '../../src/search/bm25.ts';
import { analyzeFields, analyzeQueryTerms, analyzeTerms } from '../../src/text/analyzer.ts';
import { normalizeContentQuery } from '../../src/text/query-normalizer.ts';
import { vocabularyFromTexts } from '../../src/text/vocabulary.ts';

const DATASETS = new URL('../../../shared/datasets/', import.meta.url);

interface Dataset {
  docs: Array<{ id: string; title: string; text: string }>;
  queries: Map<string, string>;
  qrels: Map<string, Set<string>>;
}

function jsonl(path: URL): Array<Record<string, unknown>> {
  return readFileSync(path, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
}

function load(name: string, split: string): Dataset {
  const docs = jsonl(new URL(`${name}/corpus.jsonl`, DATASETS)).map((d) => ({ id: String(d._id), title: String(d.title ?? ''), text: String(d.text ?? '') }));
  const queries = new Map(jsonl(new URL(`${name}/queries.jsonl`, DATASETS)).map((q) => [String(q._id), String(q.text)]));
  const qrels = new Map<string, Set<string>>();
  for (const line of readFileSync(new URL(`${name}/qrels/${split}.tsv`, DATASETS), 'utf8').split('\n').slice(1)) {
    const [query, doc, score] = line.split('\t');
    if (!query || Number(score) <= 0) continue;
    if (!qrels.has(query)) qrels.set(query, new Set());
    qrels.get(query)!.add(doc);
  }
  return { docs, queries, qrels };
}

/** Mean binary nDCG@10 over the judged queries. */
function meanNdcg10(data: Dataset, analyzer: FieldAnalyzer, queryTerms: (q: string) => string[]): number {
  const segment = buildBm25Segment(data.docs.map((d, i) => ({ id: i, text: d.text, title: d.title })), analyzer);
  let sum = 0;
  let n = 0;
  for (const [query, relevant] of data.qrels) {
    const text = data.queries.get(query);
    if (text === undefined) continue;
    const { hits } = searchBm25([segment], queryTerms(text), { limit: 10 });
    let dcg = 0;
    hits.forEach((hit, rank) => { if (relevant.has(data.docs[hit.id].id)) dcg += 1 / Math.log2(rank + 2); });
    let ideal = 0;
    for (let rank = 0; rank < Math.min(10, relevant.size); rank++) ideal += 1 / Math.log2(rank + 2);
    sum += dcg / ideal;
    n++;
  }
  return sum / n;
}

const porterOnly: FieldAnalyzer = (text, title) => ({ text: analyzeTerms(text, 'english'), title: analyzeTerms(title, 'english') });

test('SciFact train: nDCG@10 about 0.70, also after rule-5 query normalization (the alpha 0 path)', () => {
  const data = load('scifact', 'train');
  const raw = meanNdcg10(data, analyzeFields, analyzeQueryTerms);
  assert.ok(raw >= 0.695, `SciFact nDCG@10 ${raw.toFixed(4)}`);
  const vocabulary = vocabularyFromTexts(data.docs.map((d) => `${d.title}\n${d.text}`));
  const normalized = meanNdcg10(data, analyzeFields, (q) => analyzeQueryTerms(normalizeContentQuery(q, vocabulary).text));
  assert.ok(normalized >= 0.695, `SciFact nDCG@10 after normalization ${normalized.toFixed(4)}`);
});

test('Cranfield: nDCG@10 at least 0.38', () => {
  const ndcg = meanNdcg10(load('cranfield', 'test'), analyzeFields, analyzeQueryTerms);
  assert.ok(ndcg >= 0.38, `Cranfield nDCG@10 ${ndcg.toFixed(4)}`);
});

test('Malay set: Malay affix handling beats Porter alone', () => {
  const data = load('malay-squad-supervised', 'test');
  const malay = meanNdcg10(data, analyzeFields, analyzeQueryTerms);
  const porter = meanNdcg10(data, porterOnly, (q) => analyzeTerms(q, 'english'));
  assert.ok(malay > porter + 0.005, `Malay-aware ${malay.toFixed(4)} vs Porter only ${porter.toFixed(4)}`);
});
