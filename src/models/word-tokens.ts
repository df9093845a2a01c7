// The built-in models' own word splitter: NFKC, lower case, runs of letters, digits and combining marks.
// Deliberately independent of src/text so that changing query normalization never changes stored vectors.

const WORD = /[\p{L}\p{N}\p{M}]+/gu;

export function wordTokens(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().match(WORD) ?? [];
}
