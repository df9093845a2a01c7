// Language per chunk, end to end: a document that mixes English and Malay paragraphs (real texts from the
// relevance datasets) records each chunk's language, indexes each with its own analyzer, and a Malay query in
// another inflection finds the Malay chunk, with its words highlighted, as an English query finds the English one.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { useTestServer, api, KEYS, uploadText, waitForJob } from '../helpers/server.ts';

const DATASETS = new URL('../../../shared/datasets/', import.meta.url);

/** The record's text up to the last sentence end within `maxChars`. */
function record(file: string, id: string, maxChars: number): string {
  const line = readFileSync(new URL(file, DATASETS), 'utf8')
    .split('\n')
    .find((candidate) => candidate.startsWith(`{"_id": "${id}"`))!;
  const text = (JSON.parse(line) as { text: string }).text.slice(0, maxChars);
  return text.slice(0, text.lastIndexOf('.') + 1);
}

// Each paragraph fits a chunk of 600 characters, two do not: one chunk each.
const ENGLISH = record('scifact/corpus.jsonl', '5836', 560);
const MALAY = record('malay-squad-supervised/corpus.jsonl', 'squad-0-0', 560);

const server = useTestServer({ CHUNK_TARGET_CHARS: '600', CHUNK_OVERLAP_CHARS: '0' });

test('a mixed document records each chunk language and a Malay query finds the Malay chunk', async () => {
  assert.ok(ENGLISH.length > 300 && MALAY.length > 300);
  const accepted = await uploadText(server.url, KEYS.alpha, { document_id: 'bilingual-1', text: `${ENGLISH}\n\n${MALAY}`, filename: 'bilingual.txt' });
  assert.equal(accepted.status, 202, JSON.stringify(accepted.json));
  const job = await waitForJob(server.url, KEYS.alpha, accepted.json.job_id);
  assert.equal(job.status, 'completed', JSON.stringify(job));

  const text = await api(server.url, '/document/bilingual-1/text', { key: KEYS.alpha });
  assert.equal(text.status, 200);
  assert.deepEqual(
    text.json.chunks.map((chunk: { text: string; language: string }) => [chunk.text.slice(0, 20), chunk.language]),
    [
      [ENGLISH.slice(0, 20), 'en'],
      [MALAY.slice(0, 20), 'ms'],
    ],
  );

  // "ditubuhkan" is in neither text: Malay stemming meets it with "menubuhkan" and "penubuhan" (root tubuh).
  const malay = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'ditubuhkan', scope: 'content', alpha: 0, highlight: true } });
  assert.equal(malay.status, 200, JSON.stringify(malay.json));
  assert.equal(malay.json.results.length, 1);
  const [item] = malay.json.results[0].content_evidence.items;
  assert.equal(item.chunk_index, 1);
  const marked = item.highlights.map((span: { start: number; end: number }) => item.text.slice(span.start, span.end));
  assert.deepEqual(marked, ['menubuhkan', 'penubuhan']);

  // English stemming meets "expanding" with "expanded" in the English chunk.
  const english = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'expanding suppressor cells', scope: 'content', alpha: 0, highlight: true } });
  assert.equal(english.status, 200);
  assert.equal(english.json.results[0].content_evidence.items[0].chunk_index, 0);
});
