// Publication evidence of a generation: record identity plus counts and digests of its content, fuzzy
// (vocabulary) and metadata lanes. Computed once when staging; verified later by reading only this record.

import { createHash } from 'node:crypto';
import type { ChunkRecord, MetadataLeaf } from '../domain/generation.ts';
import type { JsonObject } from '../domain/canonical-metadata.ts';
import { isJsonObject } from '../domain/canonical-metadata.ts';
import { vocabularyWordsOf } from '../text/vocabulary.ts';

export interface LaneEvidence {
  count: number;
  digest: string;
}

export interface Manifest {
  record_id: string;
  document_id: string;
  version_id: string | null;
  content: LaneEvidence;
  fuzzy: LaneEvidence;
  metadata: LaneEvidence;
}

function digestOf(parts: Iterable<string>): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\u0000');
  return hash.digest('hex');
}

export function recordIdOf(documentId: string, versionId: string | null, jobId: string | null): string {
  return digestOf([documentId, versionId ?? '', jobId ?? '']).slice(0, 32);
}

export function computeManifest(
  ref: { documentId: string; versionId: string | null; jobId: string | null },
  chunks: readonly Pick<ChunkRecord, 'chunkIndex' | 'text'>[],
  leaves: readonly MetadataLeaf[],
): Manifest {
  // The fuzzy lane holds surface words with the number of chunks each appears in.
  const counts = new Map<string, number>();
  for (const chunk of chunks) for (const word of vocabularyWordsOf(chunk.text)) counts.set(word, (counts.get(word) ?? 0) + 1);
  const terms = [...counts.keys()].sort().map((word) => `${word}:${counts.get(word)}`);
  return {
    record_id: recordIdOf(ref.documentId, ref.versionId, ref.jobId),
    document_id: ref.documentId,
    version_id: ref.versionId,
    content: { count: chunks.length, digest: digestOf(chunks.map((chunk) => `${chunk.chunkIndex}:${chunk.text}`)) },
    fuzzy: { count: terms.length, digest: digestOf(terms) },
    metadata: { count: leaves.length, digest: digestOf(leaves.map((leaf) => `${JSON.stringify(leaf.path)}=${JSON.stringify(leaf.value)}`)) },
  };
}

/** One digest over the whole manifest, recorded on the job so a later poll can compare. */
export function manifestDigest(manifest: JsonObject | Manifest): string {
  return digestOf([JSON.stringify(manifest)]);
}

function isLane(value: unknown): value is LaneEvidence {
  return isJsonObject(value) && Number.isInteger(value.count) && typeof value.digest === 'string' && /^[0-9a-f]{64}$/.test(value.digest);
}

/** True when a stored manifest is well-formed evidence for this Document Version. */
export function manifestIsValid(manifest: unknown, documentId: string, versionId: string | null): boolean {
  if (!isJsonObject(manifest)) return false;
  return (
    typeof manifest.record_id === 'string' &&
    manifest.document_id === documentId &&
    manifest.version_id === versionId &&
    isLane(manifest.content) &&
    isLane(manifest.fuzzy) &&
    isLane(manifest.metadata)
  );
}
