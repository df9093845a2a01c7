// A key's forced filter (DESIGN.md "Clients and keys at runtime"): every read by a key issued with a `filter`
// sees only the Document Versions it matches. The filter is written in POST /search's syntax and compiled by the
// same rules (filters.ts); it confines versions, so it holds version-level keys only (a location key would
// confine chunks, which list and text reads cannot honour). It is ANDed with whatever the caller asks: a caller's
// filter can narrow it, never widen it, and include_deleted still shows only versions inside it.

import { ServiceError } from '../domain/service-error.ts';
import type { ServedVersion } from '../serving/served-types.ts';
import type { ClientSnapshot } from '../serving/snapshot.ts';
import { versionIdentity, versionIdFromKey } from '../domain/identity.ts';
import { compileFilters } from './filters.ts';
import type { CompiledFilters } from './filters.ts';

/** A key's compiled confinement: which versions its reads may see. */
export interface Confinement {
  matchesVersion(version: ServedVersion): boolean;
}

/**
 * Compiles a key's filter, or throws ServiceError invalid_filter naming what is wrong (the operator route answers
 * it 422 at issue). A filter that holds no condition confines nothing, so it is refused too.
 */
export function compileConfinement(filter: unknown): Confinement {
  const compiled = compileFilters(filter);
  if (compiled.isEmpty) throw new ServiceError('invalid_filter', 'A key filter needs at least one condition');
  if (compiled.hasChunkConditions) throw new ServiceError('invalid_filter', 'A key filter confines Document Versions: location.* keys are not allowed');
  return { matchesVersion: (version) => compiled.matchesVersion(version) };
}

/** The caller's filters narrowed to the key's confinement (the caller's own, unchanged, without one). */
export function confinedFilters(filters: CompiledFilters, confinement: Confinement | null): CompiledFilters {
  if (confinement === null) return filters;
  return {
    applied: filters.applied,
    isEmpty: false,
    hasChunkConditions: filters.hasChunkConditions,
    matchesVersion: (version) => confinement.matchesVersion(version) && filters.matchesVersion(version),
    matchesChunk: (chunk) => filters.matchesChunk(chunk),
  };
}

/** Whether a version may be seen by a read under this confinement (always, without one). */
export function withinConfinement(version: ServedVersion, confinement: Confinement | null): boolean {
  return confinement === null || confinement.matchesVersion(version);
}

/**
 * Whether a job's status may be shown under this confinement: only a job of one Document Version that the
 * snapshot serves and the confinement matches. A job of a whole document or of the whole Client (a backfill),
 * or of a version not published yet, cannot be proven inside it and is the same not-found as none.
 */
export function jobWithinConfinement(snapshot: ClientSnapshot, job: { documentId: string; versionKey: string | null }, confinement: Confinement | null): boolean {
  if (confinement === null) return true;
  if (job.versionKey === null || job.documentId === '') return false;
  const version = snapshot.versions.get(versionIdentity({ documentId: job.documentId, versionId: versionIdFromKey(job.versionKey) }));
  return version !== undefined && confinement.matchesVersion(version);
}
