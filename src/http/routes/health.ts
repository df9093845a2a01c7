// GET /health: component status, the publishing block and publication diagnostics (SPEC.md "GET /health").
// Never authenticated, never rate limited; 503 only when publication is enabled and serving is unsafe.

import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';
import { CLIENT_MIGRATIONS } from '../../storage/client-migrations.ts';

/** SPEC.md: schema data comes from a cache of at most 5 minutes. */
export const SCHEMA_CACHE_MAX_AGE_MS = 5 * 60_000;
/** SPEC.md: readiness and diagnostic reads each have a 2-second deadline. */
export const HEALTH_PROBE_DEADLINE_MS = 2_000;

function schemaDigestCache(dimensions: number) {
  let cached: { digest: string; at: number } | null = null;
  return (): string => {
    const now = Date.now();
    if (!cached || now - cached.at > SCHEMA_CACHE_MAX_AGE_MS) {
      const lanes = ['content', 'dense', 'fuzzy', 'metadata'].map((lane) => `${lane}:${lane === 'dense' ? dimensions : 'v1'}`);
      const digest = createHash('sha256').update(CLIENT_MIGRATIONS.join('\n')).update(lanes.join(';')).digest('hex').slice(0, 16);
      cached = { digest, at: now };
    }
    return cached.digest;
  };
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
  const schemaDigest = schemaDigestCache(services.embedder.dimensions);
  app.get('/health', { schema: { tags: ['operations'], security: [] } }, async (_request, reply) => {
    const { readGuard, storage, config } = services;
    // Probes run side by side, each bounded by its own deadline.
    const [stateStore, authority] = await Promise.all([
      probeWithin(() => storage.probe().then(() => true), HEALTH_PROBE_DEADLINE_MS),
      readGuard.enabled ? probeWithin(() => storage.control.authority(), HEALTH_PROBE_DEADLINE_MS) : Promise.resolve(null),
    ]);
    const stateStoreOk = stateStore === true;
    const recovering = readGuard.isRecovering;
    const vectorStoreOk = !recovering;
    const components: Record<string, string> = {
      api: 'ok',
      state_store: stateStoreOk ? 'ok' : 'error',
      vector_store: vectorStoreOk ? 'ok' : 'error',
      worker_queue: 'ok',
    };
    if (config.classificationEnabled) components.classifier = 'ok';
    if (!readGuard.enabled) {
      const healthy = stateStoreOk && vectorStoreOk;
      return reply.code(200).send({
        status: healthy ? 'healthy' : 'degraded',
        version: services.version,
        components,
        publishing: { status: 'ready', reason: null, authority_mode: 'DISABLED' },
      });
    }
    // RECOVERING is this process's own; otherwise the durable record decides (unreadable means unsafe).
    const mode = recovering ? 'RECOVERING' : (authority?.mode ?? null);
    const servingSafe = (mode === 'READY' || mode === 'FENCING') && stateStoreOk;
    components.publication = servingSafe ? 'ok' : 'error';
    const reportedMode = mode ?? 'UNKNOWN';
    const publishing = servingSafe
      ? mode === 'FENCING'
        ? { status: 'degraded', reason: 'fencing', authority_mode: reportedMode }
        : { status: 'ready', reason: null, authority_mode: reportedMode }
      : { status: 'unavailable', reason: mode ? mode.toLowerCase() : 'authority_unreadable', authority_mode: reportedMode };
    // FENCING stays healthy when every serving component is (SPEC.md health rule 1).
    const healthy = Object.values(components).every((value) => value === 'ok');
    const stats = services.serving.stats();
    return reply.code(servingSafe ? 200 : 503).send({
      status: healthy ? 'healthy' : 'degraded',
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
          state_store_id: 'sqlite',
          vector_store_id: 'in-memory-snapshot',
          collection_schema_digest: schemaDigest(),
          recovery_evidence: { recovered_at: readGuard.recoveredAt, process_id: process.pid, clients: stats.clients, versions: stats.versions, chunks: stats.chunks },
        },
      },
    });
  });
}
