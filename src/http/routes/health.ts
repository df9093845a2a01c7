// GET /health: component status, the publishing block and publication diagnostics (SPEC.md "GET /health").
// Never authenticated, never rate limited; 503 only when publication is enabled and serving is unsafe.

import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';
import { HEALTH_PROBE_DEADLINE_MS, SCHEMA_CACHE_MAX_AGE_MS } from '../../spec-limits.ts';


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

/** Resolves with the probe's value, or null when it fails or misses the deadline. */
async function probeWithin<T>(probe: () => Promise<T>, deadlineMs: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      probe().catch(() => null),
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), deadlineMs))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export function registerHealthRoutes(app: FastifyInstance, services: Services): void {
  const schemaCache = new SchemaEvidenceCache({
    read: () => services.health.laneSchemas(),
    provisioned: () => services.health.provisionedClients(),
    dimensions: services.embedder.dimensions,
  });
  app.get('/health', { schema: { tags: ['operations'], security: [] } }, async (_request, reply) => {
    const { readGuard, health, config } = services;
    const recovering = readGuard.isRecovering;
    // Every component is probed, side by side, each read within its own 2-second deadline (the store's reads on
    // the probe thread, where the deadline can fire whatever they do: health-probes.ts, which also re-makes a
    // read another call's stuck one held up). The thread reads in this order, the authority record first: a
    // stuck Client database fails the state store, not publication. The schema evidence is two such reads, each
    // with its deadline: no deadline of its own over both, which would fail it when one of them was re-made.
    const [authority, schema, stateStore, classifier] = await Promise.all([
      readGuard.enabled ? health.authority() : Promise.resolve(null),
      schemaCache.evidence().catch(() => null),
      health.stateStore(),
      config.classificationEnabled ? probeWithin(() => services.probeClassifier().then(() => true), HEALTH_PROBE_DEADLINE_MS) : Promise.resolve(null),
    ]);
    // A store that refused this process's writes for want of space (its budget writes, or a request's own) is
    // degraded even where the probe's reads pass: a full PostgreSQL disk still serves every read.
    const stateStoreOk = stateStore === true && !services.rateLimiter.storeRefusingWrites && !services.storeRefusals.refusingWrites;
    // The serving index of this process: built (not recovering) and its lane schemas readable.
    const vectorStoreOk = !recovering && schema !== null;
    const components: Record<string, string> = {
      api: 'ok',
      state_store: stateStoreOk ? 'ok' : 'error',
      vector_store: vectorStoreOk ? 'ok' : 'error',
      worker_queue: 'ok', // SPEC.md: always ok; workers are not probed
    };
    if (config.classificationEnabled) components.classifier = classifier === true ? 'ok' : 'error';
    const healthy = () => Object.values(components).every((value) => value === 'ok');
    if (!readGuard.enabled) {
      return reply.code(200).send({
        status: healthy() ? 'healthy' : 'degraded',
        version: services.version,
        components,
        publishing: { status: 'ready', reason: null, authority_mode: 'DISABLED' },
      });
    }
    // Publication alone decides the HTTP status: RECOVERING is this process's own; otherwise the durable
    // record decides, and an unreadable record is unsafe. Other failing components degrade with 200.
    const mode = recovering ? 'RECOVERING' : (authority?.mode ?? null);
    const servingSafe = mode === 'READY' || mode === 'FENCING';
    components.publication = servingSafe ? 'ok' : 'error';
    const reportedMode = mode ?? 'UNKNOWN';
    const publishing = servingSafe
      ? mode === 'FENCING'
        ? { status: 'degraded', reason: 'fencing', authority_mode: reportedMode }
        : { status: 'ready', reason: null, authority_mode: reportedMode }
      : { status: 'unavailable', reason: mode ? mode.toLowerCase() : 'authority_unreadable', authority_mode: reportedMode };
    const stats = services.serving.stats();
    return reply.code(servingSafe ? 200 : 503).send({
      status: healthy() ? 'healthy' : 'degraded',
      version: services.version,
      components,
      publishing,
      diagnostics: {
        publication: {
          status: servingSafe ? 'ok' : 'error',
          serving_status: servingSafe ? 'serving' : 'unavailable',
          publishing_status: publishing.status,
          authority_mode: reportedMode,
          authority_id: authority?.authorityId ?? null,
          state_store_id: config.store === 'postgres' ? 'postgresql' : 'sqlite',
          vector_store_id: 'in-memory-snapshot',
          vector_store_version: schema?.vectorStoreVersion ?? null,
          collection_schema_digest: schema?.collectionSchemaDigest ?? null,
          recovery_evidence: { recovered_at: readGuard.recoveredAt, process_id: process.pid, clients: stats.clients, versions: stats.versions, chunks: stats.chunks },
        },
      },
    });
  });
}
