// Reads title, author and creation time from an OOXML package's core properties (docProps/core.xml).
// A missing part or field yields nulls; a malformed part fails like any other part (through the XML guard).

import type { DocumentProperties } from '../../parsed-document.ts';
import { readRelationships, readXmlPart, relType } from './package.ts';
import type { OoxmlPackage } from './package.ts';

/** Longest property value kept; longer values are cut (they are labels, not content). */
export const MAX_PROPERTY_CHARS = 1024;

const FIELDS: Record<string, keyof DocumentProperties> = { title: 'title', creator: 'author', created: 'createdAt' };

export function isoTimestamp(value: string | null): string | null {
  if (!value) return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

function clean(value: string): string | null {
  const text = value.replace(/\s+/gu, ' ').trim().slice(0, MAX_PROPERTY_CHARS);
  return text || null;
}

export async function readCoreProperties(pkg: OoxmlPackage): Promise<DocumentProperties> {
  const properties: DocumentProperties = { title: null, author: null, createdAt: null };
  const rels = await readRelationships(pkg, '');
  const part = rels.find((r) => !r.external && relType(r, 'core-properties'))?.target ?? 'docProps/core.xml';
  let field: keyof DocumentProperties | null = null;
  let buffer = '';
  await readXmlPart(pkg, part, {
    open(name) {
      field = FIELDS[name] ?? null;
      buffer = '';
    },
    text(value) {
      if (field) buffer += value;
    },
    close() {
      if (field) properties[field] = clean(buffer);
      field = null;
    },
  });
  properties.createdAt = isoTimestamp(properties.createdAt);
  return properties;
}
