// The OpenAPI document as generators read it. Routes keep their schemas inline (they validate requests and
// serialize answers: serialization.ts), each shared shape marked by a `title` naming its component; this pass,
// run on the document @fastify/swagger builds (app.ts), moves each marked shape to components.schemas and leaves
// a $ref where it was, gives each error status one shared response (the envelope, its catalogue codes, an example
// per code, Retry-After where it applies), writes a job's status as the parts each operation adds, lists the
// servers, and gives every field a description. Nothing here changes what a route accepts or answers.

import { STATUS_CODES } from 'node:http';
import { ERROR_CATALOGUE, renderError } from './error-catalogue.ts';
import type { ServiceErrorCode } from '../domain/service-error.ts';
import { errorResponseDescription, JOB_STATUS_PARTS, RATE_LIMIT_HEADER_DOCS, SCHEMA_COMPONENTS } from './route-responses.ts';
import { FIELD_DESCRIPTIONS } from './field-descriptions.ts';
import { SEARCH_SCOPES } from './routes/search.ts';

type Json = Record<string, any>;

const SCHEMA_REF = '#/components/schemas/';
const RESPONSE_REF = '#/components/responses/';
const HEADER_REF = '#/components/headers/';
const RETRY_AFTER_REF = `${HEADER_REF}RetryAfter`;
/** The RateLimit-* headers as components: each header's name without its hyphen (RateLimitRemaining). */
const RATE_LIMIT_HEADER_COMPONENTS: Json = Object.fromEntries(
  Object.entries(RATE_LIMIT_HEADER_DOCS).map(([name, { description, ...schema }]) => [name.replace('-', ''), { description, schema }]),
);
const RATE_LIMIT_HEADER_REFS: Json = Object.fromEntries(Object.keys(RATE_LIMIT_HEADER_DOCS).map((name) => [name, { $ref: `${HEADER_REF}${name.replace('-', '')}` }]));
/** The envelope every error answers with (SPEC.md "Errors"); its component name. */
export const ERROR_ENVELOPE = 'ErrorEnvelope';
/** A request id as the examples show it (any X-Request-Id the caller sent, else a UUID). */
const EXAMPLE_REQUEST_ID = '7c1e4b9a-2f3d-4e5a-8b6c-0d1e2f3a4b5c';
/**
 * The default PORT (config.ts): the second server of the document. The first is relative, the service that
 * serves the document, so the document is the same whatever host or port answers it (the committed client copy
 * is compared with what a test server on a random port serves).
 */
const LOCAL_SERVER = 'http://127.0.0.1:8080';

/** What the document says of the API as a whole (the first page of the rendered reference). */
const API_DESCRIPTION = [
  'Hybrid search over English and Malay business documents: upload files or text, then search their text (dense and keyword lanes fused, optionally reranked), their typed metadata, or both, with filters and highlighted evidence.',
  '',
  "**Keys.** Every operation but GET /health takes an `X-API-Key` header. A key belongs to one Client (API_KEY_CLIENTS) and sees that Client's documents only; /admin/ operations and /metrics take an operator key (OPERATOR_API_KEYS).",
  '',
  "**Jobs.** Uploads, metadata updates and backfills answer 202 with a job: poll GET /status/{job_id} until it is completed, failed, partial_failed or superseded.",
  '',
  "**Limits.** Each Client's requests are rate limited (RATE_LIMIT_PER_MINUTE, and SEARCH_RATE_LIMIT_PER_MINUTE for searches). A 429, and a 503 while publication cannot be proven or the store cannot be reached, says in Retry-After how many seconds to wait before repeating the request. Every answer of a rate-limited operation tells the budget that decided it in RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset, and a 429's details name its limit, window_seconds and retry_after_seconds: pace on those instead of guessing the limit.",
  '',
  '**Errors.** Every error is one envelope: detail (for a person), error_code (for a program), request_id, and details where there is more to say (for a validation error, the list of fields and what is wrong with each).',
].join('\n');

