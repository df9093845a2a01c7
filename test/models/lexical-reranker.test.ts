import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createLexicalReranker, LEXICAL_PRIOR_RANK_SCALE, LEXICAL_PRIOR_WEIGHT, LEXICAL_RERANKER_MODEL, lexicalScores, lexicalStem } from '../../src/models/lexical-reranker.ts';

const SQUAD_CORPUS = new URL('../../../shared/datasets/malay-squad-supervised/corpus.jsonl', import.meta.url);

function order(query: string, passages: string[]): number[] {
  const scores = lexicalScores(query, passages);
  return scores.map((score, index) => ({ score, index })).sort((a, b) => b.score - a.score || a.index - b.index).map((entry) => entry.index);
}

test('reports its provider and model and scores one value per passage', async () => {
  const reranker = createLexicalReranker();
  assert.equal(reranker.provider, 'lexical');
  assert.equal(reranker.model, LEXICAL_RERANKER_MODEL);
  const scores = await reranker.rerank('kadar faedah', ['kadar faedah naik', 'cuaca hari ini', '']);
  assert.equal(scores.length, 3);
  assert.ok(scores.every((score) => score >= 0 && score <= 1));
  assert.deepEqual(await reranker.rerank('', ['a', 'b']), [0, 0]);
  assert.deepEqual(await reranker.rerank('anything', []), []);
});

test('covering more of the query ranks higher', () => {
  const passages = [
    'Bank Negara menaikkan kadar dasar semalaman.',
    'Bank Negara Malaysia menaikkan kadar faedah dasar semalaman sebanyak 25 mata asas.',
    'Harga minyak sawit mentah meningkat minggu ini.',
  ];
  assert.deepEqual(order('kadar faedah Bank Negara', passages), [1, 0, 2]);
});

test('query terms close together beat the same terms far apart', () => {
  const filler = 'perkara lain yang tiada kaitan dengan topik ini dibincangkan panjang lebar dalam mesyuarat tersebut sebelum';
  const near = `Laporan menyebut pinjaman perumahan meningkat tahun ini. ${filler} ${filler}.`;
  const far = `Laporan menyebut pinjaman kereta. ${filler} ${filler} perumahan juga dibincangkan.`;
  assert.deepEqual(order('pinjaman perumahan', [far, near]), [1, 0]);
});

test('the exact phrase beats the same words scrambled', () => {
  const phrase = 'Dokumen ini menerangkan akaun simpanan tetap untuk pelanggan.';
  const scrambled = 'Dokumen ini menerangkan simpanan untuk akaun tetap pelanggan.';
  assert.deepEqual(order('akaun simpanan tetap', [scrambled, phrase]), [1, 0]);
});

test('suffixes and Malay prefixes still match, less than the exact word', () => {
  assert.equal(lexicalStem('bukunya'), 'buku');
  assert.equal(lexicalStem('glasses'), 'glass');
  assert.equal(lexicalStem('class'), 'class');
  const passages = ['Jumlah yang diperuntukkan kepada sekolah.', 'Harga barang naik.', 'Peruntukan kepada sekolah diluluskan.'];
  assert.deepEqual(order('peruntukan sekolah', passages), [2, 0, 1]);
  const scores = lexicalScores('ajar', ['guru mengajar murid', 'murid bermain bola']);
  assert.ok(scores[0] > scores[1]);
});

test('function words alone do not decide the order', () => {
  const passages = ['yang dan di untuk dengan yang dan', 'Sistem saraf manusia'];
  assert.deepEqual(order('sistem yang dan untuk', passages), [1, 0]);
});

test('finds the right Malay SQuAD passage among real candidates', () => {
  const corpus = readFileSync(SQUAD_CORPUS, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { _id: string; text: string });
  const candidates = corpus.slice(0, 20);
  // A question about squad-0-0 (West Florida) in words that differ from the passage's.
  const ranked = order('Bilakah pemberontakan berlaku di Florida Barat', candidates.map((doc) => doc.text));
  assert.equal(candidates[ranked[0]]._id, 'squad-0-0');
});

test('the reranker works on top of the fused order: strong lexical evidence moves a passage up, weak evidence does not overturn the order', async () => {
  const reranker = createLexicalReranker();
  const query = 'kadar faedah Bank Negara';
  // Fused order: an off-topic passage first, the full match third.
  const passages = ['Harga minyak sawit mentah meningkat.', 'Cuaca panas di utara.', 'Bank Negara menaikkan kadar faedah dasar.'];
  const scores = await reranker.rerank(query, passages);
  assert.ok(scores[2] > scores[0], 'a passage covering the whole query rises above unrelated ones');
  // Two passages with the same lexical evidence keep their fused order.
  const same = await reranker.rerank(query, ['kadar faedah naik', 'kadar faedah naik']);
  assert.ok(same[0] > same[1]);
  // The blend is the prior by position plus the lexical score, both in [0, 1].
  const lexical = lexicalScores(query, passages);
  scores.forEach((score, position) => {
    assert.ok(Math.abs(score - (LEXICAL_PRIOR_WEIGHT / (1 + position / LEXICAL_PRIOR_RANK_SCALE) + (1 - LEXICAL_PRIOR_WEIGHT) * lexical[position])) < 1e-12);
  });
});
