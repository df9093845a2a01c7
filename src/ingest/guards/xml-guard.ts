// A streaming XML reader for document parts that refuses DTDs and oversized nodes and turns parse errors into IngestErrors.
// It never expands entities beyond the five predefined ones, never fetches anything, and never buffers a whole part itself.

import { TextDecoder } from 'node:util';
import { SaxesParser } from 'saxes';
import type { SaxesTagNS } from 'saxes';
import { IngestError } from '../parsed-document.ts';
import { malformedXml, xmlDtdForbidden, xmlNodeTooLarge } from '../errors.ts';

/**
 * Longest text node or attribute value accepted, in characters. Excel caps a cell at 32,767 characters and the
 * largest node in the corpus's real documents is ~1,300; 512 Ki leaves wide headroom while refusing the 1 MiB
 * single shared string of poc-shared-strings.xlsx.
 */
export const MAX_XML_NODE_CHARS = 512 * 1024;
/** Deepest element nesting accepted; real documents stay far below (tables in tables in text boxes). */
export const MAX_XML_DEPTH = 256;

/** Relationship-id attributes (r:id, r:embed...) are keyed with this prefix, both transitional and strict namespaces. */
export const REL_ATTR_PREFIX = 'rel:';
const RELATIONSHIP_NAMESPACES = new Set([
  'http://schemas.openxmlformats.org/officeDocument/2006/relationships',
  'http://purl.oclc.org/ooxml/officeDocument/relationships',
]);

export type XmlAttributes = Record<string, string>;

export interface XmlHandlers {
  /** `name` is the element's local name (namespace prefix dropped). */
  open?(name: string, attributes: XmlAttributes): void;
  close?(name: string): void;
  text?(text: string): void;
}

export interface XmlReader {
  write(chunk: string): void;
  close(): void;
}

function attributesOf(tag: SaxesTagNS, part: string, limit: number): XmlAttributes {
  const out: XmlAttributes = {};
  for (const attribute of Object.values(tag.attributes)) {
    if (attribute.value.length > limit) throw xmlNodeTooLarge(part, limit);
    if (attribute.prefix === 'xmlns' || attribute.name === 'xmlns') continue;
    const key = RELATIONSHIP_NAMESPACES.has(attribute.uri) ? REL_ATTR_PREFIX + attribute.local : attribute.local;
    out[key] = attribute.value;
  }
  return out;
}

function guardError(part: string, error: unknown): IngestError {
  return error instanceof IngestError ? error : malformedXml(part, error);
}

/** Creates a reader for one part; every failure surfaces from `write`/`close` as an IngestError. */
export function createXmlReader(part: string, handlers: XmlHandlers, nodeLimit = MAX_XML_NODE_CHARS): XmlReader {
  const parser = new SaxesParser({ xmlns: true, position: false });
  let depth = 0;
  parser.on('doctype', () => {
    throw xmlDtdForbidden(part);
  });
  parser.on('opentag', (tag) => {
    if (++depth > MAX_XML_DEPTH) throw malformedXml(part, new Error(`nesting deeper than ${MAX_XML_DEPTH}`));
    const attributes = attributesOf(tag, part, nodeLimit);
    handlers.open?.(tag.local, attributes);
  });
  parser.on('closetag', (tag) => {
    depth--;
    handlers.close?.(tag.local);
  });
  const onText = (text: string): void => {
    if (text.length > nodeLimit) throw xmlNodeTooLarge(part, nodeLimit);
    handlers.text?.(text);
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  return {
    write(chunk) {
      try {
        parser.write(chunk);
      } catch (error) {
        throw guardError(part, error);
      }
    },
    close() {
      try {
        parser.close();
      } catch (error) {
        throw guardError(part, error);
      }
    },
  };
}

/** Decodes a part's bytes chunk by chunk: UTF-16 when a BOM says so, UTF-8 otherwise (a UTF-8 BOM is dropped). */
export function createPartDecoder(firstBytes: Uint8Array): TextDecoder {
  if (firstBytes[0] === 0xff && firstBytes[1] === 0xfe) return new TextDecoder('utf-16le');
  if (firstBytes[0] === 0xfe && firstBytes[1] === 0xff) return new TextDecoder('utf-16be');
  return new TextDecoder('utf-8');
}
