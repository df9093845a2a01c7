// Malay affix removal without a dictionary: clitics (-lah, -nya ...), prefixes (meN-, peN-, ber-, ter-,
// di-, ke-, se-, memper-) with nasal assimilation undone, suffixes (-kan, -an, -i). It must never touch a
// word that does not look Malay, so English retrieval keeps Porter's conflations.

import { MALAY_IRREGULAR_FORMS, MALAY_KNOWN_ROOTS } from './malay-roots.ts';

/** Shortest word worth analysing: the shortest affixed forms (dicat, bercat) have five letters. */
export const MALAY_MIN_WORD_LENGTH = 5;
/** Roots need two syllables: nearly all Malay roots have them, and it stops ber+at, ke+cil, di+ri. */
export const MALAY_MIN_ROOT_SYLLABLES = 2;
export const MALAY_MIN_ROOT_LENGTH = 3;
/** Longer unknown "roots" are nearly always English or Latinate words that happen to start like di-/per-/ter-. */
export const MALAY_MAX_ROOT_SYLLABLES = 5;

const VOWELS = 'aeiou';
/** -pun and -tah are left alone: attached they form words of their own (walaupun, pepatah, perintah). */
const PARTICLES = ['lah', 'kah'];
const POSSESSIVE = 'nya';
/** Two-consonant onsets found in Malay loanwords (program, kredit, blok); s-clusters excluded on purpose. */
const LOAN_ONSETS = new Set(['pr', 'tr', 'kr', 'gr', 'br', 'dr', 'fr', 'bl', 'pl', 'kl', 'gl', 'fl']);
const WORD_INITIAL_ONSETS = new Set([...LOAN_ONSETS, 'sk', 'sp', 'st', 'sl', 'sw']);
/** Consonant pairs spelled as one sound in Malay orthography. */
const DIGRAPHS = new Set(['ng', 'ny', 'sy', 'kh', 'gh']);
const FINAL_CLUSTERS = new Set(['nk', 'ks']);
/** Letter sequences that standard Malay spelling does not produce but English does. */
const ENGLISH_MARKERS = /[qx]|th|ph|wh|ck|sh|ch|[^n]gh|ou|tion$|sion$|ism$|ful$|[^aeiou]e$/;
const DOUBLE_CONSONANT = /([b-df-hj-np-tv-z])\1/g;
/** Vowel pairs a Malay root does not contain (they arise only across an affix boundary: ke+ada+an). */
const NON_MALAY_ROOT_VOWELS = /e[aeiou]|[aou]e|o[aou]|io|uo/;

const LOWER_ASCII_WORD = /^[a-z]+$/;

function isVowel(c: string | undefined): boolean {
  return c !== undefined && VOWELS.includes(c);
}

/** Vowel letters, minus a word-final diphthong (ai, au, oi): pakai and pulau have two syllables, air and main two. */
export function malaySyllableCount(word: string): number {
  let n = 0;
  for (let i = 0; i < word.length; i++) if (isVowel(word[i])) n++;
  const end = word.slice(-2);
  if (word.length > 2 && (end === 'ai' || end === 'au' || end === 'oi')) n--;
  return n;
}

/** Splits consonant runs into sound units, so "ngg" is two units and "ny" one. */
function consonantUnits(run: string): number {
  let units = 0;
  for (let i = 0; i < run.length; units++) i += DIGRAPHS.has(run.slice(i, i + 2)) ? 2 : 1;
  return units;
}

function consonantRuns(word: string): Array<{ run: string; start: number }> {
  const runs: Array<{ run: string; start: number }> = [];
  const pattern = /[^aeiou]+/g;
  for (let m = pattern.exec(word); m !== null; m = pattern.exec(word)) runs.push({ run: m[0], start: m.index });
  return runs;
}

/** Malay closes a syllable before another consonant only with these (a g coda means signal, dogma). */
const MEDIAL_CODAS = 'bdfhklmnprst';

