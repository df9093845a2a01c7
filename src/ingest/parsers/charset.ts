// Turns bytes of unknown encoding into text: BOM, strict UTF-8, BOM-less UTF-16, EBCDIC, then scored single-byte guesses.
// It never throws on odd bytes (undecodable bytes become U+FFFD) and never trusts a declaration the bytes contradict.

import chardet from 'chardet';
import iconv from 'iconv-lite';
import { decodeCp500, looksLikeEbcdic } from './ebcdic.ts';

/** Bytes examined by the statistical detectors (the whole input is still decoded). */
export const CHARSET_SAMPLE_BYTES = 64 * 1024;
/** Bytes decoded with each single-byte candidate to score its plausibility. */
export const SCORING_SAMPLE_BYTES = 16 * 1024;
/** Share of NUL bytes on one parity that marks BOM-less UTF-16. */
export const UTF16_NUL_PARITY_SHARE = 0.3;
/** ...while the other parity stays almost free of NULs. */
export const UTF16_OTHER_PARITY_MAX_SHARE = 0.05;
/** Minimum chardet confidence (0-100) for accepting a multi-byte East Asian guess outright. */
export const MULTIBYTE_MIN_CONFIDENCE = 50;
/** Share of control / implausible characters above which bytes are treated as binary, not text. */
export const MAX_BINARY_NOISE_SHARE = 0.1;

export interface DecodedText {
  text: string;
  /** Encoding label as understood by iconv-lite (or cp500). */
  encoding: string;
}

const MULTIBYTE = new Set(['Shift_JIS', 'EUC-JP', 'EUC-KR', 'GB18030', 'Big5', 'ISO-2022-JP', 'ISO-2022-KR', 'ISO-2022-CN']);
/** Always scored besides chardet's own guesses: the Western default and the DOS Cyrillic page chardet lacks. */
const ALWAYS_SCORED = ['windows-1252', 'cp866'];

export function bomEncoding(bytes: Uint8Array): { encoding: string; length: number } | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: 'utf-8', length: 3 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe && bytes[2] === 0 && bytes[3] === 0) return { encoding: 'utf-32le', length: 4 };
  if (bytes[0] === 0 && bytes[1] === 0 && bytes[2] === 0xfe && bytes[3] === 0xff) return { encoding: 'utf-32be', length: 4 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  return null;
}

export function isValidUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** Detects BOM-less UTF-16 by NUL bytes sitting on one parity (ASCII-range text in UTF-16). */
export function utf16ByNulParity(sample: Uint8Array): 'utf-16le' | 'utf-16be' | null {
  const pairs = Math.floor(sample.length / 2);
  if (pairs < 2) return null;
  let evenNul = 0;
  let oddNul = 0;
  for (let i = 0; i + 1 < sample.length; i += 2) {
    if (sample[i] === 0) evenNul++;
    if (sample[i + 1] === 0) oddNul++;
  }
  if (oddNul / pairs >= UTF16_NUL_PARITY_SHARE && evenNul / pairs < UTF16_OTHER_PARITY_MAX_SHARE) return 'utf-16le';
  if (evenNul / pairs >= UTF16_NUL_PARITY_SHARE && oddNul / pairs < UTF16_OTHER_PARITY_MAX_SHARE) return 'utf-16be';
  return null;
}

/** iconv-lite's name for an encoding label, or null when it cannot decode it. */
export function supportedEncoding(label: string | null | undefined): string | null {
  if (!label) return null;
  const name = label.trim().toLowerCase();
  if (name === 'cp500' || name === 'ibm500' || name === 'ebcdic-cp-be') return 'cp500';
  return iconv.encodingExists(name) ? name : null;
}

export function decodeWith(bytes: Uint8Array, encoding: string): string {
  const text = encoding === 'cp500' ? decodeCp500(bytes) : iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), encoding);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

type Script = 'latin' | 'cyrillic' | 'greek' | 'arabic' | 'hebrew' | 'other';

