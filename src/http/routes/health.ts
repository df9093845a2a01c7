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

const SERVING_SAFE_MODES = new Set(['READY', 'FENCING']);

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

export function registerHealthRoutes(app: FastifyInstance, services: Services): void {
  const schemaDigest = schemaDigestCache(services.embedder.dimensions);
  app.get('/health', { schema: { tags: ['operations'], security: [] } }, async (_request, reply) => {
    const { authority, storage, config } = services;
    const started = Date.now();
    const stateStoreOk = storage.probe() && Date.now() - started < HEALTH_PROBE_DEADLINE_MS;
    const mode = authority.mode;
    const vectorStoreOk = mode !== 'RECOVERING';
    const components: Record<string, string> = {
      api: 'ok',
      state_store: stateStoreOk ? 'ok' : 'error',
      vector_store: vectorStoreOk ? 'ok' : 'error',
      worker_queue: 'ok',
    };
    if (config.classificationEnabled) components.classifier = 'ok';
    if (!authority.enabled) {
      const healthy = stateStoreOk && vectorStoreOk;
      return reply.code(200).send({
        status: healthy ? 'healthy' : 'degraded',
        version: services.version,
        components,
        publishing: { status: 'ready', reason: null, authority_mode: 'DISABLED' },
      });
    }
    const servingSafe = SERVING_SAFE_MODES.has(mode) && stateStoreOk;
    components.publication = servingSafe ? 'ok' : 'error';
    const publishing = servingSafe
      ? mode === 'FENCING'
        ? { status: 'degraded', reason: 'fencing', authority_mode: mode }
        : { status: 'ready', reason: null, authority_mode: mode }
      : { status: 'unavailable', reason: mode.toLowerCase(), authority_mode: mode };
    const healthy = Object.values(components).every((value) => value === 'ok');
    const stats = authority.servingStats();
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
          authority_mode: mode,
          authority_id: authority.authorityId,
          state_store_id: 'sqlite',
          vector_store_id: 'in-memory-snapshot',
          collection_schema_digest: schemaDigest(),
          recovery_evidence: { recovered_at: authority.recoveredAt, clients: stats.clients, versions: stats.versions, chunks: stats.chunks },
        },
      },
    });
  });
}
