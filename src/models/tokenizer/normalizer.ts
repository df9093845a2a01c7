// Builds the text normalizer described by a HuggingFace tokenizer.json "normalizer" entry.
// Covers the normalizers static embedding models use; anything else fails loudly rather than drift.

import { ModelProviderError } from '../model-error.ts';

export type Normalize = (text: string) => string;

/** Normalizer types this module implements ("Precompiled" is approximated by NFKC, see below). */
export const SUPPORTED_NORMALIZERS = [
  'BertNormalizer', 'Lowercase', 'NFC', 'NFD', 'NFKC', 'NFKD', 'StripAccents', 'Strip', 'Replace', 'Prepend', 'Precompiled', 'Sequence',
] as const;

type Spec = Record<string, unknown> & { type?: unknown };

// BERT's clean_text drops NUL, U+FFFD and control characters (except tab and newlines, which become
// spaces like any other whitespace); handle_chinese_chars puts spaces around CJK ideographs.
const DROPPED_CONTROLS = /(?![\t\n\r])[\p{C}\ufffd]/gu;
const WHITESPACE = /\p{White_Space}/gu;
const CJK_IDEOGRAPH = /[\u{4e00}-\u{9fff}\u{3400}-\u{4dbf}\u{20000}-\u{2a6df}\u{2a700}-\u{2b73f}\u{2b740}-\u{2b81f}\u{2b820}-\u{2ceaf}\u{f900}-\u{faff}\u{2f800}-\u{2fa1f}]/gu;
const NONSPACING_MARKS = /\p{Mn}/gu;

function cleanText(text: string): string {
  return text.replace(DROPPED_CONTROLS, '').replace(WHITESPACE, ' ');
}

function padCjk(text: string): string {
  return text.replace(CJK_IDEOGRAPH, ' $& ');
}

export function stripAccents(text: string): string {
  return text.normalize('NFD').replace(NONSPACING_MARKS, '');
}

function bertNormalizer(spec: Spec): Normalize {
  const lowercase = spec.lowercase !== false;
  const strip = spec.strip_accents === null || spec.strip_accents === undefined ? lowercase : spec.strip_accents === true;
  return (text) => {
    let out = spec.clean_text === false ? text : cleanText(text);
    if (spec.handle_chinese_chars !== false) out = padCjk(out);
    if (strip) out = stripAccents(out);
    return lowercase ? out.toLowerCase() : out;
  };
}

function patternOf(spec: Spec, where: string): RegExp {
  const pattern = spec.pattern as { String?: unknown; Regex?: unknown } | undefined;
  if (typeof pattern?.String === 'string') return new RegExp(pattern.String.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gu');
  if (typeof pattern?.Regex === 'string') {
    try {
      return new RegExp(pattern.Regex, 'gu');
    } catch (error) {
      throw new ModelProviderError('tokenizer_unsupported', `${where}: regex ${JSON.stringify(pattern.Regex)} is not valid in JavaScript: ${(error as Error).message}`);
    }
  }
  throw new ModelProviderError('tokenizer_unsupported', `${where}: pattern must be {String} or {Regex}`);
}

function strip(spec: Spec): Normalize {
  const left = spec.strip_left !== false;
  const right = spec.strip_right !== false;
  return (text) => (left && right ? text.trim() : left ? text.trimStart() : right ? text.trimEnd() : text);
}

function sequence(spec: Spec, where: string): Normalize {
  const steps = ((spec.normalizers ?? []) as unknown[]).map((inner) => buildNormalizer(inner, where));
  return (text) => steps.reduce((out, step) => step(out), text);
}

/** `spec` is the tokenizer.json "normalizer" value (null means none); `where` names the file in errors. */
export function buildNormalizer(spec: unknown, where = 'tokenizer.json'): Normalize {
  if (spec === null || spec === undefined) return (text) => text;
  const s = spec as Spec;
  switch (s.type) {
    case 'BertNormalizer': return bertNormalizer(s);
    case 'Lowercase': return (text) => text.toLowerCase();
    case 'NFC': case 'NFD': case 'NFKC': case 'NFKD': { const form = s.type; return (text) => text.normalize(form); }
    case 'StripAccents': return (text) => text.replace(NONSPACING_MARKS, '');
    case 'Strip': return strip(s);
    case 'Replace': { const pattern = patternOf(s, where); const content = String(s.content ?? ''); return (text) => text.replace(pattern, () => content); }
    case 'Prepend': { const prefix = String(s.prepend ?? ''); return (text) => (text === '' ? text : prefix + text); }
    // SentencePiece's precompiled charsmap is an NFKC variant with a few extra folds; NFKC is the documented
    // approximation, so rare characters may tokenize differently than in the reference implementation.
    case 'Precompiled': return (text) => text.normalize('NFKC');
    case 'Sequence': return sequence(s, where);
    default:
      throw new ModelProviderError('tokenizer_unsupported', `${where}: normalizer ${JSON.stringify(s.type)} is not supported (supported: ${SUPPORTED_NORMALIZERS.join(', ')})`);
  }
}