/** The tags operations are grouped by, in the order a reader meets them. */
const DOCUMENT_TAGS = [
  { name: 'search', description: "Search the Client's documents." },
  { name: 'documents', description: 'Upload, list, read, update, delete and restore documents.' },
  { name: 'settings', description: "The Client's search settings: its synonyms." },
  { name: 'jobs', description: 'Follow the jobs that uploads, updates and backfills queue.' },
  { name: 'discovery', description: 'Whether the metadata lane serves the Client yet.' },
  { name: 'webhooks', description: 'Be told when a job ends: signed deliveries of job outcomes to a URL of the Client.' },
  { name: 'web-search', description: 'Search the public web through the configured provider (off unless the operator enables it).' },
  { name: 'operations', description: 'Health (no key) and metrics (operator key).' },
  { name: 'admin', description: 'Operator key only: the publication authority and backfills.' },
];

/** Keys whose values are data (examples, defaults, enumerations), never schemas to walk. */
const DATA_KEYS = new Set(['example', 'examples', 'default', 'enum', 'const']);

/** Each catalogue error's `details` in its example, where the envelope carries some (SPEC.md "Errors"). */
const EXAMPLE_DETAILS: Readonly<Record<string, unknown>> = {
  validation_error: [{ type: 'missing', loc: ['body', 'query'], msg: 'Field required', input: null }],
  invalid_request: [{ type: 'less_than_equal', loc: ['query', 'limit'], msg: 'Input should be less than or equal to 1000', input: '5000' }],
  client_quota_exceeded: { code: 'client_quota_exceeded', quota: 'documents', observed: 1000, limit: 1000, unit: 'documents' },
  metadata_discovery_not_ready: { code: 'METADATA_DISCOVERY_NOT_READY', state: 'backfilling', readiness: '/discovery/readiness', scopes_available: ['content'] },
  rate_limited: { limit: 30, window_seconds: 60, retry_after_seconds: 23 },
};

/** The component name of an error status's shared response: its HTTP reason phrase in PascalCase (429 TooManyRequests). */
export function errorResponseName(status: number): string {
  return (STATUS_CODES[status] ?? `Status${status}`).replace(/[^A-Za-z ]/g, '').replace(/(?:^|\s)(\w)/g, (_match, letter: string) => letter.toUpperCase());
}

/** Deep equality of two schemas, ignoring where each is used (its description) and what swagger moved out (examples). */
function sameShape(left: unknown, right: unknown): boolean {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (typeof value !== 'object' || value === null) return value;
    const out: Json = {};
    for (const key of Object.keys(value).sort()) if (key !== 'description' && key !== 'examples' && key !== 'example') out[key] = strip((value as Json)[key]);
    return out;
  };
  return JSON.stringify(strip(left)) === JSON.stringify(strip(right));
}

/**
 * Replaces every schema marked with a component's title by a $ref to it (the use site's own description kept
 * beside the $ref where it differs), below `node`. A marked schema that is not the component's shape is a route
 * that changed a shared shape without renaming it: the document would lie, so building it fails.
 */
function hoist(node: unknown, used: Set<string>, where: string): unknown {
  if (Array.isArray(node)) return node.map((item, index) => hoist(item, used, `${where}/${index}`));
  if (typeof node !== 'object' || node === null) return node;
  const schema = node as Json;
  const name = typeof schema.title === 'string' ? schema.title : null;
  const component = name === null ? undefined : SCHEMA_COMPONENTS[name];
  if (name !== null && component) {
    if (!sameShape(schema, component)) throw new Error(`${where}: a schema titled ${name} is not the ${name} component`);
    used.add(name);
    const reference: Json = { $ref: `${SCHEMA_REF}${name}` };
    if (typeof schema.description === 'string' && schema.description !== (component as Json).description) reference.description = schema.description;
    return reference;
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) out[key] = DATA_KEYS.has(key) ? value : hoist(value, used, `${where}/${key}`);
  return out;
}

/** A pattern matching the word in any case (JSON Schema patterns take no flags). */
function caseInsensitive(word: string): string {
  return [...word].map((letter) => `[${letter.toLowerCase()}${letter.toUpperCase()}]`).join('');
}

