// Verifies a generation's publication evidence when it enters a serving snapshot (SPEC.md "What the service
// does", search rules 10 and 11): its manifest must be the record its job published (record id), and the lanes
// the store holds must have the manifest's counts and digests. A generation with persisted lane data is
// checked through it (its digest and chunk count) without reading chunk text;
// each chunk's text is checked against its hash when a read returns it (search/search-service.ts).

import type { ChunkRecord, ServingGeneration } from '../domain/generation.ts';
import { versionIdFromKey } from '../domain/identity.ts';
import { computeManifest, manifestProblem, metadataEvidence, recordedLanesDigest, recordIdOf } from './manifest.ts';
import type { LaneEvidence, Manifest } from './manifest.ts';
import { decodeLanes, LanesFormatError, lanesChunkCount, lanesDigest, lanesDigestOffThread } from './lanes-encoding.ts';

/**
 * verified: serve it. None of the others occupies a page slot (search rule 10); reads that would need one fail
 * closed, a search as SPEC.md's errors table says:
 * - unauthoritative: no manifest, or one of another record (503 publication_authority_inconsistent);
 * - malformed: stored JSON of the generation that does not parse, or a manifest of the wrong shape
 *   (500 internal_error);
 * - corrupt: the manifest is the authoritative record but the stored lanes disagree with it (search rule 11:
 *   500 naming the lane and point).
 * A generation that did not verify also says whether its persisted lane data is unproven (`lanesUnproven`: not
 * the bytes its manifest recorded, by digest and chunk count). Such bytes are never decoded: a truncated or
 * garbage blob would throw, or decode into postings that point anywhere, in the one segment build that serves
 * every other generation of the Client. The generation then holds no rows (serving/snapshot.ts planChange); so does one
 * whose lane data no manifest digest can prove and that does not decode (lanesDecodable).
 */
export type Evidence =
  | { state: 'verified' }
  | { state: 'unauthoritative'; reason: string; lanesUnproven?: true }
  | { state: 'malformed'; reason: string; lanesUnproven?: true }
  | { state: 'corrupt'; lane: 'content' | 'fuzzy' | 'metadata'; point: string; lanesUnproven?: true };

export const VERIFIED: Evidence = { state: 'verified' };

function sameLane(stored: LaneEvidence, computed: LaneEvidence): boolean {
  return stored.count === computed.count && stored.digest === computed.digest;
}

/** What verification reads of a generation: plain data (it may cross to the segment thread). */
export type EvidenceInput = Pick<ServingGeneration, 'generation' | 'documentId' | 'versionKey' | 'jobId' | 'manifest' | 'leaves' | 'chunkCount' | 'lanes' | 'unreadable'> & {
  chunks?: Pick<ChunkRecord, 'chunkIndex' | 'text'>[];
  /** What verification reads of the lane data, taken from it beforehand (proveLanes): then `lanes` is left out. */
  lanesProof?: LanesProof;
};

/** Persisted lane data as verification sees it: its digest and the chunk count its header declares (null: unreadable). */
export interface LanesProof {
  digest: string;
  chunkCount: number | null;
  /** false: its manifest records no digest to prove it by, and it did not decode (tried only then). */
  decodes?: false;
}

function headerChunkCount(lanes: Uint8Array): number | null {
  try {
    return lanesChunkCount(lanes);
  } catch (error) {
    if (error instanceof LanesFormatError) return null;
    throw error;
  }
}

/**
 * The input with its lane data replaced by their proof, the digest taken on libuv's thread pool: the segment
 * thread then verifies without the blob being copied to it, nor hashed there while it indexes (a load of
 * 100,000 chunks hashes 187 MB of lane data).
 */
export async function proveLanes(input: EvidenceInput): Promise<EvidenceInput> {
  if (!input.lanes) return input;
  const { lanes, ...rest } = input;
  return { ...rest, lanesProof: proofOf(lanes, await lanesDigestOffThread(lanes), input.manifest) };
}

/**
 * Lane data that no recorded digest can prove (its manifest is missing or unreadable) is decoded once here to see
 * whether it can be: rare (a damaged generation), and one generation's lane data.
 */
function proofOf(lanes: Uint8Array, digest: string, manifest: unknown): LanesProof {
  const proof: LanesProof = { digest, chunkCount: headerChunkCount(lanes) };
  if (recordedLanesDigest(manifest) !== null) return proof;
  try {
    decodeLanes(lanes);
    return proof;
  } catch {
    return { ...proof, decodes: false };
  }
}