function hasLegalClusters(word: string, onsets: ReadonlySet<string>, finalClusters: boolean): boolean {
  for (const { run, start } of consonantRuns(word)) {
    const units = consonantUnits(run);
    const medial = start > 0 && start + run.length < word.length;
    if (medial && units > 1 && !DIGRAPHS.has(run.slice(0, 2)) && !MEDIAL_CODAS.includes(run[0])) return false;
    if (start === 0) {
      if (units > 2 || (units === 2 && !onsets.has(run) && !DIGRAPHS.has(run))) return false;
    } else if (start + run.length === word.length) {
      if (units > 1 && !(finalClusters && FINAL_CLUSTERS.has(run))) return false;
    } else if (units > 3) return false;
  }
  return true;
}

/** y, w and c are always followed by a vowel in Malay spelling (sayang, bawa, cari); j nearly (majlis). */
function hasLegalGlides(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const c = word[i];
    if ((c === 'y' && word[i - 1] !== 'n' && word[i - 1] !== 's') || c === 'w' || c === 'c') {
      if (!isVowel(word[i + 1])) return false;
    }
  }
  return true;
}

/** kk (letakkan), ngg (menggunakan) and nn before -nya (bayarannya): the only doubled consonants Malay spelling makes. */
function hasLegalDoubles(word: string): boolean {
  for (const m of word.matchAll(DOUBLE_CONSONANT)) {
    if (m[0] === 'kk' || (m[0] === 'gg' && word[m.index - 1] === 'n')) continue;
    if (m[0] === 'nn' && word.startsWith('ya', m.index + 2)) continue;
    return false;
  }
  return true;
}

/**
 * Spelling-level check that a lower-case word could be standard Malay (no English letter patterns).
 * Loan endings like bank and teks pass for whole words; a stripped root must end in one consonant.
 */
export function looksMalay(word: string, onsets: ReadonlySet<string> = WORD_INITIAL_ONSETS, finalClusters = true): boolean {
  if (!LOWER_ASCII_WORD.test(word) || ENGLISH_MARKERS.test(word)) return false;
  const last = word[word.length - 1];
  if (!isVowel(last) && !'bdfhklmnprst'.includes(last) && !word.endsWith('ng')) return false;
  return hasLegalDoubles(word) && hasLegalGlides(word) && hasLegalClusters(word, onsets, finalClusters);
}

type PrefixKind = 'meN' | 'peN' | 'pe' | 'per' | 'memper' | 'di' | 'diper' | 'ter' | 'ber' | 'ke' | 'se' | 'none';

interface PrefixMatch {
  kind: PrefixKind;
  /** Possible stems after the prefix, the regular reading first (memukul: pukul before mukul). */
  rests: string[];
  /** menge-/penge- attach only to one-syllable roots (mengecat, pengebom). */
  monosyllabic?: boolean;
}

/** Suffixes each prefix combines with, most likely first; '' means no suffix. */
const SUFFIXES_BY_PREFIX: Record<PrefixKind, readonly string[]> = {
  meN: ['kan', 'i', ''],
  memper: ['kan', 'i', ''],
  di: ['kan', 'i', ''],
  diper: ['kan', 'i', ''],
  ter: ['kan', 'i', ''],
  ber: ['kan', 'an', ''],
  peN: ['an', ''],
  pe: ['an', ''],
  per: ['an', ''],
  ke: ['an'],
  se: [''],
  // Unprefixed, -kan is the likelier reading (janjikan); k-final roots with -an (tindakan) are listed as known.
  none: ['kan', 'an'],
};