/** The components.schemas of the used components, each walked for the components it holds in turn. */
function schemaComponents(used: Set<string>): Json {
  const schemas: Json = {};
  const pending = [...used];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (schemas[name]) continue;
    const inner = new Set<string>();
    // JobStatus is written as its parts (each then a component of its own); any other is the shape as declared.
    const source = name === 'JobStatus' ? jobStatusByOperation() : ((JOB_STATUS_PARTS[name] ?? SCHEMA_COMPONENTS[name]) as Json);
    if (name === 'JobStatus') for (const part of Object.keys(JOB_STATUS_PARTS)) inner.add(part);
    // The component itself is not replaced by its own $ref: only what it holds is walked.
    const body: Json = {};
    for (const [key, value] of Object.entries(source)) body[key] = DATA_KEYS.has(key) ? value : hoist(value, inner, `#/components/schemas/${name}/${key}`);
    schemas[name] = body;
    for (const held of inner) if (!schemas[held]) pending.push(held);
  }
  // POST /search matches scope case-insensitively (SPEC.md), so its validator has no enum (it answers its own
  // message for any other value). The document names the three values a client sends, and admits their other
  // cases as the service does: a generated type stays a string, so callers that pass one still compile.
  const scope = schemas.SearchRequest?.properties?.scope;
  if (scope) {
    const { type: _type, ...rest } = scope;
    schemas.SearchRequest.properties.scope = {
      ...rest,
      anyOf: [
        { type: 'string', enum: [...SEARCH_SCOPES], description: 'The scopes, as a client should send them.' },
        { type: 'string', pattern: `^(?:${SEARCH_SCOPES.map(caseInsensitive).join('|')})$`, description: 'The same scopes in any other case.' },
      ],
    };
  }
  return Object.fromEntries(Object.keys(schemas).sort().map((name) => [name, schemas[name]]));
}

/**
 * GET /status as generators read it: the fields every job has, then the fields each operation adds, one part
 * each (allOf, so a typed client still reads one object). The route serializes through the flat JobStatus
 * schema; the parts are exactly its properties (checked here, so the two cannot drift).
 */
function jobStatusByOperation(): Json {
  const flat = SCHEMA_COMPONENTS.JobStatus as Json;
  const names = Object.values(JOB_STATUS_PARTS).flatMap((part) => Object.keys((part as Json).properties));
  const missing = Object.keys(flat.properties).filter((name) => !names.includes(name));
  const extra = names.filter((name) => !(name in flat.properties));
  if (missing.length > 0 || extra.length > 0 || new Set(names).size !== names.length) {
    throw new Error(`JOB_STATUS_PARTS must hold each JobStatus field once (missing ${missing.join(', ')}; extra ${extra.join(', ')})`);
  }
  return { title: 'JobStatus', description: flat.description, allOf: Object.keys(JOB_STATUS_PARTS).map((name) => ({ $ref: `${SCHEMA_REF}${name}` })) };
}

/** One example envelope per catalogue code of the status (the codes the response schema names, when it names some). */
function errorExamples(status: number, codes: readonly string[] | undefined): Json {
  const examples: Json = {};
  for (const [code, entry] of Object.entries(ERROR_CATALOGUE) as [ServiceErrorCode, (typeof ERROR_CATALOGUE)[ServiceErrorCode]][]) {
    if (entry.status !== status || (codes && !codes.includes(entry.errorCode)) || examples[entry.errorCode]) continue;
    // Rendered as the service renders it (a 503 without details of its own says what failed).
    const { body } = renderError(EXAMPLE_REQUEST_ID, { code, details: EXAMPLE_DETAILS[entry.errorCode] });
    examples[entry.errorCode] = { summary: entry.detail, value: body as unknown as Json };
  }
  return examples;
}

/** The shared response of an error status: the envelope, its codes, an example per code, Retry-After where it applies. */
function sharedErrorResponse(status: number, retries: boolean): Json {
  const response: Json = {
    description: errorResponseDescription(status),
    content: { 'application/json': { schema: { $ref: `${SCHEMA_REF}${ERROR_ENVELOPE}` }, examples: errorExamples(status, undefined) } },
  };
  if (retries) response.headers = { 'Retry-After': { $ref: RETRY_AFTER_REF } };
  // Only a route with a budget answers 429, and tells its budget with it.
  if (status === 429) response.headers = { ...response.headers, ...RATE_LIMIT_HEADER_REFS };
  return response;
}

