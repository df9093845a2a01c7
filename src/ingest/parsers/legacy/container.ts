// What an OLE2 compound file (CFB) holds, read with the `cfb` package: which legacy Office document it is (by the
// stream that carries its content), whether it is an encrypted OOXML package instead, and its streams' bytes.

import CFB from 'cfb';
import { encrypted, unreadable, unsupportedFormat } from '../../errors.ts';

export type LegacyKind = 'doc' | 'xls' | 'ppt';

export interface LegacyContainer {
  kind: LegacyKind;
  /** A stream's bytes by name (case-insensitive), or null when the container has none of that name. */
  stream(name: string): Buffer | null;
}

/** The stream that makes a compound file each kind of document (MS-DOC, MS-XLS, MS-PPT). */
const CONTENT_STREAMS: { kind: LegacyKind; names: string[] }[] = [
  { kind: 'doc', names: ['WordDocument'] },
  { kind: 'xls', names: ['Workbook', 'Book'] },
  { kind: 'ppt', names: ['PowerPoint Document'] },
];

export const LEGACY_MIME_TYPES: Record<LegacyKind, string> = {
  doc: 'application/msword',
  xls: 'application/vnd.ms-excel',
  ppt: 'application/vnd.ms-powerpoint',
};

/** What each kind is called in a legible message. */
export const LEGACY_NAMES: Record<LegacyKind, string> = {
  doc: 'a Word 97-2003 document',
  xls: 'an Excel 97-2003 workbook',
  ppt: 'a PowerPoint 97-2003 presentation',
};

/** Extensions each kind goes by (templates and shows too). */
export const LEGACY_EXTENSIONS: Record<LegacyKind, string[]> = {
  doc: ['doc', 'dot'],
  xls: ['xls', 'xlt', 'xla'],
  ppt: ['ppt', 'pps', 'pot'],
};

/**
 * The streams of a compound file by lower-cased name, without the control-character prefix of OLE's own streams
 * (\u0001CompObj, \u0001Ole10Native); unreadable when its directory cannot be read.
 */
export function compoundFileStreams(bytes: Buffer): Map<string, Buffer> {
  let container: CFB.CFB$Container;
  try {
    container = CFB.read(bytes, { type: 'buffer' });
  } catch (error) {
    throw unreadable(error);
  }
  const streams = new Map<string, Buffer>();
  for (const entry of container.FileIndex) {
    if (entry.type !== 2 || !entry.content) continue;
    // A copy: the library hangs its own reading methods on the buffers it returns.
    streams.set(entry.name.replace(/^[\u0001-\u0005]/u, '').toLowerCase(), Buffer.from(entry.content as ArrayLike<number>));
  }
  return streams;
}

/** Opens a compound file; an encrypted OOXML package (its EncryptedPackage stream) and unknown contents are refused. */
export function openLegacyContainer(bytes: Buffer): LegacyContainer {
  const streams = compoundFileStreams(bytes);
  if (streams.has('encryptedpackage')) throw encrypted('password-encrypted Office document (OLE2 container with an EncryptedPackage)');
  const found = CONTENT_STREAMS.find(({ names }) => names.some((name) => streams.has(name.toLowerCase())));
  if (!found) throw unsupportedFormat('OLE2 compound file that is not a Word, Excel or PowerPoint 97-2003 document');
  return { kind: found.kind, stream: (name) => streams.get(name.toLowerCase()) ?? null };
}
