// Reads fail closed on publication evidence (SPEC.md search rules 10 and 11, the publication errors): a
// Document Version whose generation did not verify when it entered the snapshot never occupies a page slot.
// A search that would need one fails: 503 publication_authority_inconsistent for a non-authoritative
// generation (no manifest, or another record's), 500 internal_error for a malformed one (stored JSON that
// does not parse, a manifest of the wrong shape), 500 naming the lane and point for an authoritative one
// whose stored evidence is corrupt.

import { ServiceError } from '../domain/service-error.ts';
import type { ServedVersion } from '../serving/served-types.ts';
import type { ClientSnapshot } from '../serving/snapshot.ts';

const provenSnapshots = new WeakMap<ClientSnapshot, boolean>();

/**
 * Whether every version a snapshot holds verified, those it serves and those its segments still name: then no
 * search of it can meet one that did not, and the per-search check of every ranked version is skipped. Worked out
 * once per snapshot (snapshots are immutable), so a search's cost does not grow with how many versions it matched.
 */
export function everyVersionProven(snapshot: ClientSnapshot): boolean {
  let proven = provenSnapshots.get(snapshot);
  if (proven === undefined) {
    proven = true;
    for (const version of snapshot.versions.values()) if (version.evidence.state !== 'verified') proven = false;
    for (const segment of snapshot.segments) for (const version of segment.versions) if (version.evidence.state !== 'verified') proven = false;
    provenSnapshots.set(snapshot, proven);
  }
  return proven;
}

/** For search: throws on the first candidate version that cannot be proven; corrupt evidence is a 500. */
export function requireEvidence(versions: Iterable<ServedVersion>): void {
  for (const version of versions) {
    const evidence = version.evidence;
    if (evidence.state === 'unauthoritative') {
      throw new ServiceError('publication_authority_inconsistent', `A candidate version lacks publication evidence (${evidence.reason})`);
    }
    if (evidence.state === 'malformed') {
      throw new ServiceError('internal_error', `A candidate version's stored publication evidence is malformed (${evidence.reason})`);
    }
    if (evidence.state === 'corrupt') {
      const lane = `${evidence.lane}`;
      throw new ServiceError('stored_evidence_inconsistent', 'Stored evidence is inconsistent with the publication manifest', {
        details: { code: 'stored_evidence_inconsistent', lane, point: evidence.point },
      });
    }
  }
}

/** For list and text (whose contract has no 500 for it): any version that cannot be proven fails closed with 503. */
export function requireEvidenceOrUnavailable(versions: Iterable<ServedVersion>): void {
  for (const version of versions) {
    if (version.evidence.state !== 'verified') {
      throw new ServiceError('publication_authority_inconsistent', 'A version of this read lacks verified publication evidence');
    }
  }
}