/** Nasal prefix (meN-/peN-) readings: the nasal tells which root consonant was absorbed. */
function nasalPrefixMatches(x: string, head: 'me' | 'pe', kind: 'meN' | 'peN'): PrefixMatch[] {
  const out: PrefixMatch[] = [];
  const after = (p: string) => x.slice(head.length + p.length);
  const next = (p: string) => x[head.length + p.length];
  if (x.startsWith(head + 'ny') && isVowel(next('ny'))) out.push({ kind, rests: ['s' + after('ny'), 'ny' + after('ny')] });
  if (x.startsWith(head + 'ng')) {
    const c = next('ng');
    if (isVowel(c)) out.push({ kind, rests: [after('ng'), 'k' + after('ng')] });
    else if (c === 'g' || c === 'h' || c === 'k') out.push({ kind, rests: [after('ng')] });
  }
  if (x.startsWith(head + 'm')) {
    const c = next('m');
    if (isVowel(c)) out.push({ kind, rests: ['p' + after('m'), 'm' + after('m')] });
    else if (c === 'b' || c === 'f' || c === 'p' || c === 'v') out.push({ kind, rests: [after('m')] });
  }
  if (x.startsWith(head + 'n') && !x.startsWith(head + 'ng') && !x.startsWith(head + 'ny')) {
    const c = next('n');
    if (isVowel(c)) out.push({ kind, rests: ['t' + after('n'), 'n' + after('n')] });
    else if ('cdjzt'.includes(c ?? '-') || x.startsWith(head + 'nsy')) out.push({ kind, rests: [after('n')] });
  }
  const c = x[head.length];
  if (x.startsWith(head) && c !== undefined && 'lrwy'.includes(c)) out.push({ kind, rests: [x.slice(head.length)] });
  // Last: an e-initial root after meng- (mengedar) is likelier than a one-syllable root after menge-.
  if (x.startsWith(head + 'nge')) out.push({ kind, rests: [after('nge')], monosyllabic: true });
  return out;
}

function simplePrefix(x: string, prefix: string, kind: PrefixKind): PrefixMatch[] {
  return x.startsWith(prefix) && x.length > prefix.length + 2 ? [{ kind, rests: [x.slice(prefix.length)] }] : [];
}

/** be-/te- before r-initial roots drop their own r (berasa from rasa), and be- before CerC (bekerja). */
function rPrefixMatches(x: string, head: 'be' | 'te', kind: 'ber' | 'ter'): PrefixMatch[] {
  const out = simplePrefix(x, head + 'r', kind);
  const rest = x.slice(head.length + 1);
  if (out.length > 0 && isVowel(rest[0])) out[0].rests.push('r' + rest);
  if (head === 'be' && x.startsWith('be') && !isVowel(x[2]) && x[2] !== 'r' && x.slice(3, 5) === 'er') out.push({ kind, rests: [x.slice(2)] });
  return out;
}

/** Every prefix reading of x, the likelier first; nested prefixes (memper-, diper-) come before their parts. */
function prefixMatches(x: string): PrefixMatch[] {
  return [
    ...simplePrefix(x, 'memper', 'memper'),
    ...simplePrefix(x, 'diper', 'diper'),
    ...nasalPrefixMatches(x, 'me', 'meN'),
    ...simplePrefix(x, 'per', 'per'),
    ...nasalPrefixMatches(x, 'pe', 'peN'),
    ...(isVowel(x[2]) || 'lrwymn'.includes(x[2] ?? '-') ? [] : simplePrefix(x, 'pe', 'pe')),
    ...rPrefixMatches(x, 'be', 'ber'),
    ...rPrefixMatches(x, 'te', 'ter'),
    ...simplePrefix(x, 'di', 'di'),
    ...simplePrefix(x, 'ke', 'ke'),
    ...simplePrefix(x, 'se', 'se'),
  ];
}

function isPlausibleRoot(root: string, monosyllabic: boolean): boolean {
  if (MALAY_KNOWN_ROOTS.has(root)) return true;
  if (root.length < MALAY_MIN_ROOT_LENGTH && !(monosyllabic && root.length >= 2)) return false;
  const syllables = malaySyllableCount(root);
  if (monosyllabic ? syllables !== 1 : syllables < MALAY_MIN_ROOT_SYLLABLES || syllables > MALAY_MAX_ROOT_SYLLABLES) return false;
  // Roots have no kk (only -kan after a k-final root makes it) and an unstripped -kan means a missed suffix.
  if (NON_MALAY_ROOT_VOWELS.test(root) || root.includes('kk') || root.endsWith('kan')) return false;
  return looksMalay(root, LOAN_ONSETS, false);
}