/** Gives each field without a description of its own the one its name has across the API (field-descriptions.ts). */
function describeFields(node: unknown, where: string, missing: string[]): void {
  if (Array.isArray(node)) return node.forEach((item, index) => describeFields(item, `${where}/${index}`, missing));
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Json;
  for (const [key, value] of Object.entries(schema)) {
    if (DATA_KEYS.has(key)) continue;
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      for (const [name, property] of Object.entries<Json>(value)) {
        if (typeof property.description !== 'string') {
          if (FIELD_DESCRIPTIONS[name] !== undefined) property.description = FIELD_DESCRIPTIONS[name];
          else missing.push(`${where}/properties/${name}`);
        }
      }
    }
    if (key === 'parameters' && Array.isArray(value)) {
      for (const parameter of value as Json[]) {
        if (typeof parameter.description !== 'string') {
          const fromSchema = parameter.schema?.description;
          if (typeof fromSchema === 'string') parameter.description = fromSchema;
          else if (FIELD_DESCRIPTIONS[parameter.name] !== undefined) parameter.description = FIELD_DESCRIPTIONS[parameter.name];
          else missing.push(`${where}/parameters/${parameter.name}`);
        }
      }
    }
    describeFields(value, `${where}/${key}`, missing);
  }
}

/** The document swagger built, shaped for generators (see the head of this file). */
export function shapeDocument(built: Json): Json {
  const used = new Set<string>();
  const paths = hoist(built.paths, used, '#/paths') as Json;
  const responses: Json = {};
  for (const [path, operations] of Object.entries<Json>(paths)) {
    for (const [method, operation] of Object.entries<Json>(operations)) {
      if (typeof operation.operationId !== 'string') throw new Error(`${method.toUpperCase()} ${path} has no operationId (route-examples.ts)`);
      for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
        const code = Number(status);
        for (const name of Object.keys(RATE_LIMIT_HEADER_REFS)) if (response.headers?.[name] !== undefined) response.headers[name] = RATE_LIMIT_HEADER_REFS[name];
        if (code < 400) continue;
        const media = response.content?.['application/json'];
        const schema = media?.schema;
        if (schema?.$ref === `${SCHEMA_REF}${ERROR_ENVELOPE}` && schema.description === errorResponseDescription(code)) {
          // The status's shared response: every route that answers it says the same.
          const name = errorResponseName(code);
          responses[name] ??= sharedErrorResponse(code, response.headers?.['Retry-After'] !== undefined);
          operation.responses[status] = { $ref: `${RESPONSE_REF}${name}` };
        } else if (media && media.examples === undefined && media.example === undefined) {
          // A route's own refusal (POST /embed's quota, its size and form errors): examples of its codes.
          const codes = schema?.properties?.error_code?.enum as string[] | undefined;
          const examples = errorExamples(code, codes);
          if (Object.keys(examples).length > 0) media.examples = examples;
          if (response.headers?.['Retry-After']) response.headers['Retry-After'] = { $ref: RETRY_AFTER_REF };
        }
      }
    }
  }
  const document: Json = {
    openapi: built.openapi,
    info: { ...built.info, description: API_DESCRIPTION },
    servers: [
      { url: '/', description: 'The service that serves this document' },
      { url: LOCAL_SERVER, description: 'A service on this machine at the default PORT' },
    ],
    security: built.security,
    tags: DOCUMENT_TAGS,
    paths,
    components: {
      ...built.components,
      securitySchemes: { apiKey: { ...built.components?.securitySchemes?.apiKey, description: "A key of API_KEY_CLIENTS (a Client's) or, for /admin/ operations and /metrics, of OPERATOR_API_KEYS." } },
      schemas: schemaComponents(used),
      responses: Object.fromEntries(Object.keys(responses).sort().map((name) => [name, responses[name]])),
      headers: { RetryAfter: { description: 'Seconds to wait before repeating the request.', schema: { type: 'integer', minimum: 1 } }, ...RATE_LIMIT_HEADER_COMPONENTS },
    },
  };
  // A field with no description at all stays so (test/e2e/openapi.test.ts names it): the document is still served.
  describeFields(document, '#', []);
  return document;
}
