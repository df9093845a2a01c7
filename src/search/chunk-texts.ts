// Chunk text for the rows of an answer (evidence items, highlights, the reranked prefix), read from the store:
// a serving snapshot holds no text. Each text is checked against the hash its generation's lane data
// recorded, so stored text that changed since publication fails the read instead of being served.

import { ServiceError } from '../domain/service-error.ts';
import type { ServedChunk } from '../serving/served-types.ts';
import { chunkTextHash } from '../codec/generation-lanes.ts';
import type { StoredChunkText } from '../storage/port.ts';

/** Whether a text read from the store for this served chunk is the text its generation published (its recorded hash). */
export function storedTextVerifies(chunk: ServedChunk, chunkIndex: number, text: string): boolean {
  return chunk.chunkIndex === chunkIndex && chunkTextHash(chunkIndex, text) === chunk.textHash;
}

/** Reads stored chunk texts (with their languages) in the order asked; null where a chunk is gone. */
export type ChunkTextReader = (clientId: string, keys: readonly { generation: number; chunkIndex: number }[]) => Promise<(StoredChunkText | null)[]>;

/** The texts of these chunks by ordinal, each verified; fails closed when one is gone or altered. */
export async function readChunkTexts(reader: ChunkTextReader, clientId: string, chunks: readonly ServedChunk[], known: Map<number, StoredChunkText> = new Map()): Promise<Map<number, StoredChunkText>> {
  const wanted = [...new Map(chunks.filter((chunk) => !known.has(chunk.ordinal)).map((chunk) => [chunk.ordinal, chunk])).values()];
  if (wanted.length === 0) return known;
  const texts = await reader(clientId, wanted.map((chunk) => ({ generation: chunk.version.generation, chunkIndex: chunk.chunkIndex })));
  wanted.forEach((chunk, index) => {
    const stored = texts[index];
    // A version served by this read's snapshot was purged while it ran: the read cannot be completed as of its start.
    if (stored === null || stored === undefined) throw new ServiceError('publication_unavailable', 'A version of this answer was removed while it was read; retry');
    if (!storedTextVerifies(chunk, chunk.chunkIndex, stored.text)) {
      throw new ServiceError('stored_evidence_inconsistent', 'Stored evidence is inconsistent with the publication manifest', {
        details: { code: 'stored_evidence_inconsistent', lane: 'content', point: `generation ${chunk.version.generation}` },
      });
    }
    known.set(chunk.ordinal, stored);
  });
  return known;
}
