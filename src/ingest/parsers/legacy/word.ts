// Text of a Word 97-2003 document through catdoc (tools.ts): one paragraph a line, field instructions (HYPERLINK,
// form-field markers) dropped so that only what the reader sees is indexed. An encrypted file is refused first,
// from its File Information Block, instead of indexing the noise a reader would make of it.

import type { ParserContext } from '../../parse-options.ts';
import { encrypted, unreadable } from '../../errors.ts';
import { runLegacyReader } from './tools.ts';

/** MS-DOC FibBase: wIdent at 0, the flags word at 0x0A whose bit 8 is fEncrypted. */
const FIB_MAGIC = 0xa5ec;
const FIB_FLAGS_OFFSET = 0x0a;
const FIB_ENCRYPTED = 0x0100;

/** A field's instruction as catdoc prints it before the field's result. */
const FIELD_INSTRUCTION = /\s*\b(?:HYPERLINK|INCLUDEPICTURE|PAGEREF|REF|TOC)\s+(?:"[^"]*"|\S+)(?:\s+\\[a-z*](?:\s+"[^"]*")?)*/g;
const FORM_FIELD_MARKER = /\b(?:FORMTEXT|FORMCHECKBOX|FORMDROPDOWN)\b/g;

export function wordIsEncrypted(wordDocument: Buffer): boolean {
  if (wordDocument.length < FIB_FLAGS_OFFSET + 2 || wordDocument.readUInt16LE(0) !== FIB_MAGIC) throw unreadable(new Error('WordDocument stream without a File Information Block'));
  return (wordDocument.readUInt16LE(FIB_FLAGS_OFFSET) & FIB_ENCRYPTED) !== 0;
}

/** Paragraphs of catdoc's output (-w: one paragraph a line). */
export function wordParagraphs(output: string): string[] {
  return output
    .replace(FIELD_INSTRUCTION, ' ')
    .replace(FORM_FIELD_MARKER, ' ')
    .split(/\n|\f/)
    .map((line) => line.replace(/[ \u00a0]{2,}/g, ' ').trimEnd())
    .filter((line) => line.trim() !== '');
}

export async function wordText(bytes: Buffer, wordDocument: Buffer, context: ParserContext): Promise<string[]> {
  if (wordIsEncrypted(wordDocument)) throw encrypted('password-protected Word 97-2003 document');
  return wordParagraphs(await runLegacyReader('catdoc', ['-w', '-d', 'utf-8'], bytes, 'Word 97-2003 document', context));
}
