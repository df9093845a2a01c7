// Finds places: gazetteer names (states, towns, countries, world cities), street addresses ("Jalan Dato' Onn",
// "410 Terry Ave") and postcodes with their town ("50480 Kuala Lumpur"). Places inside an organization name
// ("Bank Negara Malaysia") are not reported on their own.

import { wordStartMatches } from './boundary.ts';
import { PLACES } from './gazetteer-places.ts';
import { LEADING_STOPWORDS } from './lexicon.ts';
import { MAX_NAME_WORDS } from './limits.ts';
import { createPhraseMatcher } from './phrase-matcher.ts';
import type { Span, SpanIndex } from './spans.ts';
import { bareWord, endsClause, wordsAfter, wordsBefore } from './text-walk.ts';

const places = createPhraseMatcher(PLACES);

const STREET_PREFIX = /(?:Jalan|JALAN|Jln\.?|JLN\.?|Lorong|Lrg\.?|Persiaran|Lebuhraya|Lebuh|Lingkaran|Perkarangan|Bulatan|Taman|Tmn\.?)(?![\p{L}\p{N}])/gu;
const STREET_SUFFIX = /(?:Street|St\.|Road|Rd\.?|Avenue|Ave\.?|Boulevard|Blvd\.?|Lane|Drive|Highway)(?![\p{L}\p{N}])/gu;
const POSTCODE_TOWN = /(?<![\p{L}\p{N}.,-])(\d{5})[ \t\u00a0]+(\p{Lu}[\p{L}'’-]*(?:[ \t\u00a0]+\p{Lu}[\p{L}'’-]*){0,2})/gu;
// Street-name words: capitalized, or a short number like "5", "2/64A", "SS6/14"; a 5-digit postcode ends the street.
const STREET_WORD = /^(?:\p{Lu}[\p{L}\p{M}'’.-]*|\p{N}{1,4}(?:[\p{L}/-][\p{N}\p{L}/-]*)?|\p{Lu}{1,4}\p{N}*(?:\/[\p{N}\p{L}]+)?)$/u;
/** Words a street name may have after "Jalan", "Taman"...: longer runs are headings, not addresses. */
const MAX_STREET_WORDS = 4;
const HOUSE_NUMBER = /^\d+[A-Za-z]?(?:-\d+)?,?$/u;
const COMMA_BEFORE = /,[ \t\u00a0]*$/;
const MAX_COMMA_GAP = 3;
const CLOSING_PUNCTUATION = /[,;:!?"”]+$/u;
// "Jalan Duta. Kami ...": a period after a whole word ends the street; "Kg." and "P." are abbreviations.
const SENTENCE_END = /\p{L}{4,}\.$/u;

const isStreetWord = (word: string): boolean =>
  !word.startsWith('(') && STREET_WORD.test(bareWord(word)) && !LEADING_STOPWORDS.has(bareWord(word).toLowerCase());

/** "Jalan Dato' Onn, 50480 ..." -> "Jalan Dato' Onn": street-name words after the prefix, up to a comma. */
function streetsAfterPrefix(text: string): Span[] {
  const spans: Span[] = [];
  for (const m of wordStartMatches(text, STREET_PREFIX)) {
    let end = m.index + m[0].length;
    for (const word of wordsAfter(text, end, MAX_STREET_WORDS)) {
      if (!isStreetWord(word.text)) break;
      end = word.end - (word.text.length - word.text.replace(CLOSING_PUNCTUATION, '').length);
      if (endsClause(word.text) || SENTENCE_END.test(word.text)) break;
    }
    if (end > m.index + m[0].length) spans.push({ start: m.index, end, value: text.slice(m.index, end) });
  }
  return spans;
}

/** "410 Terry Ave" -> a house number, name words, then the street word; without a number it is too ambiguous. */
function streetsBeforeSuffix(text: string): Span[] {
  const spans: Span[] = [];
  for (const m of wordStartMatches(text, STREET_SUFFIX)) {
    let start = -1;
    for (const word of wordsBefore(text, m.index, MAX_NAME_WORDS)) {
      if (HOUSE_NUMBER.test(word.text)) {
        start = word.start;
        break;
      }
      if (!isStreetWord(word.text) || endsClause(word.text)) break;
    }
    const end = m.index + m[0].length;
    if (start >= 0) spans.push({ start, end, value: text.slice(start, end) });
  }
  return spans;
}

/** A postcode counts when a known town follows it, or when it follows a comma as in an address line. */
function postcodes(text: string): Span[] {
  const spans: Span[] = [];
  for (const m of text.matchAll(POSTCODE_TOWN)) {
    const townStart = m.index + m[0].length - m[2].length;
    let value: string | null = null;
    places.find(m[2], (hit) => {
      if (hit.start === 0) value = `${m[1]} ${hit.canonical}`;
      return false;
    });
    if (value === null && COMMA_BEFORE.test(text.slice(Math.max(0, m.index - MAX_COMMA_GAP), m.index))) value = m[0];
    if (value !== null) spans.push({ start: m.index, end: townStart + m[2].length, value });
  }
  return spans;
}

/** Street addresses and postcodes: these claim their text before organizations and persons are looked for. */
export function findAddresses(text: string): Span[] {
  return [...streetsAfterPrefix(text), ...streetsBeforeSuffix(text), ...postcodes(text)];
}

/** Gazetteer places outside `blocked` (organization names), in reading order. */
export function findPlaces(text: string, blocked: SpanIndex, onPlace: (value: string) => boolean): void {
  places.find(text, (hit) => (blocked.overlaps(hit.start, hit.end) ? true : onPlace(hit.canonical)));
}
