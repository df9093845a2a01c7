import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
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

/**
 * Stored vectors are only comparable with new ones while the model is unchanged: this digest of hash-ngram-v1's
 * vectors (computed when the embedder still made a string per word and cached each word's features) must hold
 * until HASHING_MODEL_NAME changes.
 */
const HASH_NGRAM_V1_DIGEST = '0888597decd14f808db54bb595850881a27c5627d6172b52b50b52c9b1c1c9fe';

test('vectors of real English and Malay texts are the ones hash-ngram-v1 always gave', () => {
  assert.equal(HASHING_MODEL_NAME, 'hash-ngram-v1');
  const texts = readFileSync(MALAY_TEXT, 'utf8').split('\n').filter(Boolean);
  const scifact = readFileSync(new URL('../../../shared/datasets/scifact/corpus.jsonl', import.meta.url), 'utf8').split('\n').filter(Boolean).slice(0, 200);
  for (const line of scifact) {
    const document = JSON.parse(line) as { title: string; text: string };
    texts.push(`${document.title}\n\n${document.text}`);
  }
  assert.equal(texts.length, 432);
  const digest = createHash('sha256');
  for (const dimensions of [384, 1000]) for (const text of texts) digest.update(hashingVector(text, dimensions));
  assert.equal(digest.digest('hex'), HASH_NGRAM_V1_DIGEST);
});

test('a word repeated, in any case or width, counts as one word; long words, astral letters and many distinct words embed', () => {
  // The same words in another order give the same features; only the order of the float additions differs.
  const close = (a: Float32Array, b: Float32Array) => a.every((value, i) => Math.abs(value - b[i]) < 1e-6);
  assert.ok(close(hashingVector('alpha beta alpha gamma'), hashingVector('gamma ALPHA beta ａｌｐｈａ')));
  assert.ok(!close(hashingVector('alpha beta alpha gamma'), hashingVector('alpha beta gamma')), 'the count of a repeated word weighs');
  // Words past the n-gram limit only get their word feature: two of them differing in one letter share nothing.
  assert.equal(dot(hashingVector(`${'x'.repeat(49)}a`), hashingVector(`${'x'.repeat(49)}b`)), 0);
  assert.ok(dot(hashingVector(`${'x'.repeat(40)}a`), hashingVector(`${'x'.repeat(40)}b`)) > 0.5);
  assert.ok(dot(hashingVector('𝐀𝐁𝐂𝐃 alpha'), hashingVector('𝐀𝐁𝐂𝐃')) > 0.3);
  const many = Array.from({ length: 20_000 }, (_, i) => `w${i}q`).join(' ');
  assert.ok(Math.abs(l2Norm(hashingVector(many)) - 1) < 1e-5);
  assert.deepEqual(hashingVector(many), hashingVector(many));
});
