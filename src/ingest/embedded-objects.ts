// Opens one object embedded in a document under the tree's limits (parse-options.ts: depth, count, bytes) and
// returns its text. Used by every format that embeds documents (OOXML parts and OLE objects, PDF attachments).
// An object that fails, is refused or holds no document adds a quality warning and never fails its container.

import type { ParserContext } from './parse-options.ts';
import { MAX_EMBEDDED_BYTES, MAX_EMBEDDED_OBJECTS, MAX_EMBEDDING_DEPTH } from './parse-options.ts';

export interface EmbeddedPayload {
  bytes: Buffer;
  /** A name for format detection (a hint, as for uploads); empty lets the content decide alone. */
  name: string;
}

/** Adds a quality warning unless the document has it already. */
export function warnOnce(context: ParserContext, warning: string): void {
  if (!context.warnings.includes(warning)) context.warnings.push(warning);
}

/** Whether this document may open embedded objects at all (its depth, and the text budget left). */
export function mayOpenEmbedded(context: ParserContext): boolean {
  if (!context.openEmbedded || context.budget.remaining === 0) return false;
  if (context.embedding.depth < MAX_EMBEDDING_DEPTH) return true;
  warnOnce(context, `Objects embedded more than ${MAX_EMBEDDING_DEPTH} levels deep were not opened (limit).`);
  return false;
}

/**
 * The text of one embedded object of `size` bytes named `label` in warnings; `read` gives its document (null when it
 * holds none, like an equation or another program's drawing). Null when nothing was read.
 */
export async function embeddedText(context: ParserContext, label: string, size: number, read: () => Promise<EmbeddedPayload | null>): Promise<string | null> {
  const tree = context.embedding.tree;
  if (!context.openEmbedded || !mayOpenEmbedded(context)) return null;
  if (tree.objectsRemaining <= 0) {
    warnOnce(context, `Only the first ${MAX_EMBEDDED_OBJECTS} embedded objects of the document were opened (limit).`);
    return null;
  }
  if (size > tree.bytesRemaining) {
    warnOnce(context, `Embedded objects beyond ${MAX_EMBEDDED_BYTES} bytes in all were not opened (limit).`);
    return null;
  }
  tree.objectsRemaining--;
  tree.bytesRemaining -= size;
  try {
    const payload = await read();
    if (!payload) return null;
    const doc = await context.openEmbedded(payload.bytes, payload.name);
    for (const warning of doc.warnings) warnOnce(context, `Embedded object ${label}: ${warning}`);
    const text = doc.pages.map((page) => page.text).filter((text) => text.trim() !== '').join('\n\n');
    return text === '' ? null : text;
  } catch (error) {
    warnOnce(context, `The embedded object ${label} could not be read: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  }
}
