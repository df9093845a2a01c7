// Test helper: writes small ZIP archives by hand so guard tests can lie about sizes, overlap entries or nest archives.
// It never touches the corpus and only builds what a test asks for.

import { crc32, deflateRawSync } from 'node:zlib';

export interface ZipEntrySpec {
  name: string;
  data: Buffer | string;
  /** Store instead of deflate. */
  stored?: boolean;
  /** Uncompressed size written into the headers instead of the real one. */
  declaredSize?: number;
  /** Point this entry's central record at an earlier entry's local header (overlap construction). */
  sharesLocalHeaderOf?: number;
}

const DOS_DATE_1980 = 0x21;

function localHeader(name: Buffer, method: number, crc: number, compressed: number, declared: number): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(method, 8);
  header.writeUInt16LE(DOS_DATE_1980, 12);
  header.writeUInt32LE(crc, 14);
  header.writeUInt32LE(compressed, 18);
  header.writeUInt32LE(declared, 22);
  header.writeUInt16LE(name.length, 26);
  return Buffer.concat([header, name]);
}

function centralRecord(name: Buffer, method: number, crc: number, compressed: number, declared: number, offset: number): Buffer {
  const record = Buffer.alloc(46);
  record.writeUInt32LE(0x02014b50, 0);
  record.writeUInt16LE(20, 4);
  record.writeUInt16LE(20, 6);
  record.writeUInt16LE(method, 10);
  record.writeUInt16LE(DOS_DATE_1980, 14);
  record.writeUInt32LE(crc, 16);
  record.writeUInt32LE(compressed, 20);
  record.writeUInt32LE(declared, 24);
  record.writeUInt16LE(name.length, 28);
  record.writeUInt32LE(offset, 42);
  return Buffer.concat([record, name]);
}

export function buildZip(specs: ZipEntrySpec[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  const offsets: number[] = [];
  let offset = 0;
  for (const spec of specs) {
    const name = Buffer.from(spec.name, 'utf8');
    const data = Buffer.isBuffer(spec.data) ? spec.data : Buffer.from(spec.data, 'utf8');
    const method = spec.stored ? 0 : 8;
    const body = spec.stored ? data : deflateRawSync(data);
    const crc = crc32(data) >>> 0;
    const declared = spec.declaredSize ?? data.length;
    if (spec.sharesLocalHeaderOf !== undefined) {
      const shared = offsets[spec.sharesLocalHeaderOf]!;
      offsets.push(shared);
      centrals.push(centralRecord(name, method, crc, body.length, declared, shared));
      continue;
    }
    const local = Buffer.concat([localHeader(name, method, crc, body.length, declared), body]);
    offsets.push(offset);
    centrals.push(centralRecord(name, method, crc, body.length, declared, offset));
    locals.push(local);
    offset += local.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(specs.length, 8);
  end.writeUInt16LE(specs.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;
const PACKAGE_RELS = `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`;
const W_NS = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

/** document.xml for the given paragraphs (text is inserted verbatim: escape it yourself). */
export function wordDocumentXml(paragraphs: string[], prolog = ''): string {
  const body = paragraphs.map((p) => `<w:p><w:r><w:t>${p}</w:t></w:r></w:p>`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?>${prolog}<w:document xmlns:w="${W_NS}"><w:body>${body}</w:body></w:document>`;
}

/** A minimal DOCX package around `documentXml`, with optional extra entries and overrides of the document entry. */
export function buildDocx(documentXml: string, documentEntry: Partial<ZipEntrySpec> = {}, extra: ZipEntrySpec[] = []): Buffer {
  return buildZip([
    { name: '[Content_Types].xml', data: CONTENT_TYPES },
    { name: '_rels/.rels', data: PACKAGE_RELS },
    { name: 'word/document.xml', data: documentXml, ...documentEntry },
    ...extra,
  ]);
}
