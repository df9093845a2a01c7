// A test of single code points against a Unicode property pattern, remembered per code point: scanners that
// read text with a loop (a regex starting with a property class calls out of compiled code for every character
// of a two-byte string) judge each non-ASCII character they meet by the pattern, once.

/** `pattern` must match a whole one-code-point string (anchored, with the u flag), e.g. /^\p{Lu}$/u. */
export function codePointTest(pattern: RegExp): (code: number) => boolean {
  const answers = new Map<number, boolean>();
  return (code) => {
    let known = answers.get(code);
    if (known === undefined) {
      known = pattern.test(String.fromCodePoint(code));
      answers.set(code, known);
    }
    return known;
  };
}
