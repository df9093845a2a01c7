import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createHashingEmbedder, HASHING_DEFAULT_DIMENSIONS, HASHING_MODEL_NAME, hashingVector } from '../../src/models/hashing-embedder.ts';
import { ModelProviderError } from '../../src/models/model-error.ts';
import { dot, l2Norm } from '../../src/models/vector-math.ts';

const MALAY_TEXT = new URL('../../../shared/datasets/malay-text/karangan-sekolah.txt', import.meta.url);
const CHUNK_CHARS = 1000;

function chunks(count: number): string[] {
  const text = readFileSync(MALAY_TEXT, 'utf8');
  const out: string[] = [];
  for (let start = 0; start + CHUNK_CHARS <= text.length && out.length < count; start += CHUNK_CHARS) out.push(text.slice(start, start + CHUNK_CHARS));
  return out;
}

const cosine = (a: string, b: string): number => dot(hashingVector(a), hashingVector(b));

test('reports provider, model and the default dimension', async () => {
  const embedder = createHashingEmbedder();
  assert.equal(embedder.provider, 'hashing');
  assert.equal(embedder.model, HASHING_MODEL_NAME);
  assert.equal(embedder.dimensions, 384);
  const [vector] = await embedder.embed(['hello world']);
  assert.equal(vector.length, HASHING_DEFAULT_DIMENSIONS);
});

test('vectors have unit norm; empty and separator-only texts give the zero vector', async () => {
  const embedder = createHashingEmbedder();
  const [a, b, empty, separators] = await embedder.embed(chunks(2).concat(['', ' ,.;- \n']));
  assert.ok(Math.abs(l2Norm(a) - 1) < 1e-5);
  assert.ok(Math.abs(l2Norm(b) - 1) < 1e-5);
  assert.ok(empty.every((x) => x === 0));
  assert.ok(separators.every((x) => x === 0));
});

test('is deterministic across calls and embedder instances', async () => {
  const texts = chunks(5);
  const first = await createHashingEmbedder().embed(texts);
  const second = await createHashingEmbedder().embed(texts);
  assert.deepEqual(first, second);
  assert.ok(first.some((vector, i) => i > 0 && vector.some((x, d) => x !== first[0][d])), 'different texts differ');
});

test('an affixed word is closer to its relatives than to unrelated text', () => {
  const related = cosine('pelajaran', 'mengajar pelajar');
  const unrelated = cosine('pelajaran', 'harga minyak sawit meningkat di pasaran dunia');
  assert.ok(related > 0.2, `related ${related}`);
  assert.ok(related > unrelated + 0.15, `related ${related} vs unrelated ${unrelated}`);
});

test('a one-letter typo keeps the cosine high', () => {
  const sentence = 'Kerajaan negeri meluluskan peruntukan tambahan untuk pembangunan sekolah luar bandar';
  const typo = sentence.replace('peruntukan', 'peruntkan');
  assert.ok(cosine(sentence, typo) > 0.9, `typo cosine ${cosine(sentence, typo)}`);
  assert.ok(cosine('pendidikan', 'pendidikam') > 0.4);
  assert.ok(cosine(sentence, 'harga minyak sawit meningkat di pasaran dunia') < 0.2);
});

test('case, NFKC width variants and punctuation do not change the vector', () => {
  assert.deepEqual(hashingVector('Sekolah, Rendah!'), hashingVector('sekolah rendah'));
  assert.deepEqual(hashingVector('ＡＢＣ１２３'), hashingVector('abc123'));
});

test('a custom dimension is honoured and bad dimensions are refused', async () => {
  const [vector] = await createHashingEmbedder({ dimensions: 64 }).embed(['teks pendek']);
  assert.equal(vector.length, 64);
  assert.ok(Math.abs(l2Norm(vector) - 1) < 1e-5);
  const refused = (error: unknown) => error instanceof ModelProviderError && error.code === 'settings_invalid';
  assert.throws(() => createHashingEmbedder({ dimensions: 0 }), refused);
  assert.throws(() => createHashingEmbedder({ dimensions: 10.5 }), refused);
});

// Its speed (chunks per second) is measured by bench/hashing-embedder.ts, not here.
test('a batch of 1000-character chunks embeds to one unit vector per chunk, as each alone would', async () => {
  const sample = chunks(200);
  assert.equal(sample.length, 200);
  const vectors = await createHashingEmbedder().embed(sample);
  assert.equal(vectors.length, sample.length);
  for (const [i, vector] of vectors.entries()) {
    assert.equal(vector.length, HASHING_DEFAULT_DIMENSIONS);
    assert.ok(Math.abs(l2Norm(vector) - 1) < 1e-5, `chunk ${i} norm ${l2Norm(vector)}`);
    assert.deepEqual(vector, hashingVector(sample[i]), `chunk ${i}`);
  }
});
