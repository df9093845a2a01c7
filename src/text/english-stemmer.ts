// English suffix stripping after M. F. Porter's 1980 algorithm (with the bli->ble and logi->log revisions
// of his reference implementation). It only sees lower-case a-z words and never touches other input.

const PORTER_WORD = /^[a-z]+$/;
/** Words this short are already stems; stripping them loses more than it conflates. */
export const PORTER_MIN_LENGTH = 3;

/** Mutable working state: the word as an array and k, the index of its current last letter. */
interface Stem {
  b: string[];
  k: number;
}

function isConsonant(s: Stem, i: number): boolean {
  const c = s.b[i];
  if (c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u') return false;
  if (c === 'y') return i === 0 ? true : !isConsonant(s, i - 1);
  return true;
}

/** Porter's m: the number of vowel-consonant sequences in b[0..j]. */
function measure(s: Stem, j: number): number {
  let n = 0;
  let i = 0;
  while (i <= j && isConsonant(s, i)) i++;
  while (i <= j) {
    while (i <= j && !isConsonant(s, i)) i++;
    if (i > j) break;
    while (i <= j && isConsonant(s, i)) i++;
    n++;
  }
  return n;
}

function hasVowel(s: Stem, j: number): boolean {
  for (let i = 0; i <= j; i++) if (!isConsonant(s, i)) return true;
  return false;
}

function endsWithDoubleConsonant(s: Stem, j: number): boolean {
  return j >= 1 && s.b[j] === s.b[j - 1] && isConsonant(s, j);
}

/** consonant-vowel-consonant ending at i, the last consonant not w, x or y (hop, not hoop or snow). */
function endsCvc(s: Stem, i: number): boolean {
  if (i < 2 || !isConsonant(s, i) || isConsonant(s, i - 1) || !isConsonant(s, i - 2)) return false;
  const c = s.b[i];
  return c !== 'w' && c !== 'x' && c !== 'y';
}

/** If the word ends with suffix, returns the index of the letter before it, else -2. */
function suffixStart(s: Stem, suffix: string): number {
  const n = suffix.length;
  if (n > s.k + 1) return -2;
  for (let i = 0; i < n; i++) if (s.b[s.k - n + 1 + i] !== suffix[i]) return -2;
  return s.k - n;
}

function replaceAfter(s: Stem, j: number, replacement: string): void {
  s.b.length = j + 1;
  for (const c of replacement) s.b.push(c);
  s.k = s.b.length - 1;
}

/** Tries each [suffix, replacement] in order; the first suffix present decides, applied only when m(stem) > minMeasure. */
function replaceFirst(s: Stem, rules: ReadonlyArray<readonly [string, string]>, minMeasure: number): void {
  for (const [suffix, replacement] of rules) {
    const j = suffixStart(s, suffix);
    if (j === -2) continue;
    if (measure(s, j) > minMeasure) replaceAfter(s, j, replacement);
    return;
  }
}

function step1a(s: Stem): void {
  if (s.b[s.k] !== 's') return;
  if (suffixStart(s, 'sses') !== -2 || suffixStart(s, 'ies') !== -2) s.k -= 2;
  else if (s.b[s.k - 1] !== 's') s.k -= 1;
  s.b.length = s.k + 1;
}

function step1bRepair(s: Stem): void {
  for (const [end, full] of [['at', 'ate'], ['bl', 'ble'], ['iz', 'ize']] as const) {
    const j = suffixStart(s, end);
    if (j !== -2) return replaceAfter(s, j, full);
  }
  if (endsWithDoubleConsonant(s, s.k)) {
    const c = s.b[s.k];
    if (c !== 'l' && c !== 's' && c !== 'z') replaceAfter(s, s.k - 1, '');
    return;
  }
  if (measure(s, s.k) === 1 && endsCvc(s, s.k)) replaceAfter(s, s.k, 'e');
}

function step1b(s: Stem): void {
  const eed = suffixStart(s, 'eed');
  if (eed !== -2) {
    if (measure(s, eed) > 0) replaceAfter(s, eed, 'ee');
    return;
  }
  for (const suffix of ['ed', 'ing']) {
    const j = suffixStart(s, suffix);
    if (j !== -2 && hasVowel(s, j)) {
      replaceAfter(s, j, '');
      step1bRepair(s);
      return;
    }
  }
}

function step1c(s: Stem): void {
  if (s.b[s.k] === 'y' && hasVowel(s, s.k - 1)) s.b[s.k] = 'i';
}

const STEP2_RULES: ReadonlyArray<readonly [string, string]> = [
  ['ational', 'ate'], ['tional', 'tion'], ['enci', 'ence'], ['anci', 'ance'], ['izer', 'ize'],
  ['bli', 'ble'], ['alli', 'al'], ['entli', 'ent'], ['eli', 'e'], ['ousli', 'ous'], ['ization', 'ize'],
  ['ation', 'ate'], ['ator', 'ate'], ['alism', 'al'], ['iveness', 'ive'], ['fulness', 'ful'],
  ['ousness', 'ous'], ['aliti', 'al'], ['iviti', 'ive'], ['biliti', 'ble'], ['logi', 'log'],
];

const STEP3_RULES: ReadonlyArray<readonly [string, string]> = [
  ['icate', 'ic'], ['ative', ''], ['alize', 'al'], ['iciti', 'ic'], ['ical', 'ic'], ['ful', ''], ['ness', ''],
];

/** Longest first where one suffix ends another (ement before ment before ent). */
const STEP4_SUFFIXES = [
  'al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ion', 'ou', 'ism',
  'ate', 'iti', 'ous', 'ive', 'ize',
];

/** Porter groups step-2/3 rules by the penultimate letter, so a longer suffix blocks a shorter one sharing it. */
function replaceByGroup(s: Stem, rules: ReadonlyArray<readonly [string, string]>, minMeasure: number): void {
  const matching = rules.filter(([suffix]) => suffixStart(s, suffix) !== -2);
  if (matching.length === 0) return;
  matching.sort((x, y) => y[0].length - x[0].length);
  replaceFirst(s, [matching[0]], minMeasure);
}

function step4(s: Stem): void {
  let best = -2;
  let bestLength = 0;
  for (const suffix of STEP4_SUFFIXES) {
    const j = suffixStart(s, suffix);
    if (j === -2 || suffix.length <= bestLength) continue;
    if (suffix === 'ion' && !(j >= 0 && (s.b[j] === 's' || s.b[j] === 't'))) continue;
    best = j;
    bestLength = suffix.length;
  }
  if (best !== -2 && measure(s, best) > 1) replaceAfter(s, best, '');
}

function step5(s: Stem): void {
  if (s.b[s.k] === 'e') {
    const m = measure(s, s.k - 1);
    if (m > 1 || (m === 1 && !endsCvc(s, s.k - 1))) replaceAfter(s, s.k - 1, '');
  }
  if (s.b[s.k] === 'l' && endsWithDoubleConsonant(s, s.k) && measure(s, s.k) > 1) replaceAfter(s, s.k - 1, '');
}

function isStemmable(word: string): boolean {
  return word.length >= PORTER_MIN_LENGTH && PORTER_WORD.test(word);
}

function run(word: string, steps: ReadonlyArray<(s: Stem) => void>): string {
  if (!isStemmable(word)) return word;
  const s: Stem = { b: word.split(''), k: word.length - 1 };
  for (const step of steps) step(s);
  return s.b.slice(0, s.k + 1).join('');
}

const step2 = (s: Stem) => replaceByGroup(s, STEP2_RULES, 0);
const step3 = (s: Stem) => replaceByGroup(s, STEP3_RULES, 0);

/** Porter step 1 only: plurals, -ed, -ing and final y (the inflections, not the derivations). */
export function porterInflectional(word: string): string {
  return run(word, [step1a, step1b, step1c]);
}

/** Porter steps 2-5, for a word that already went through porterInflectional. */
export function porterDerivational(word: string): string {
  return run(word, [step2, step3, step4, step5]);
}

/** Porter stem of a lower-case a-z word; any other input is returned unchanged. */
export function porterStem(word: string): string {
  return run(word, [step1a, step1b, step1c, step2, step3, step4, step5]);
}
