// Throughput of the built-in hashing embedder on one core: 1000-character chunks of Malay prose per second,
// the size the ingestion chunker produces. The target is over 2,000 chunks/s on an idle core.
// Usage: node bench/hashing-embedder.ts [chunks=200] [rounds=5]

import { readFileSync } from 'node:fs';
import { hashingVector } from '../src/models/hashing-embedder.ts';

const MALAY_TEXT = new URL('../../shared/datasets/malay-text/karangan-sekolah.txt', import.meta.url);
const CHUNK_CHARS = 1000;
const COUNT = Number(process.argv[2] ?? 200);
const ROUNDS = Number(process.argv[3] ?? 5);

const text = readFileSync(MALAY_TEXT, 'utf8');
const chunks: string[] = [];
for (let start = 0; start + CHUNK_CHARS <= text.length && chunks.length < COUNT; start += CHUNK_CHARS) chunks.push(text.slice(start, start + CHUNK_CHARS));

for (const chunk of chunks.slice(0, 20)) hashingVector(chunk); // warm-up
const rates: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const started = performance.now();
  for (const chunk of chunks) hashingVector(chunk);
  rates.push(chunks.length / ((performance.now() - started) / 1000));
}
rates.sort((a, b) => a - b);
console.log(`hashing embedder, ${chunks.length} chunks of ${CHUNK_CHARS} characters, ${ROUNDS} rounds: median ${Math.round(rates[Math.floor(rates.length / 2)])} chunks/s (slowest ${Math.round(rates[0])}, fastest ${Math.round(rates.at(-1)!)})`);
