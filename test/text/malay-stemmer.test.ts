import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { looksMalay, malayRootCandidates, malaySyllableCount, malayStem } from '../../src/text/malay-stemmer.ts';
import { analyzeTerms } from '../../src/text/analyzer.ts';

const DICTIONARY = new URL('../../../shared/datasets/malay-text/Malays.dic.txt', import.meta.url);

test('nasal assimilation is undone: the absorbed root consonant comes back', () => {
  const cases: Record<string, string> = {
    mengajar: 'ajar', memukul: 'pukul', penulis: 'tulis', menyapu: 'sapu', menulis: 'tulis',
    membaca: 'baca', mendapat: 'dapat', mengambil: 'ambil', menggunakan: 'guna', pemukul: 'pukul',
    penyimpanan: 'simpan', mengenal: 'kenal', memakan: 'makan', menilai: 'nilai', menyatakan: 'nyata',
    mengecat: 'cat', pengesahan: 'sah', mengeluarkan: 'keluar',
  };
  for (const [word, root] of Object.entries(cases)) assert.equal(malayStem(word), root, word);
});

test('peN-/per-/ber-/ter-/di-/ke- prefixes, confixes and suffixes come off', () => {
  const cases: Record<string, string> = {
    pelajaran: 'ajar', belajar: 'ajar', berlari: 'lari', dibayar: 'bayar', terbesar: 'besar',
    kebanyakan: 'banyak', perniagaan: 'niaga', pembayaran: 'bayar', perbankan: 'bank', kewangan: 'wang',
    simpanan: 'simpan', pinjaman: 'pinjam', dikenakan: 'kena', bekerja: 'kerja', diperlukan: 'perlu',
    mempercayai: 'percaya', memperbaiki: 'baik', peraturan: 'atur', berdasarkan: 'dasar', diikuti: 'ikut',
  };
  for (const [word, root] of Object.entries(cases)) assert.equal(malayStem(word), root, word);
});

test('clitics -nya and -lah come off before the affixes', () => {
  assert.equal(malayStem('bayarannya'), 'bayar');
  assert.equal(malayStem('keluarganya'), 'keluarga');
  assert.equal(malayStem('bacalah'), 'baca');
});

test('roots that only look affixed stay whole', () => {
  for (const word of ['terima', 'pertama', 'makan', 'masalah', 'sekolah', 'kereta', 'bukan', 'penyata', 'pendapatan']) {
    assert.equal(malayStem(word), word);
  }
});

test('English-looking words are never treated as Malay', () => {
  for (const word of ['statement', 'account', 'thinking', 'transferred', 'church', 'disease', 'withdrawal']) {
    assert.equal(looksMalay(word), false, word);
    assert.equal(malayStem(word), word);
    assert.deepEqual(malayRootCandidates(word), []);
  }
});

test('syllables: a word-final diphthong counts once, other vowel pairs twice', () => {
  assert.equal(malaySyllableCount('pakai'), 2);
  assert.equal(malaySyllableCount('air'), 2);
  assert.equal(malaySyllableCount('bayar'), 2);
  assert.equal(malaySyllableCount('pulau'), 2);
});

test('root candidates list every plausible reading (used to protect roots from fuzzy correction)', () => {
  assert.ok(malayRootCandidates('mengajar').includes('ajar'));
  assert.ok(malayRootCandidates('mengira').includes('kira'));
  assert.deepEqual(malayRootCandidates('ajar'), []);
});

/** Derived forms listed under their root in the hunspell-style word list (prefix + root + suffix patterns). */
function dictionaryPairs(): Array<[string, string]> {
  const words = readFileSync(DICTIONARY, 'utf8').split('\n').slice(1)
    .map((line) => line.split('/')[0].trim().toLowerCase()).filter((w) => /^[a-z]+$/.test(w));
  const prefixes = ['', 'me', 'mem', 'men', 'meng', 'meny', 'menge', 'pe', 'pem', 'pen', 'peng', 'peny', 'penge', 'per', 'ber', 'be', 'ter', 'di', 'diper', 'memper', 'ke'];
  const suffixes = ['', 'kan', 'an', 'i', 'nya'];
  const derives = (word: string, root: string) => prefixes.some((p) => suffixes.some((s) =>
    (p !== '' || s !== '') && [root, root.slice(1)].some((core) => core.length >= 2 && word === p + core + s)));
  const pairs: Array<[string, string]> = [];
  let root = '';
  for (const word of words) {
    if (root !== '' && derives(word, root)) pairs.push([word, root]);
    else root = word;
  }
  return pairs;
}

test('most derived forms of the Malay word list meet their root (conflation rate >= 0.8)', () => {
  const pairs = dictionaryPairs();
  assert.ok(pairs.length > 5000, `only ${pairs.length} pairs`);
  const stem = (w: string) => analyzeTerms(w, 'malay')[0];
  const met = pairs.filter(([derived, root]) => stem(derived) === stem(root)).length;
  assert.ok(met / pairs.length >= 0.8, `conflation ${met}/${pairs.length}`);
  const porterOnly = pairs.filter(([derived, root]) => analyzeTerms(derived, 'english')[0] === analyzeTerms(root, 'english')[0]).length;
  assert.ok(porterOnly / pairs.length < 0.05, 'Porter alone should not conflate Malay affixes');
});
