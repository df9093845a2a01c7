// Publication evidence of a generation: record identity plus counts and digests of its content, fuzzy
// (vocabulary) and metadata lanes. Computed once when staging; verified later by reading only this record.

import { listStrings } from '../text/string-table.ts';
import { createHash } from 'node:crypto';
import type { ChunkRecord, MetadataLeaf } from '../domain/generation.ts';
import type { Entities } from '../domain/entities.ts';
import type { JsonObject } from '../domain/canonical-metadata.ts';
import { isJsonObject } from '../domain/canonical-metadata.ts';
import { vocabularyWordsOf } from '../text/vocabulary.ts';
import { lanesOf } from './generation-lanes.ts';
import { encodeLanes, lanesDigest } from './lanes-encoding.ts';
import type { LaneChunk } from './generation-lanes.ts';

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
  /** The persisted lane data (lanes-encoding.ts): chunk count and SHA-256 of its bytes. Absent for data written before it existed. */
  lanes?: LaneEvidence;
  /**
   * The chunks' entities as stored (their JSON text), in chunk order: what the text route returns of them is checked
   * against it. Absent for data written before it existed.
   */
  entities?: LaneEvidence;
}

/** A chunk as a manifest reads it; writers give its entities, verification from stored chunks reads text only. */
export type ManifestChunk = Pick<ChunkRecord, 'chunkIndex' | 'text'> & { entities?: Entities };

/** The entities evidence of a generation's chunks, from each chunk's index and its entities as stored (JSON text). */
export function chunkEntitiesEvidence(chunks: readonly { chunkIndex: number; entitiesJson: string }[]): LaneEvidence {
  return { count: chunks.length, digest: digestOf(chunks.map((chunk) => `${chunk.chunkIndex}:${chunk.entitiesJson}`)) };
}

/** Both stores hold a chunk's entities as this JSON text (the writers' JSON.stringify). */
function entitiesEvidenceOf(chunks: readonly ManifestChunk[]): LaneEvidence | null {
  if (!chunks.every((chunk) => chunk.entities !== undefined)) return null;
  return chunkEntitiesEvidence(chunks.map((chunk) => ({ chunkIndex: chunk.chunkIndex, entitiesJson: JSON.stringify(chunk.entities) })));
}

export function digestOf(parts: Iterable<string>): string {
  // One update of the NUL-terminated parts: the same bytes as one update per part, without a call per part.
  let joined = '';
  for (const part of parts) joined += `${part}\u0000`;
  return createHash('sha256').update(joined).digest('hex');
}

export function recordIdOf(documentId: string, versionId: string | null, jobId: string | null): string {
  return digestOf([documentId, versionId ?? '', jobId ?? '']).slice(0, 32);
}

/** The fuzzy lane's evidence: its surface words with the number of chunks each appears in, sorted by word. */
export function fuzzyEvidence(wordCounts: Iterable<readonly [string, number]>): LaneEvidence {
  const entries = [...wordCounts].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { count: entries.length, digest: digestOf(entries.map(([word, count]) => `${word}:${count}`)) };
}

export function metadataEvidence(leaves: readonly MetadataLeaf[]): LaneEvidence {
  return { count: leaves.length, digest: digestOf(leaves.map((leaf) => `${JSON.stringify(leaf.path)}=${JSON.stringify(leaf.value)}`)) };
}

/** The manifest of a generation; with its persisted lane data, the lanes' digest too. */
export function computeManifest(
  ref: { documentId: string; versionId: string | null; jobId: string | null },
  chunks: readonly ManifestChunk[],
  leaves: readonly MetadataLeaf[],
  lanes?: Uint8Array,
  wordCounts?: Iterable<readonly [string, number]>,
): Manifest {
  // The fuzzy lane's words, unless the caller counted them already (the lanes hold the same counts).
  let counts = wordCounts;
  if (!counts) {
    const counted = new Map<string, number>();
    for (const chunk of chunks) for (const word of vocabularyWordsOf(chunk.text)) counted.set(word, (counted.get(word) ?? 0) + 1);
    counts = counted;
  }
  const entities = entitiesEvidenceOf(chunks);
  return {
    record_id: recordIdOf(ref.documentId, ref.versionId, ref.jobId),
    document_id: ref.documentId,
    version_id: ref.versionId,
    content: { count: chunks.length, digest: digestOf(chunks.map((chunk) => `${chunk.chunkIndex}:${chunk.text}`)) },
    fuzzy: fuzzyEvidence(counts),
    metadata: metadataEvidence(leaves),
    ...(lanes ? { lanes: { count: chunks.length, digest: lanesDigest(lanes) } } : {}),
    ...(entities ? { entities } : {}),
  };
}

/** The digest a stored manifest records for its generation's lane data, or null when it records none. */
export function recordedLanesDigest(manifest: unknown): string | null {
  const lanes = isJsonObject(manifest) ? manifest.lanes : undefined;
  return isJsonObject(lanes) && typeof lanes.digest === 'string' ? lanes.digest : null;
}

/** The digest a stored manifest records for its chunks' entities, or null when it records none (or not as evidence). */
export function recordedEntitiesDigest(manifest: unknown): string | null {
  const entities = isJsonObject(manifest) ? manifest.entities : undefined;
  return isLane(entities) ? entities.digest : null;
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
  return manifestProblem(manifest, documentId, versionId) === null;
}

/**
 * What keeps a stored manifest from proving its generation: none at all (missing: an empty object), the wrong
 * shape (malformed), or another Document Version's (conflicting); null when it has the shape and identity
 * of a manifest of this version (its record id and lanes are checked by evidence.ts).
 */
export function manifestProblem(manifest: unknown, documentId: string, versionId: string | null): 'missing' | 'malformed' | 'conflicting' | null {
  if (isJsonObject(manifest) && Object.keys(manifest).length === 0) return 'missing';
  if (!isJsonObject(manifest) || typeof manifest.record_id !== 'string' || !isLane(manifest.content) || !isLane(manifest.fuzzy) || !isLane(manifest.metadata)) return 'malformed';
  if (manifest.document_id !== documentId || manifest.version_id !== versionId) return 'conflicting';
  return null;
}

/**
 * What a writer stores with a generation besides its chunks: the lane data api processes load (built here,
 * by the worker, once) and the manifest that proves it.
 */
export function lanesAndManifest(
  ref: { documentId: string; versionId: string | null; jobId: string | null },
  chunks: readonly (LaneChunk & Pick<ManifestChunk, 'entities'>)[],
  leaves: readonly MetadataLeaf[],
  title: string | null,
): { lanes: Uint8Array; manifest: JsonObject } {
  const decoded = lanesOf(chunks, title, chunks[0]?.vector.length ?? 0);
  const lanes = encodeLanes(decoded);
  const wordCounts = listStrings(decoded.words).map((word, id): [string, number] => [word, decoded.wordCounts[id]]);
  return { lanes, manifest: computeManifest(ref, chunks, leaves, lanes, wordCounts) as unknown as JsonObject };
}