function stripSuffix(rest: string, suffix: string): string | null {
  if (suffix === '') return rest;
  if (!rest.endsWith(suffix)) return null;
  // An -ai root (pakai, nilai) is listed as known and wins over the -a root + -i reading (paka).
  return rest.slice(0, -suffix.length);
}

/**
 * Readings too ambiguous to trust on shape alone: se- and bare ke- (sedia, kereta), and a bare -an after
 * i, which is far more often English -ian (asian, median) than Malay (kajian, ujian; listed as known).
 */
function needsKnownRoot(kind: PrefixKind, suffix: string, root: string): boolean {
  if (kind === 'se' || (kind === 'ke' && suffix === '')) return true;
  return kind === 'none' && suffix === 'an' && root.endsWith('i');
}

interface Candidate {
  root: string;
  needsKnownRoot: boolean;
}

function derivationalCandidates(x: string): Candidate[] {
  const out: Candidate[] = [];
  const matches: PrefixMatch[] = [...prefixMatches(x), { kind: 'none', rests: [x] }];
  for (const match of matches) {
    for (const suffix of SUFFIXES_BY_PREFIX[match.kind]) {
      for (const rest of match.rests) {
        const root = stripSuffix(rest, suffix);
        if (root === null || !isPlausibleRoot(root, match.monosyllabic === true)) continue;
        out.push({ root, needsKnownRoot: needsKnownRoot(match.kind, suffix, root) });
      }
    }
  }
  return out;
}

function withoutClitic(x: string, clitics: readonly string[]): string | null {
  for (const clitic of clitics) {
    if (!x.endsWith(clitic)) continue;
    const rest = x.slice(0, -clitic.length);
    if (malaySyllableCount(rest) >= MALAY_MIN_ROOT_SYLLABLES && rest.length >= MALAY_MIN_ROOT_LENGTH) return rest;
  }
  return null;
}

/** The word, then the word without its particle, then also without -nya: later forms are likelier roots. */
function cliticForms(word: string): string[] {
  const forms = [word];
  const noParticle = withoutClitic(word, PARTICLES);
  if (noParticle !== null) forms.push(noParticle);
  for (const form of [...forms]) {
    const noPossessive = withoutClitic(form, [POSSESSIVE]);
    if (noPossessive !== null) forms.push(noPossessive);
  }
  return forms.reverse();
}

/** Possible roots of a word in preference order (known roots first); empty when it does not look Malay. */
export function malayRootCandidates(word: string): string[] {
  if (word.length < MALAY_MIN_WORD_LENGTH || !looksMalay(word)) return [];
  const irregular = MALAY_IRREGULAR_FORMS.get(word);
  if (irregular !== undefined) return [irregular];
  const ordered: string[] = [];
  const forms = cliticForms(word);
  for (const form of forms) {
    for (const c of derivationalCandidates(form)) if (!c.needsKnownRoot || MALAY_KNOWN_ROOTS.has(c.root)) ordered.push(c.root);
    if (form !== word) ordered.push(form);
  }
  const unique = [...new Set(ordered)].filter((root) => root !== word);
  const known = unique.filter((root) => MALAY_KNOWN_ROOTS.has(root));
  return [...known, ...unique.filter((root) => !MALAY_KNOWN_ROOTS.has(root))];
}

/** Nested affixes (ter+ke+bawah, mem+per+...) are peeled at most this many times. */
export const MALAY_MAX_AFFIX_LAYERS = 3;

/**
 * The Malay root of a word, or the word itself when it is a known root or does not look like Malay.
 * Stemming repeats until the root is stable, so a derived form and its bare root always meet:
 * whatever the bare root stems to, the derived form reaches too.
 */
export function malayStem(word: string): string {
  let current = word;
  for (let layer = 0; layer < MALAY_MAX_AFFIX_LAYERS; layer++) {
    if (MALAY_KNOWN_ROOTS.has(current)) return current;
    const next = malayRootCandidates(current)[0];
    if (next === undefined || next === current) return current;
    current = next;
  }
  return current;
}
