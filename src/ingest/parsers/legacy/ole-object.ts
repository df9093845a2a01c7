// What an OLE object embedded in an Office document carries (an oleObjectN.bin part, a compound file): an OOXML
// package (its Package stream), a PDF (an Acrobat object's CONTENTS), a file wrapped by the Packager (its
// Ole10Native stream: name, then bytes), or a whole Word, Excel or PowerPoint 97-2003 document. Null when it holds
// none of these (an equation, a Microsoft Graph chart): there is no document to read.

import { compoundFileStreams } from './container.ts';
import type { EmbeddedPayload } from '../../embedded-objects.ts';

const LEGACY_STREAMS = ['worddocument', 'workbook', 'book', 'powerpoint document'];
/**
 * Programs whose objects carry a Workbook stream that is not a workbook of text: Microsoft Graph keeps a chart's
 * datasheet there (BIFF5 numbers), which a workbook reader turns into noise. Named by the object's CompObj stream.
 */
const NOT_DOCUMENTS = /MSGraph\./u;

/** MS-OLEDS 2.3.6-style native data of the Packager: size, flags, label\0, path\0, 4 bytes, a length-prefixed temp path, then the file's size and bytes. */
export function ole10NativeFile(native: Buffer): EmbeddedPayload | null {
  let at = 6; // total size (4), flags (2)
  const ascii = (): string | null => {
    const end = native.indexOf(0, at);
    if (end < 0) return null;
    const text = native.toString('latin1', at, end);
    at = end + 1;
    return text;
  };
  const label = ascii();
  if (label === null || ascii() === null) return null;
  at += 4;
  if (at + 4 > native.length) return null;
  at += 4 + native.readUInt32LE(at);
  if (at + 4 > native.length) return null;
  const size = native.readUInt32LE(at);
  at += 4;
  if (at + size > native.length) return null;
  return { bytes: native.subarray(at, at + size), name: label.split(/[\\/]/).pop() ?? '' };
}

export function oleObjectPayload(bytes: Buffer): EmbeddedPayload | null {
  const streams = compoundFileStreams(bytes);
  const pkg = streams.get('package');
  if (pkg) return { bytes: pkg, name: '' };
  const contents = streams.get('contents');
  if (contents && contents.subarray(0, 1024).includes('%PDF-')) return { bytes: contents, name: '' };
  const native = streams.get('ole10native');
  if (native) return ole10NativeFile(native);
  if (NOT_DOCUMENTS.test(streams.get('compobj')?.toString('latin1') ?? '')) return null;
  if (LEGACY_STREAMS.some((name) => streams.has(name))) return { bytes, name: '' };
  return null;
}
