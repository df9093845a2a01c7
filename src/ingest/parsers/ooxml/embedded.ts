// Objects embedded in a DOCX, XLSX or PPTX part (an embedded package, or an OLE object: a PDF, a file wrapped by
// the Packager, a 97-2003 document) are parsed in turn through context.openEmbedded, in the order the part
// refers to them, and their text joins the part's (embedded-objects.ts applies the tree's limits and turns a
// failure into a quality warning).

import { posix } from 'node:path';
import type { ParserContext } from '../../parse-options.ts';
import { embeddedText, mayOpenEmbedded } from '../../embedded-objects.ts';
import type { EmbeddedPayload } from '../../embedded-objects.ts';
import { oleObjectPayload } from '../legacy/ole-object.ts';
import { pictureText } from './images.ts';
import { findPart, readPartBytes, readRelationships, readXmlPart, relType } from './package.ts';
import type { OoxmlPackage, Relationship } from './package.ts';

/** Relationship types of embedded objects (an embedded OOXML package, an OLE object) and of pictures. */
const EMBEDDED_TYPES = ['package', 'oleObject'];
const PICTURE_TYPE = 'image';

/** The internal relationships of `sourcePart` of some types, in the order its XML refers to them (then any it does not). */
export async function relationshipsInOrder(pkg: OoxmlPackage, sourcePart: string, types: readonly string[]): Promise<Relationship[]> {
  const candidates = (await readRelationships(pkg, sourcePart)).filter((rel) => !rel.external && types.some((type) => relType(rel, type)));
  if (candidates.length === 0) return [];
  const byId = new Map(candidates.map((rel) => [rel.id, rel]));
  const ordered: Relationship[] = [];
  await readXmlPart(pkg, sourcePart, {
    open(_name, attributes) {
      for (const value of Object.values(attributes)) {
        const rel = byId.get(value);
        if (rel && !ordered.includes(rel)) ordered.push(rel);
      }
    },
  });
  return [...ordered, ...candidates.filter((rel) => !ordered.includes(rel))];
}

/** The document inside one embedded part, or null when it holds none. */
function payloadOf(rel: Relationship, bytes: Buffer): EmbeddedPayload | null {
  return relType(rel, 'oleObject') ? oleObjectPayload(bytes) : { bytes, name: '' };
}

/**
 * Text of the objects embedded in `sourcePart` and of the pictures it shows (OCR, images.ts), one paragraph run each,
 * in the order the part refers to them.
 */
export async function embeddedParagraphs(pkg: OoxmlPackage, sourcePart: string, context: ParserContext): Promise<string[]> {
  if (!mayOpenEmbedded(context)) return [];
  const paragraphs: string[] = [];
  for (const rel of await relationshipsInOrder(pkg, sourcePart, [...EMBEDDED_TYPES, PICTURE_TYPE])) {
    const entry = findPart(pkg, rel.target);
    if (!entry) continue;
    const text = relType(rel, PICTURE_TYPE)
      ? await pictureText(pkg, rel, context)
      : await embeddedText(context, posix.basename(rel.target), entry.uncompressedSize, async () => payloadOf(rel, (await readPartBytes(pkg, rel.target))!));
    if (text !== null) paragraphs.push(text);
    if (context.budget.remaining === 0) break;
  }
  return paragraphs;
}
