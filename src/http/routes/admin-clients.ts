// The operator's Clients and keys (DESIGN.md "Clients and keys at runtime"; OPERATOR_API_KEYS, access.ts):
// POST/GET /admin/clients, PATCH /admin/clients/{client_id}, POST/GET /admin/clients/{client_id}/keys and
// DELETE /admin/keys/{key_id}. The routes validate; access/client-admin.ts answers not-found and conflicts.

import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';
import { validationError } from '../validation.ts';
import { ServiceError } from '../../domain/service-error.ts';
import { idProblem, MAX_ID_LENGTH } from '../../domain/identity.ts';
import { DEFAULT_KEY_SCOPES, FILTERED_KEY_DEFAULT_SCOPES, KEY_SCOPES, MAX_KEY_LABEL_LENGTH } from '../../domain/api-keys.ts';
import type { KeyScope } from '../../domain/api-keys.ts';
import type { JsonObject } from '../../domain/canonical-metadata.ts';
import { compileConfinement } from '../../search/key-filter.ts';

/** The range RATE_LIMIT_PER_MINUTE and SEARCH_RATE_LIMIT_PER_MINUTE accept (config.ts), for a Client's own. */
export const CLIENT_RATE_LIMIT = { min: 1, max: 1_000_000 } as const;

/** An ISO 8601 date-time with its time zone: a key's expiry must name one instant on every host. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

const CLIENT_ID = { type: 'string', minLength: 1, maxLength: MAX_ID_LENGTH, description: 'The Client, as API_KEY_CLIENTS would name it.' } as const;
const CLIENT_PARAMS = { type: 'object', properties: { client_id: CLIENT_ID }, required: ['client_id'] } as const;
const RATE_LIMIT = { type: ['integer', 'null'], minimum: CLIENT_RATE_LIMIT.min, maximum: CLIENT_RATE_LIMIT.max } as const;

const NULLABLE_STRING = { type: ['string', 'null'] } as const;
const CLIENT_FIELDS = {
  client_id: { type: 'string' },
  created_at: { ...NULLABLE_STRING, description: 'When it was created; null for a Client of API_KEY_CLIENTS never changed at runtime.' },
  disabled: { type: 'boolean', description: 'Every key of a disabled Client (those of API_KEY_CLIENTS too) answers 401.' },
  rate_limit_per_minute: { type: ['integer', 'null'], description: "The Client's own RATE_LIMIT_PER_MINUTE; null: the deployment's." },
  search_rate_limit_per_minute: { type: ['integer', 'null'], description: "The Client's own SEARCH_RATE_LIMIT_PER_MINUTE; null: the deployment's." },
  documents: { type: 'integer', minimum: 0 },
  versions: { type: 'integer', minimum: 0, description: 'Active Document Versions.' },
  chunks: { type: 'integer', minimum: 0 },
  bytes: { type: 'integer', minimum: 0, description: 'UTF-8 bytes of the text of its active chunks.' },
} as const;
export const CLIENT_VIEW = { title: 'RuntimeClient', description: 'A Client, with what it holds.', type: 'object', required: Object.keys(CLIENT_FIELDS), properties: CLIENT_FIELDS } as const;

const KEY_FIELDS = {
  key_id: { type: 'string', description: 'Names the key (to revoke it); not a secret.' },
  client_id: { type: 'string' },
  scopes: { type: 'array', items: { type: 'string', enum: [...KEY_SCOPES] }, description: 'What the key may do: search, read, write.' },
  expires_at: { ...NULLABLE_STRING, description: 'When it stops working; null: never.' },
  filter: { type: ['object', 'null'], additionalProperties: true, description: "A POST /search filter object confining every read of the key; null: none." },
  label: { ...NULLABLE_STRING, description: 'The note the operator gave it.' },
  created_at: { type: 'string' },
} as const;
export const KEY_VIEW = { title: 'IssuedKey', description: 'A key issued at runtime, without its secret.', type: 'object', required: Object.keys(KEY_FIELDS), properties: KEY_FIELDS } as const;
export const NEW_KEY = {
  title: 'NewKey',
  description: 'A key just issued: its secret (key) is shown this once; the store keeps only a hash of it.',
  type: 'object',
  required: ['key', ...Object.keys(KEY_FIELDS)],
  properties: { key: { type: 'string', description: 'The secret, sent as X-API-Key. Not shown again.' }, ...KEY_FIELDS },
} as const;

interface KeyBody {
  scopes?: KeyScope[];
  expires_at?: string;
  filter?: JsonObject;
  label?: string;
}

interface ClientPatch {
  disabled?: boolean;
  rate_limit_per_minute?: number | null;
  search_rate_limit_per_minute?: number | null;
}

/** The key's expiry as an ISO instant, or a 422 for one that is not an instant with a zone or is not in the future. */
function expiryOf(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  const at = Date.parse(raw);
  if (!ISO_INSTANT.test(raw) || !Number.isFinite(at)) throw validationError({ type: 'value_error', loc: ['body', 'expires_at'], msg: 'expires_at must be an ISO 8601 date-time with a time zone', input: raw });
  if (at <= Date.now()) throw validationError({ type: 'value_error', loc: ['body', 'expires_at'], msg: 'expires_at must be in the future', input: raw });
  return new Date(at).toISOString();
}

