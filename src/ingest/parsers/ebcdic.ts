// EBCDIC code page 500 (IBM International), which iconv-lite lacks: a byte-to-character table and a detector.
// It only decodes; it never guesses another EBCDIC variant (cp037 and cp500 differ only in a few punctuation bytes).

/** Character for each byte 0x00-0xFF of IBM code page 500. */
const CP500_TABLE =
  '\u0000\u0001\u0002\u0003\u009c\u0009\u0086\u007f\u0097\u008d\u008e\u000b\u000c\u000d\u000e\u000f' +
  '\u0010\u0011\u0012\u0013\u009d\u0085\u0008\u0087\u0018\u0019\u0092\u008f\u001c\u001d\u001e\u001f' +
  '\u0080\u0081\u0082\u0083\u0084\u000a\u0017\u001b\u0088\u0089\u008a\u008b\u008c\u0005\u0006\u0007' +
  '\u0090\u0091\u0016\u0093\u0094\u0095\u0096\u0004\u0098\u0099\u009a\u009b\u0014\u0015\u009e\u001a ' +
  '\u00a0\u00e2\u00e4\u00e0\u00e1\u00e3\u00e5\u00e7\u00f1[.<(+!&\u00e9\u00ea\u00eb\u00e8\u00ed\u00ee' +
  '\u00ef\u00ec\u00df]$*);^-/\u00c2\u00c4\u00c0\u00c1\u00c3\u00c5\u00c7\u00d1\u00a6,%_>?\u00f8\u00c9' +
  '\u00ca\u00cb\u00c8\u00cd\u00ce\u00cf\u00cc`:#@\u0027="\u00d8abcdefghi\u00ab\u00bb\u00f0\u00fd\u00fe' +
  '\u00b1\u00b0jklmnopqr\u00aa\u00ba\u00e6\u00b8\u00c6\u00a4\u00b5~stuvwxyz\u00a1\u00bf\u00d0\u00dd' +
  '\u00de\u00ae\u00a2\u00a3\u00a5\u00b7\u00a9\u00a7\u00b6\u00bc\u00bd\u00be\u00ac|\u00af\u00a8\u00b4' +
  '\u00d7{ABCDEFGHI\u00ad\u00f4\u00f6\u00f2\u00f3\u00f5}JKLMNOPQR\u00b9\u00fb\u00fc\u00f9\u00fa\u00ff' +
  '\u005c\u00f7STUVWXYZ\u00b2\u00d4\u00d6\u00d2\u00d3\u00d50123456789\u00b3\u00db\u00dc\u00d9\u00da' +
  '\u009f';

/** Share of a sample that must be EBCDIC space (0x40) before EBCDIC is considered. */
export const EBCDIC_MIN_SPACE_SHARE = 0.05;
/** Share of ASCII space (0x20) above which a sample is not EBCDIC. */
export const EBCDIC_MAX_ASCII_SPACE_SHARE = 0.005;
/** Share of bytes that must be EBCDIC letters, digits, space or line ends. */
export const EBCDIC_MIN_TEXT_SHARE = 0.8;

function isEbcdicTextByte(b: number): boolean {
  return (
    b === 0x40 || b === 0x0d || b === 0x25 || b === 0x15 ||
    (b >= 0x81 && b <= 0x89) || (b >= 0x91 && b <= 0x99) || (b >= 0xa2 && b <= 0xa9) ||
    (b >= 0xc1 && b <= 0xc9) || (b >= 0xd1 && b <= 0xd9) || (b >= 0xe2 && b <= 0xe9) ||
    (b >= 0xf0 && b <= 0xf9) || (b >= 0x4b && b <= 0x50) || (b >= 0x5a && b <= 0x61) || (b >= 0x6b && b <= 0x6f) || (b >= 0x7a && b <= 0x7f)
  );
}

/** True when the sample has the byte profile of EBCDIC text: 0x40 spaces, no ASCII spaces, letters in EBCDIC ranges. */
export function looksLikeEbcdic(sample: Uint8Array): boolean {
  if (sample.length === 0) return false;
  let ebcdicSpaces = 0;
  let asciiSpaces = 0;
  let textBytes = 0;
  for (const b of sample) {
    if (b === 0x40) ebcdicSpaces++;
    if (b === 0x20) asciiSpaces++;
    if (isEbcdicTextByte(b)) textBytes++;
  }
  const n = sample.length;
  return ebcdicSpaces / n >= EBCDIC_MIN_SPACE_SHARE && asciiSpaces / n <= EBCDIC_MAX_ASCII_SPACE_SHARE && textBytes / n >= EBCDIC_MIN_TEXT_SHARE;
}

/** Decodes cp500; EBCDIC new-line (NEL, 0x15) becomes a line feed. */
export function decodeCp500(bytes: Uint8Array): string {
  const out: string[] = [];
  for (const b of bytes) out.push(CP500_TABLE[b]!);
  return out.join('').replace(/\r\n|\u0085/g, '\n');
}
