// Loads the BEIR-format relevance datasets of ../shared/datasets and scores rankings against judgments.
// Benchmark support only: the service never reads these files.

import { readFileSync } from 'node:fs';

export interface Dataset {
  name: string;
  documents: { id: string; title: string; text: string }[];
  queries: Map<string, string>;
  /** query id -> (document id -> graded relevance) */
  qrels: Map<string, Map<string, number>>;
}

const ROOT = new URL('../../shared/datasets/', import.meta.url);

function jsonl<T>(path: URL): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

export function loadDataset(name: string, qrelsFile: string): Dataset {
  const base = new URL(`${name}/`, ROOT);
  const documents = jsonl<{ _id: string; title?: string; text?: string }>(new URL('corpus.jsonl', base)).map((doc) => ({
    id: doc._id,
    title: doc.title ?? '',
    text: doc.text ?? '',
  }));
  const queries = new Map(jsonl<{ _id: string; text: string }>(new URL('queries.jsonl', base)).map((query) => [query._id, query.text]));
  const qrels = new Map<string, Map<string, number>>();
  for (const line of readFileSync(new URL(`qrels/${qrelsFile}`, base), 'utf8').split('\n').slice(1)) {
    const [queryId, documentId, score] = line.split('\t');
    if (!queryId || !documentId || !(Number(score) > 0)) continue;
    if (!qrels.has(queryId)) qrels.set(queryId, new Map());
    qrels.get(queryId)!.set(documentId, Number(score));
  }
  return { name, documents, queries, qrels };
}

export interface Scores {
  ndcg10: number;
  recall100: number;
  mrr10: number;
}

export function scoreRanking(ranked: string[], relevant: Map<string, number>): Scores {
  let dcg = 0;
  for (let i = 0; i < Math.min(10, ranked.length); i++) {
    const gain = relevant.get(ranked[i]) ?? 0;
    if (gain > 0) dcg += (2 ** gain - 1) / Math.log2(i + 2);
  }
  const ideal = [...relevant.values()].sort((a, b) => b - a).slice(0, 10);
  const idcg = ideal.reduce((sum, gain, i) => sum + (2 ** gain - 1) / Math.log2(i + 2), 0);
  const found = ranked.slice(0, 100).filter((id) => relevant.has(id)).length;
  const firstHit = ranked.slice(0, 10).findIndex((id) => relevant.has(id));
  return { ndcg10: idcg > 0 ? dcg / idcg : 0, recall100: found / relevant.size, mrr10: firstHit >= 0 ? 1 / (firstHit + 1) : 0 };
}

export function meanScores(all: Scores[]): Scores {
  const mean = (pick: (s: Scores) => number) => all.reduce((sum, s) => sum + pick(s), 0) / Math.max(1, all.length);
  return { ndcg10: mean((s) => s.ndcg10), recall100: mean((s) => s.recall100), mrr10: mean((s) => s.mrr10) };
}