/** The verification input of a served generation, without vectors and entities. */
export function evidenceInputOf(generation: ServingGeneration): EvidenceInput {
  const { generation: id, documentId, versionKey, jobId, manifest, leaves, chunkCount, lanes, unreadable } = generation;
  const chunks = generation.chunks?.map(({ chunkIndex, text }) => ({ chunkIndex, text }));
  return { generation: id, documentId, versionKey, jobId, manifest, leaves, chunkCount, lanes, ...(unreadable ? { unreadable } : {}), ...(chunks ? { chunks } : {}) };
}

/**
 * The verification input of a generation whose lane data is proven otherwise: a segment read back from the
 * segment cache was built from lane data of this digest and chunk count (serving/caches/segment-cache.ts), so the blob is
 * neither read nor hashed again.
 */
export function withLanesProof(generation: ServingGeneration, proof: LanesProof): EvidenceInput {
  return { ...evidenceInputOf(generation), lanes: null, lanesProof: proof };
}

/**
 * Persisted lane data is proven by the digest its writer recorded in the manifest, with the chunk count it
 * declares: the manifest's content and fuzzy digests were computed by that writer from the same chunks, so
 * the blob is not decoded here (loading 100,000 chunks verifies in a fraction of a second).
 */
function lanesProven(manifest: Manifest, proof: LanesProof, chunkCount: number): boolean {
  if (!manifest.lanes || manifest.lanes.count !== chunkCount || manifest.content.count !== chunkCount) return false;
  return manifest.lanes.digest === proof.digest && proof.chunkCount === chunkCount;
}

/**
 * Whether persisted lane data may be decoded into a segment: the bytes (by digest) and the chunk count the
 * generation's own stored manifest recorded, whether or not that manifest is authoritative. A manifest that records
 * no digest (missing, or unreadable) proves nothing either way: such lane data is served if it decodes (proofOf
 * tried) with the generation's chunk count, so that reads needing the version still fail closed on its evidence.
 * A generation without persisted lane data is indexed from its chunk text, which any text can be.
 */
function lanesDecodable(manifest: unknown, proof: LanesProof | null, chunkCount: number): boolean {
  if (proof === null) return true;
  const recorded = recordedLanesDigest(manifest);
  if (recorded === null) return proof.decodes !== false && proof.chunkCount === chunkCount;
  return recorded === proof.digest && proof.chunkCount === chunkCount;
}

export function verifyEvidence(generation: EvidenceInput): Evidence {
  const proof = generation.lanesProof ?? (generation.lanes ? proofOf(generation.lanes, lanesDigest(generation.lanes), generation.manifest) : null);
  const evidence = verdictOf(generation, proof);
  if (evidence.state === 'verified' || lanesDecodable(generation.manifest, proof, generation.chunkCount)) return evidence;
  return { ...evidence, lanesUnproven: true };
}

/** Whether a generation's chunks may be indexed for serving (see Evidence: `lanesUnproven`). */
export function lanesServable(evidence: Evidence): boolean {
  return evidence.state === 'verified' || evidence.lanesUnproven !== true;
}

function verdictOf(generation: EvidenceInput, proof: LanesProof | null): Evidence {
  const versionId = versionIdFromKey(generation.versionKey);
  if (generation.unreadable) return { state: 'malformed', reason: `unreadable ${generation.unreadable.join(', ')}` };
  const problem = manifestProblem(generation.manifest, generation.documentId, versionId);
  if (problem === 'missing') return { state: 'unauthoritative', reason: 'missing manifest' };
  if (problem === 'malformed') return { state: 'malformed', reason: 'malformed manifest' };
  if (problem === 'conflicting') return { state: 'unauthoritative', reason: 'manifest of another version' };
  const manifest = generation.manifest as unknown as Manifest;
  if (manifest.record_id !== recordIdOf(generation.documentId, versionId, generation.jobId)) return { state: 'unauthoritative', reason: 'manifest of another record' };
  const point = `generation ${generation.generation}`;
  if (proof) {
    if (!lanesProven(manifest, proof, generation.chunkCount)) return { state: 'corrupt', lane: 'content', point };
    if (!sameLane(manifest.metadata, metadataEvidence(generation.leaves))) return { state: 'corrupt', lane: 'metadata', point };
    return VERIFIED;
  }
  const computed = computeManifest({ documentId: generation.documentId, versionId, jobId: generation.jobId }, generation.chunks ?? [], generation.leaves);
  if (!sameLane(manifest.content, computed.content)) return { state: 'corrupt', lane: 'content', point };
  if (!sameLane(manifest.fuzzy, computed.fuzzy)) return { state: 'corrupt', lane: 'fuzzy', point };
  if (!sameLane(manifest.metadata, computed.metadata)) return { state: 'corrupt', lane: 'metadata', point };
  return VERIFIED;
}
