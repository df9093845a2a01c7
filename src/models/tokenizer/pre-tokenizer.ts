// Builds the word splitter described by a HuggingFace tokenizer.json "pre_tokenizer" entry.
// Offsets are not tracked (embeddings only need the pieces); unknown pre-tokenizers fail loudly.

import { ModelProviderError } from '../model-error.ts';

export type PreTokenize = (text: string) => string[];

export const SUPPORTED_PRE_TOKENIZERS = [
  'BertPreTokenizer', 'Whitespace', 'WhitespaceSplit', 'Punctuation', 'Digits', 'Metaspace', 'ByteLevel', 'Split', 'Sequence',
] as const;

export type SplitBehavior = 'Removed' | 'Isolated' | 'MergedWithPrevious' | 'MergedWithNext' | 'Contiguous';
const SPLIT_BEHAVIORS: readonly string[] = ['Removed', 'Isolated', 'MergedWithPrevious', 'MergedWithNext', 'Contiguous'];

type Spec = Record<string, unknown> & { type?: unknown };

// BERT counts ASCII symbols such as $ + < = > ^ ` | ~ as punctuation as well as Unicode category P.
const PUNCTUATION_CHAR = /[\p{P}!-/:-@[-`{-~]/gu;
const WHITESPACE_RUN = /\s+/u;
// The "Whitespace" pre-tokenizer's \w+|[^\w\s]+ with Unicode word characters.
const WORD_OR_SYMBOLS = /[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]+|[^\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}\s]+/gu;
const ASCII_DIGIT = /[0-9]/gu;
// GPT-2's split: contractions, letter runs, number runs, symbol runs, each with an optional leading space.
const GPT2_SPLIT = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;
const DEFAULT_METASPACE = '\u2581';

function nonEmpty(pieces: string[]): string[] {
  return pieces.filter((piece) => piece.length > 0);
}

interface Segment { text: string; delimiter: boolean }

function segmentsOf(text: string, pattern: RegExp): Segment[] {
  const segments: Segment[] = [];
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    if (match[0].length === 0) continue;
    if (match.index > last) segments.push({ text: text.slice(last, match.index), delimiter: false });
    segments.push({ text: match[0], delimiter: true });
    last = match.index + match[0].length;
  }
  if (last < text.length) segments.push({ text: text.slice(last), delimiter: false });
  return segments;
}

// A delimiter joins its neighbour only when that neighbour is not itself a delimiter (HuggingFace semantics:
// "a--b" merged with previous gives "a-", "-", "b").
function mergeIntoNeighbour(segments: Segment[], append: boolean): Segment[] {
  const out: Segment[] = [];
  let previousWasDelimiter = false;
  for (const segment of segments) {
    const last = out.at(-1);
    if (segment.delimiter && !previousWasDelimiter && last) last.text = append ? last.text + segment.text : segment.text + last.text;
    else out.push({ ...segment });
    previousWasDelimiter = segment.delimiter;
  }
  return out;
}

function mergeRuns(segments: Segment[]): Segment[] {
  const out: Segment[] = [];
  for (const segment of segments) {
    const last = out.at(-1);
    if (last && last.delimiter === segment.delimiter) last.text += segment.text;
    else out.push({ ...segment });
  }
  return out;
}

/** Splits `text` around every match of `pattern` (a global regex), placing matches per HuggingFace's behaviors. */
export function splitWithBehavior(text: string, pattern: RegExp, behavior: SplitBehavior): string[] {
  const segments = segmentsOf(text, pattern);
  let kept: Segment[];
  if (behavior === 'Removed') kept = segments.filter((segment) => !segment.delimiter);
  else if (behavior === 'Isolated') kept = segments;
  else if (behavior === 'Contiguous') kept = mergeRuns(segments);
  else if (behavior === 'MergedWithPrevious') kept = mergeIntoNeighbour(segments, true);
  else kept = mergeIntoNeighbour(segments.reverse(), false).reverse();
  return kept.map((segment) => segment.text);
}

function behaviorOf(spec: Spec, fallback: SplitBehavior, where: string): SplitBehavior {
  const behavior = spec.behavior ?? fallback;
  if (typeof behavior !== 'string' || !SPLIT_BEHAVIORS.includes(behavior)) throw new ModelProviderError('tokenizer_unsupported', `${where}: split behavior ${JSON.stringify(behavior)} is not supported`);
  return behavior as SplitBehavior;
}

function bertPreTokenizer(text: string): string[] {
  return text.split(WHITESPACE_RUN).flatMap((word) => splitWithBehavior(word, PUNCTUATION_CHAR, 'Isolated'));
}

let byteToChar: string[] | null = null;

// GPT-2's reversible byte -> printable character table: printable Latin-1 bytes map to themselves,
// the rest to code points from 256 upwards, so every byte string becomes visible text.
export function byteLevelAlphabet(): string[] {
  if (byteToChar) return byteToChar;
  const table: string[] = new Array(256);
  let next = 256;
  for (let byte = 0; byte < 256; byte++) {
    const printable = (byte >= 33 && byte <= 126) || (byte >= 161 && byte <= 172) || (byte >= 174 && byte <= 255);
    table[byte] = String.fromCodePoint(printable ? byte : next++);
  }
  return (byteToChar = table);
}

function byteLevel(spec: Spec): PreTokenize {
  const alphabet = byteLevelAlphabet();
  const encoder = new TextEncoder();
  const addPrefixSpace = spec.add_prefix_space === true;
  const useRegex = spec.use_regex !== false;
  return (text) => {
    const source = addPrefixSpace && !text.startsWith(' ') ? ` ${text}` : text;
    const pieces = useRegex ? (source.match(GPT2_SPLIT) ?? []) : [source];
    return nonEmpty(pieces.map((piece) => Array.from(encoder.encode(piece), (byte) => alphabet[byte]).join('')));
  };
}

function metaspace(spec: Spec): PreTokenize {
  const replacement = typeof spec.replacement === 'string' ? spec.replacement : DEFAULT_METASPACE;
  const scheme = typeof spec.prepend_scheme === 'string' ? spec.prepend_scheme : spec.add_prefix_space === false ? 'never' : 'always';
  const split = spec.split !== false;
  const marker = new RegExp(replacement.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gu');
  return (text) => {
    let out = text.replaceAll(' ', replacement);
    // "first" only differs from "always" after added-token splitting, which this tokenizer does not do.
    if (scheme !== 'never' && !out.startsWith(replacement)) out = replacement + out;
    return split ? splitWithBehavior(out, marker, 'MergedWithNext') : [out];
  };
}

function regexSplit(spec: Spec, where: string): PreTokenize {
  const pattern = spec.pattern as { String?: unknown; Regex?: unknown } | undefined;
  let regex: RegExp;
  try {
    if (typeof pattern?.String === 'string') regex = new RegExp(pattern.String.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gu');
    else if (typeof pattern?.Regex === 'string') regex = new RegExp(pattern.Regex, 'gu');
    else throw new Error('pattern must be {String} or {Regex}');
  } catch (error) {
    throw new ModelProviderError('tokenizer_unsupported', `${where}: Split pre-tokenizer pattern unusable in JavaScript: ${(error as Error).message}`);
  }
  if (spec.invert === true) throw new ModelProviderError('tokenizer_unsupported', `${where}: Split pre-tokenizer with invert=true is not supported`);
  const behavior = behaviorOf(spec, 'Isolated', where);
  return (text) => splitWithBehavior(text, regex, behavior);
}

function sequence(spec: Spec, where: string): PreTokenize {
  const steps = ((spec.pretokenizers ?? []) as unknown[]).map((inner) => buildPreTokenizer(inner, where));
  return (text) => steps.reduce<string[]>((pieces, step) => pieces.flatMap(step), [text]);
}

/** `spec` is the tokenizer.json "pre_tokenizer" value (null: the whole text is one piece). */
export function buildPreTokenizer(spec: unknown, where = 'tokenizer.json'): PreTokenize {
  if (spec === null || spec === undefined) return (text) => nonEmpty([text]);
  const s = spec as Spec;
  switch (s.type) {
    case 'BertPreTokenizer': return bertPreTokenizer;
    case 'Whitespace': return (text) => text.match(WORD_OR_SYMBOLS) ?? [];
    case 'WhitespaceSplit': return (text) => nonEmpty(text.split(WHITESPACE_RUN));
    case 'Punctuation': { const behavior = behaviorOf(s, 'Isolated', where); return (text) => splitWithBehavior(text, PUNCTUATION_CHAR, behavior); }
    case 'Digits': { const behavior = s.individual_digits === true ? 'Isolated' : 'Contiguous'; return (text) => splitWithBehavior(text, ASCII_DIGIT, behavior); }
    case 'Metaspace': return metaspace(s);
    case 'ByteLevel': return byteLevel(s);
    case 'Split': return regexSplit(s, where);
    case 'Sequence': return sequence(s, where);
    default:
      throw new ModelProviderError('tokenizer_unsupported', `${where}: pre-tokenizer ${JSON.stringify(s.type)} is not supported (supported: ${SUPPORTED_PRE_TOKENIZERS.join(', ')})`);
  }
}