/** The key's filter, validated as POST /search validates its filters (422 here: it is the body of this request). */
function filterOf(filter: JsonObject | undefined): JsonObject | null {
  if (filter === undefined) return null;
  try {
    compileConfinement(filter);
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'invalid_filter') throw validationError({ type: 'value_error', loc: ['body', 'filter'], msg: error.message, input: filter });
    throw error;
  }
  return filter;
}

export function registerClientAdminRoutes(app: FastifyInstance, services: Services): void {
  app.post<{ Body: { client_id: string } }>(
    '/admin/clients',
    { schema: { tags: ['admin'], body: { type: 'object', additionalProperties: false, required: ['client_id'], properties: { client_id: CLIENT_ID } } } },
    async (request, reply) => {
      const problem = idProblem('client_id', request.body.client_id);
      if (problem) throw validationError({ type: 'value_error', loc: ['body', 'client_id'], msg: problem, input: request.body.client_id });
      return reply.code(201).send(await services.clientAdmin.createClient(request.body.client_id));
    },
  );

  app.get('/admin/clients', { schema: { tags: ['admin'] } }, async () => services.clientAdmin.listClients());

  app.patch<{ Params: { client_id: string }; Body: ClientPatch }>(
    '/admin/clients/:client_id',
    {
      schema: {
        tags: ['admin'],
        params: CLIENT_PARAMS,
        body: {
          type: 'object',
          additionalProperties: false,
          minProperties: 1,
          properties: {
            disabled: { type: 'boolean', description: 'true: every key of the Client answers 401 (within 1 s on every api process); false: they work again.' },
            rate_limit_per_minute: { ...RATE_LIMIT, description: "The Client's own RATE_LIMIT_PER_MINUTE; null: the deployment's again." },
            search_rate_limit_per_minute: { ...RATE_LIMIT, description: "The Client's own SEARCH_RATE_LIMIT_PER_MINUTE; null: the deployment's again." },
          },
        },
      },
    },
    async (request) =>
      services.clientAdmin.changeClient(request.params.client_id, {
        disabled: request.body.disabled,
        rateLimitPerMinute: request.body.rate_limit_per_minute,
        searchRateLimitPerMinute: request.body.search_rate_limit_per_minute,
      }),
  );

  app.post<{ Params: { client_id: string }; Body: KeyBody }>(
    '/admin/clients/:client_id/keys',
    {
      schema: {
        tags: ['admin'],
        params: CLIENT_PARAMS,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            scopes: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: [...KEY_SCOPES] }, description: 'What the key may do; default all three (search and read with a filter).' },
            expires_at: { type: 'string', description: 'An ISO 8601 date-time with a time zone, in the future: the key answers 401 from then on.' },
            filter: { type: 'object', description: 'A POST /search filter object: every read of the key sees only the versions it matches. Not with the write scope.' },
            label: { type: 'string', maxLength: MAX_KEY_LABEL_LENGTH, description: 'A note for the operator.' },
          },
        },
      },
    },
    async (request, reply) => {
      const body = request.body ?? {};
      const filter = filterOf(body.filter);
      const scopes = body.scopes ?? [...(filter === null ? DEFAULT_KEY_SCOPES : FILTERED_KEY_DEFAULT_SCOPES)];
      if (filter !== null && scopes.includes('write')) throw validationError({ type: 'value_error', loc: ['body', 'scopes'], msg: 'A key with a filter cannot have the write scope', input: scopes });
      const issued = await services.clientAdmin.issueKey(request.params.client_id, { scopes, expiresAt: expiryOf(body.expires_at), filter, label: body.label ?? null });
      return reply.code(201).send(issued);
    },
  );

  app.get<{ Params: { client_id: string } }>('/admin/clients/:client_id/keys', { schema: { tags: ['admin'], params: CLIENT_PARAMS } }, async (request) => services.clientAdmin.listKeys(request.params.client_id));

  app.delete<{ Params: { key_id: string } }>(
    '/admin/keys/:key_id',
    { schema: { tags: ['admin'], params: { type: 'object', properties: { key_id: { type: 'string', minLength: 1, maxLength: 128, description: 'The key_id its issue answered.' } }, required: ['key_id'] } } },
    async (request, reply) => {
      await services.clientAdmin.revokeKey(request.params.key_id);
      return reply.code(204).send();
    },
  );
}
