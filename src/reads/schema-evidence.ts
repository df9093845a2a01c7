// The vector-store evidence GET /health reports (vector_store_version, collection_schema_digest): derived from
// the store's lane schemas, which a probe reads within its deadline, and kept a while so that /health does not
// read them on every call.

import { createHash } from 'node:crypto';
import { SCHEMA_CACHE_MAX_AGE_MS } from '../spec-limits.ts';

export interface SchemaEvidence {
  vectorStoreVersion: string;
  collectionSchemaDigest: string;
}

/**
 * The vector-store version and collection-schema digest, read from the store's lane schemas and kept at most
 * SCHEMA_CACHE_MAX_AGE_MS. Provisioning a Client store (seen as a change in the number of stores, whichever
 * process provisioned it) drops the cache, so the next probe re-reads the schemas; nothing refreshes it in
 * the background.
 */
export class SchemaEvidenceCache {
  private cached: { evidence: SchemaEvidence; at: number; provisioned: number } | null = null;
  private readonly read: () => Promise<{ engineVersion: string; schemas: string[] }>;
  private readonly provisioned: () => Promise<number>;
  private readonly dimensions: number;
  private readonly now: () => number;

  constructor(deps: { read: () => Promise<{ engineVersion: string; schemas: string[] }>; provisioned: () => Promise<number>; dimensions: number; now?: () => number }) {
    this.read = deps.read;
    this.provisioned = deps.provisioned;
    this.dimensions = deps.dimensions;
    this.now = deps.now ?? Date.now;
  }

  async evidence(): Promise<SchemaEvidence> {
    const provisioned = await this.provisioned();
    const cached = this.cached;
    if (cached && cached.provisioned === provisioned && this.now() - cached.at <= SCHEMA_CACHE_MAX_AGE_MS) return cached.evidence;
    const { engineVersion, schemas } = await this.read();
    const digest = createHash('sha256').update(schemas.join('\n')).update(`dense:${this.dimensions}`).digest('hex').slice(0, 16);
    const evidence = { vectorStoreVersion: `${engineVersion}+in-memory-segments-v1`, collectionSchemaDigest: digest };
    this.cached = { evidence, at: this.now(), provisioned };
    return evidence;
  }
}
