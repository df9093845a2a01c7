// The Open Packaging Conventions layer shared by DOCX, XLSX and PPTX: part lookup, relationships, content types, XML reading.
// It never follows external relationships; embedded packages are opened by embedded.ts; every part goes through the XML guard.

import { TextDecoder } from 'node:util';
import { posix } from 'node:path';
import type { Entry } from 'yauzl';
import { closeArchive, openArchive, readEntry } from '../zip-archive.ts';
import type { ZipArchive } from '../zip-archive.ts';
import { createPartDecoder, createXmlReader } from '../../guards/xml-guard.ts';
import type { XmlHandlers } from '../../guards/xml-guard.ts';

export interface OoxmlPackage {
  archive: ZipArchive;
}

export interface Relationship {
  id: string;
  /** Full relationship type URI; compare with `relType`. */
  type: string;
  /** Resolved part name without a leading slash, or the raw target for external relationships. */
  target: string;
  external: boolean;
}

export async function openPackage(bytes: Buffer): Promise<OoxmlPackage> {
  return { archive: await openArchive(bytes) };
}

export function closePackage(pkg: OoxmlPackage): void {
  closeArchive(pkg.archive);
}

export function findPart(pkg: OoxmlPackage, partName: string): Entry | undefined {
  return pkg.archive.byName.get(partName.replace(/^\/+/u, '').toLowerCase());
}

export function hasPart(pkg: OoxmlPackage, partName: string): boolean {
  return findPart(pkg, partName) !== undefined;
}

/**
 * Streams one part through the XML guard into `handlers`; a missing part is reported by `false`. `done`, asked after
 * every inflated chunk, ends the read early once the caller has all it may keep (a per-document limit is reached):
 * the rest of the part is neither inflated nor parsed, so a huge part costs no more than the limit allows.
 */
export async function readXmlPart(pkg: OoxmlPackage, partName: string, handlers: XmlHandlers, done?: () => boolean): Promise<boolean> {
  const entry = findPart(pkg, partName);
  if (!entry) return false;
  const reader = createXmlReader(partName, handlers);
  let decoder: TextDecoder | null = null;
  const complete = await readEntry(pkg.archive, entry, (chunk) => {
    decoder ??= createPartDecoder(chunk);
    reader.write(decoder.decode(chunk, { stream: true }));
    return done?.() !== true;
  });
  if (!complete) return true;
  if (decoder) reader.write((decoder as TextDecoder).decode());
  reader.close();
  return true;
}

/** A part's inflated bytes (metered by the archive guard like every read), or null when the package has no such part. */
export async function readPartBytes(pkg: OoxmlPackage, partName: string): Promise<Buffer | null> {
  const entry = findPart(pkg, partName);
  if (!entry) return null;
  const chunks: Buffer[] = [];
  await readEntry(pkg.archive, entry, (chunk) => {
    chunks.push(chunk);
  });
  return Buffer.concat(chunks);
}

/** True when a relationship type URI ends with `/name` (transitional and strict OOXML differ only in the prefix). */
export function relType(relationship: Relationship, name: string): boolean {
  return relationship.type.endsWith(`/${name}`);
}

function relsPartOf(sourcePart: string): string {
  const dir = posix.dirname(sourcePart);
  const base = posix.basename(sourcePart);
  return dir === '.' || dir === '' ? `_rels/${base}.rels` : `${dir}/_rels/${base}.rels`;
}

function resolveTarget(sourcePart: string, target: string): string {
  const decoded = safeDecodeUri(target.split('#')[0] ?? '');
  if (decoded.startsWith('/')) return posix.normalize(decoded).replace(/^\/+/u, '');
  const dir = sourcePart === '' ? '' : posix.dirname(sourcePart);
  return posix.normalize(posix.join(dir === '.' ? '' : dir, decoded)).replace(/^\/+/u, '');
}

function safeDecodeUri(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** Relationships of `sourcePart` ('' for the package itself); a missing .rels part means none. */
export async function readRelationships(pkg: OoxmlPackage, sourcePart: string): Promise<Relationship[]> {
  const relationships: Relationship[] = [];
  const relsPart = sourcePart === '' ? '_rels/.rels' : relsPartOf(sourcePart);
  await readXmlPart(pkg, relsPart, {
    open(name, attributes) {
      if (name !== 'Relationship' || !attributes.Target) return;
      const external = attributes.TargetMode === 'External';
      relationships.push({
        id: attributes.Id ?? '',
        type: attributes.Type ?? '',
        target: external ? attributes.Target : resolveTarget(sourcePart, attributes.Target),
        external,
      });
    },
  });
  return relationships;
}

/** Internal targets of `sourcePart`'s relationships of one type, in document order. */
export async function relatedParts(pkg: OoxmlPackage, sourcePart: string, type: string): Promise<string[]> {
  return (await readRelationships(pkg, sourcePart)).filter((r) => !r.external && relType(r, type)).map((r) => r.target);
}

/** Content type of every part named in [Content_Types].xml overrides, keyed by lower-cased part name. */
export async function readContentTypeOverrides(pkg: OoxmlPackage): Promise<Map<string, string>> {
  const overrides = new Map<string, string>();
  await readXmlPart(pkg, '[Content_Types].xml', {
    open(name, attributes) {
      if (name === 'Override' && attributes.PartName && attributes.ContentType) {
        overrides.set(attributes.PartName.replace(/^\/+/u, '').toLowerCase(), attributes.ContentType);
      }
    },
  });
  return overrides;
}
