// The language of a chunk, detected by ELD (the `eld` package: n-gram statistics of 60 languages that the
// package ships, so nothing is downloaded), with its smallest database. Malay and Indonesian share their
// affixes and their stemmer, so both are Malay here. A text ELD cannot place reliably (too short, numbers,
// codes, or languages mixed evenly) is `other`. Measured on 1,200 SciFact and Cranfield texts and 800 Malay
// SQuAD and school-essay texts: every one placed right; the database costs about
// 30 MiB of heap, so it is loaded on first use, by the threads that index. The language chooses the chunk's
// analyzer (codec/chunk-analysis.ts).
//
// In bulk ingest ELD took about 0.2 ms a chunk, a fifth of the lanes thread's time, and most chunks do not need it:
// a text whose function words are plainly English is English without asking. Only function words that no other
// major language written in Latin letters uses (the, and, which, were...; not in, is, was, of, a, which Dutch,
// German, Italian or Tagalog use too) count, and they must be many, a tenth of the text's tokens, and far more than
// the Malay ones. Every other text goes to ELD. Measured on the chunks of SciFact (5,473) and Cranfield (1,112):
// 91% and 99% plainly English, each of them English to ELD as well; on Malay SQuAD and the school essays, none.

import type { ChunkLanguage } from '../domain/chunk-language.ts';
import { tokenize } from '../text/tokenize.ts';
import { MALAY_STOPWORDS } from '../text/stopwords.ts';

/** ELD's codes read as Malay. */
const MALAY_CODES = new Set(['ms', 'id']);

/** English function words that are not words of another major language written in Latin letters. */
const ENGLISH_MARKERS: ReadonlySet<string> = new Set([
  'the', 'and', 'that', 'with', 'which', 'this', 'are', 'were', 'from', 'have', 'has', 'been', 'their', 'these', 'they',
  'would', 'should', 'could', 'its', 'it', 'than', 'there', 'what', 'when', 'who', 'into', 'because', 'between',
  'about', 'after', 'such', 'other', 'only', 'through',
]);
/** Plainly English needs at least this many English markers... */
export const PLAIN_ENGLISH_MIN_MARKERS = 8;
/** ...making at least this share of the text's tokens (English prose: about 15%; other languages: next to none)... */
export const PLAIN_ENGLISH_MIN_SHARE = 0.1;
/** ...and at least this many times as many as the Malay function words (a bilingual text goes to ELD). */
export const PLAIN_ENGLISH_DOMINANCE = 20;

/** True when the text's function words leave no doubt that it is English. */
export function plainlyEnglish(text: string): boolean {
  const tokens = tokenize(text);
  let english = 0;
  let malay = 0;
  for (const token of tokens) {
    if (ENGLISH_MARKERS.has(token.text)) english++;
    else if (MALAY_STOPWORDS.has(token.text)) malay++;
  }
  return english >= PLAIN_ENGLISH_MIN_MARKERS && english >= PLAIN_ENGLISH_MIN_SHARE * tokens.length && english >= PLAIN_ENGLISH_DOMINANCE * malay;
}

type Detector = { detect(text: string): { language: string; isReliable(): boolean } };
let detector: Promise<Detector> | null = null;

function loadDetector(): Promise<Detector> {
  detector ??= import('eld/extrasmall').then((module) => module.eld);
  return detector;
}

function languageOf(eld: Detector, text: string): ChunkLanguage {
  if (plainlyEnglish(text)) return 'en';
  const result = eld.detect(text);
  if (!result.isReliable()) return 'other';
  if (result.language === 'en') return 'en';
  return MALAY_CODES.has(result.language) ? 'ms' : 'other';
}

/** The language of each text, in order. */
export async function detectLanguages(texts: readonly string[]): Promise<ChunkLanguage[]> {
  const eld = await loadDetector();
  return texts.map((text) => languageOf(eld, text));
}
