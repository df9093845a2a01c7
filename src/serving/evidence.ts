// Verifies a generation's publication evidence when it enters a serving snapshot (SPEC.md "What the service
// does", search rules 10 and 11): its manifest must be the record its job published (record id), and the
// content, fuzzy and metadata lanes the store holds must have the manifest's counts and digests.

import type { ChunkRecord, LoadedGeneration } from '../domain/generation.ts';
import { versionIdFromKey } from '../domain/identity.ts';
import { computeManifest, manifestIsValid, recordIdOf } from './manifest.ts';
import type { LaneEvidence, Manifest } from './manifest.ts';

/**
 * verified: serve it. unauthoritative: no manifest, a malformed one, or one of another record: it never
 * occupies a page slot and reads that would need it fail closed (503). corrupt: the manifest is the
 * authoritative record but the stored lanes disagree with it: reads that select it fail 500 naming the lane.
 */
export type Evidence =
  | { state: 'verified' }
  | { state: 'unauthoritative'; reason: string }
  | { state: 'corrupt'; lane: 'content' | 'fuzzy' | 'metadata'; point: string };

export const VERIFIED: Evidence = { state: 'verified' };

function sameLane(stored: LaneEvidence, computed: LaneEvidence): boolean {
  return stored.count === computed.count && stored.digest === computed.digest;
}

/** What verification reads of a generation: plain data (it may cross to the segment thread). */
export type EvidenceInput = Pick<LoadedGeneration, 'generation' | 'documentId' | 'versionKey' | 'jobId' | 'manifest' | 'leaves'> & {
  chunks: Pick<ChunkRecord, 'chunkIndex' | 'text'>[];
};

/** The verification input of a loaded generation, without its vectors and entities. */
export function evidenceInputOf(generation: LoadedGeneration): EvidenceInput {
  const { generation: id, documentId, versionKey, jobId, manifest, leaves } = generation;
  return { generation: id, documentId, versionKey, jobId, manifest, leaves, chunks: generation.chunks.map(({ chunkIndex, text }) => ({ chunkIndex, text })) };
}

export function verifyEvidence(generation: EvidenceInput): Evidence {
  const versionId = versionIdFromKey(generation.versionKey);
  if (!manifestIsValid(generation.manifest, generation.documentId, versionId)) return { state: 'unauthoritative', reason: 'missing or malformed manifest' };
  const manifest = generation.manifest as unknown as Manifest;
  if (manifest.record_id !== recordIdOf(generation.documentId, versionId, generation.jobId)) return { state: 'unauthoritative', reason: 'manifest of another record' };
  const computed = computeManifest({ documentId: generation.documentId, versionId, jobId: generation.jobId }, generation.chunks, generation.leaves);
  const point = `generation ${generation.generation}`;
  if (!sameLane(manifest.content, computed.content)) return { state: 'corrupt', lane: 'content', point };
  if (!sameLane(manifest.fuzzy, computed.fuzzy)) return { state: 'corrupt', lane: 'fuzzy', point };
  if (!sameLane(manifest.metadata, computed.metadata)) return { state: 'corrupt', lane: 'metadata', point };
  return VERIFIED;
}
