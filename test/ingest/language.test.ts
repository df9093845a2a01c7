// Chunk language detection (ingest/language.ts) on real texts: English research abstracts, Malay encyclopaedia
// paragraphs and school essays, and the public notices Bank Negara Malaysia published in both languages.
// Anything else, and text too thin to tell, is `other`.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { eld } from 'eld/extrasmall';
import { detectLanguages, plainlyEnglish } from '../../src/ingest/language.ts';
import { chunkPages, DEFAULT_CHUNK_OPTIONS } from '../../src/ingest/chunk.ts';

const DATASETS = new URL('../../../shared/datasets/', import.meta.url);
const CORPUS = new URL('../../../shared/corpus/', import.meta.url);

function jsonl(path: string, count: number): string[] {
  return readFileSync(new URL(path, DATASETS), 'utf8')
    .split('\n')
    .filter(Boolean)
    .slice(0, count)
    .map((line) => {
      const record = JSON.parse(line) as { title?: string; text: string };
      return `${record.title ?? ''}\n${record.text}`.trim();
    });
}

/** The first `count` paragraphs (lines) of at least 200 characters of the Malay school essays. */
function essayParagraphs(count: number): string[] {
  return readFileSync(new URL('malay-text/karangan-sekolah.txt', DATASETS), 'utf8')
    .split('\n')
    .filter((line) => line.trim().length >= 200)
    .slice(0, count);
}

test('English abstracts are en; Malay paragraphs and essays are ms', async () => {
  const english = [...jsonl('scifact/corpus.jsonl', 150), ...jsonl('cranfield/corpus.jsonl', 50)];
  const malay = [...jsonl('malay-squad-supervised/corpus.jsonl', 140), ...essayParagraphs(60)];
  assert.deepEqual([english.length, malay.length], [200, 200]);
  assert.deepEqual(new Set(await detectLanguages(english)), new Set(['en']));
  assert.deepEqual(new Set(await detectLanguages(malay)), new Set(['ms']));
});

test("a bank's public notices: each paragraph is read in its own language, whichever edition carries it", async () => {
  // The CSV cells hold the notices' page text; body paragraphs are the long lines that do not start a record.
  const body = (file: string) =>
    readFileSync(new URL(`txt/${file}`, CORPUS), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.length >= 250 && !/^\d{1,2} \S+ \d{4},/.test(line));
  const englishEdition = body('msd_bnm_public_notice_english.csv');
  const found = await detectLanguages(englishEdition);
  assert.ok(englishEdition.length > 500);
  assert.ok(found.filter((language) => language === 'en').length >= 0.97 * found.length, 'the English edition reads English');
  assert.ok(!found.includes('other'));
  // The Malay edition carries notices in both languages (some were published in English only).
  const malayEdition = body('msd_bnm_public_notice_malay.csv');
  const paragraph = (start: string) => malayEdition.find((line) => line.startsWith(start))!;
  const named = {
    ms: ['Walaupun Akta Bank Negara Malaysia 1958', 'Mana-mana individu yang melibatkan diri', 'Orang ramai diingatkan supaya tidak', 'Bank Negara Malaysia menawarkan ganjaran'],
    en: ['The Bank has updated the Financial Consumer Alert list', 'Bank Negara Malaysia wishes to announce the availability', 'The Shariah Advisory Council (SAC) ruled'],
  };
  const texts = [...named.ms, ...named.en].map(paragraph);
  assert.ok(texts.every((text) => typeof text === 'string'));
  assert.deepEqual(await detectLanguages(texts), [...named.ms.map(() => 'ms'), ...named.en.map(() => 'en')]);
});

test('other languages, and text too thin to place, are other', async () => {
  const others = [
    'Le conseil municipal a approuvé le budget pour la construction de la nouvelle école primaire dans le quartier nord.',
    'Der Vertrag wurde von beiden Parteien unterzeichnet und tritt am ersten Januar des kommenden Jahres in Kraft.',
    '本公司将于下个月召开股东大会，审议年度财务报告。',
    'وقعت الشركة عقدا جديدا مع الحكومة لتطوير البنية التحتية',
    'RM 1,234.56 12/03/2024 0012-3456-7890',
    '',
  ];
  assert.deepEqual(await detectLanguages(others), others.map(() => 'other'));
});

test('a text plainly English by its function words is English to ELD as well, and most English chunks are', () => {
  // Chunks as bulk ingest makes them: ten abstracts a document.
  const abstracts = [...jsonl('scifact/corpus.jsonl', 400), ...jsonl('cranfield/corpus.jsonl', 200)];
  const chunks: string[] = [];
  for (let start = 0; start < abstracts.length; start += 10) {
    chunks.push(...chunkPages([{ pageNumber: null, pageLabel: null, text: abstracts.slice(start, start + 10).join('\n\n') }], DEFAULT_CHUNK_OPTIONS).map((chunk) => chunk.text));
  }
  const plain = chunks.filter(plainlyEnglish);
  assert.ok(plain.length >= 0.8 * chunks.length, `${plain.length} of ${chunks.length} chunks plainly English`);
  const elsewhere = plain.filter((text) => {
    const result = eld.detect(text);
    return !result.isReliable() || result.language !== 'en';
  });
  assert.deepEqual(elsewhere, []);
  const malay = [...jsonl('malay-squad-supervised/corpus.jsonl', 140), ...essayParagraphs(60)];
  assert.deepEqual(malay.filter(plainlyEnglish), []);
});

test('prose in other languages that shares English function words (in, is, was, of, a, at, may) goes to ELD and is other', async () => {
  const others = [
    'Het is niet zo dat we in de stad over de brug gingen; het was een lange dag en de kinderen waren moe, maar in de avond hadden we een diner in het hotel, of we wilden of niet. Is het waar dat hij in Amsterdam was? We weten het niet, maar in de krant stond dat hij over twee weken in Utrecht is.',
    'Was ist in der Stadt passiert? Also, wir waren in Berlin, und es war so kalt, dass man kaum draußen sein konnte. In der Nacht war es noch kälter, so dass wir in einem Hotel an der Spree blieben. Was für ein Winter! Die Kinder wollten an den See, aber es war zu kalt.',
    'I ragazzi sono andati a scuola in bicicletta, e a mezzogiorno sono tornati a casa per il pranzo. In estate vanno a Roma in treno, e a volte a Napoli in macchina. I genitori lavorano in ufficio a Milano, e la sera vanno a teatro in centro.',
    'Ang mga bata ay naglaro sa parke at sa hapon ay umuwi sila sa bahay. May pagkain sa mesa at may inumin sa ref. Ang nanay at ang tatay ay nasa trabaho at may pulong sa opisina. Sa gabi ay kumain sila at nanood ng telebisyon at may kwento ang lola.',
    'Il a dit que on a mangé à la maison avec les enfants, et on a vu un film à la télévision. Elle a une voiture rouge et il a un vélo bleu. On a fait une promenade dans le parc et on a parlé de tout et de rien.',
  ];
  assert.deepEqual(others.filter(plainlyEnglish), []);
  assert.deepEqual(await detectLanguages(others), others.map(() => 'other'));
});