function scriptOf(ch: string): Script {
  if (/\p{Script=Latin}/u.test(ch)) return 'latin';
  if (/\p{Script=Cyrillic}/u.test(ch)) return 'cyrillic';
  if (/\p{Script=Greek}/u.test(ch)) return 'greek';
  if (/\p{Script=Arabic}/u.test(ch)) return 'arabic';
  if (/\p{Script=Hebrew}/u.test(ch)) return 'hebrew';
  return 'other';
}

const IMPLAUSIBLE = /[\u0000-\u0008\u000b\u000e-\u001f\u007f-\u009f\ufffd\u2500-\u259f\u00a4\u00a6\u00a8\u00ac\u00af\u00b4\u00b8]/u;

/**
 * Share of characters that look wrong in a decoding: controls, box drawing, replacement characters,
 * words mixing scripts, and case flips inside words. Lower is more plausible.
 */
export function implausibility(text: string): number {
  let bad = 0;
  let total = 0;
  for (const ch of text) {
    total++;
    if (IMPLAUSIBLE.test(ch)) bad++;
  }
  for (const word of text.match(/\p{L}+/gu) ?? []) {
    const scripts = new Set([...word].map(scriptOf));
    if (scripts.size > 1) bad += word.length;
    else if (/\p{Ll}\p{Lu}/u.test(word)) bad += 0.5;
  }
  return total === 0 ? 1 : bad / total;
}

function singleByteCandidates(sample: Uint8Array): string[] {
  const guesses = chardet
    .analyse(sample)
    .map((m) => supportedEncoding(m.name))
    .filter((name): name is string => name !== null && !name.startsWith('utf'));
  return [...new Set([...guesses, ...ALWAYS_SCORED])];
}

function bestSingleByte(sample: Uint8Array): string {
  const scored = sample.subarray(0, SCORING_SAMPLE_BYTES);
  let best = ALWAYS_SCORED[0]!;
  let bestScore = Infinity;
  for (const candidate of singleByteCandidates(sample)) {
    const score = implausibility(decodeWith(scored, candidate));
    if (score < bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  return best;
}

function multibyteGuess(sample: Uint8Array): string | null {
  const top = chardet.analyse(sample)[0];
  if (!top || !MULTIBYTE.has(top.name) || top.confidence < MULTIBYTE_MIN_CONFIDENCE) return null;
  return supportedEncoding(top.name);
}

/** The encoding of `bytes`, honouring `declared` (an HTML meta charset, say) only when the bytes agree with it. */
export function detectEncoding(bytes: Uint8Array, declared?: string | null): string {
  const bom = bomEncoding(bytes);
  if (bom) return bom.encoding;
  const sample = bytes.subarray(0, CHARSET_SAMPLE_BYTES);
  const utf16 = utf16ByNulParity(sample);
  if (utf16) return utf16;
  if (isValidUtf8(bytes)) return 'utf-8';
  const trusted = supportedEncoding(declared);
  if (trusted && !trusted.startsWith('utf')) return trusted;
  if (looksLikeEbcdic(sample)) return 'cp500';
  return multibyteGuess(sample) ?? bestSingleByte(sample);
}

export function decodeBytes(bytes: Uint8Array, declared?: string | null): DecodedText {
  const encoding = detectEncoding(bytes, declared);
  const bom = bomEncoding(bytes);
  const body = bom && bom.encoding === encoding ? bytes.subarray(bom.length) : bytes;
  return { text: decodeWith(body, encoding), encoding };
}

/** True when decoded text is mostly readable characters (used to tell text files from unknown binaries). */
export function looksLikeText(text: string): boolean {
  let noise = 0;
  let total = 0;
  for (const ch of text) {
    total++;
    if (/[\u0000-\u0008\u000e-\u001a\u001c-\u001f\ufffd]/u.test(ch)) noise++;
  }
  return total > 0 && noise / total <= MAX_BINARY_NOISE_SHARE;
}
