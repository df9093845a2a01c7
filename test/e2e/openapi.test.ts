// /openapi.json as a client generator reads it: a valid OpenAPI 3.1 document (checked by an OpenAPI validator)
// that declares, for every route, each status SPEC.md lists for it and each status the running service answers
// to a sweep of bad requests, errors as the envelope and Retry-After where it applies; uploads and updates 202;
// and bodies the service really sends on the happy path of each route match the schema declared for them (that the
// serializer loses no member on the way is test/http/response-serialization.test.ts). For generators: every
// operation has a unique operationId and a description and every field a description, shared shapes are
// components (one error envelope, the Evidence Result, a job status by operation) with every $ref resolving, each
// error response has an example per error code, servers are listed and scope is enumerated.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { useTestServer, api, KEYS, sendRaw, waitForJob } from '../helpers/server.ts';

const server = useTestServer();
const SPEC = readFileSync(new URL('../../../shared/SPEC.md', import.meta.url), 'utf8');

async function openapi(): Promise<any> {
  const response = await api(server.url, '/openapi.json', { key: KEYS.alpha });
  assert.equal(response.status, 200);
  return response.json;
}

/** What a $ref of the document points at (a node that is no $ref is itself). */
function resolve(document: any, node: any): any {
  if (typeof node?.$ref !== 'string') return node;
  assert.match(node.$ref, /^#\//, `${node.$ref} points into the document`);
  const target = node.$ref.slice(2).split('/').reduce((at: any, key: string) => at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
  assert.ok(target, `${node.$ref} exists`);
  return resolve(document, target);
}

/** A schema of the document, validatable on its own: its $refs to components resolve against the document's. */
function standalone(document: any, schema: any): any {
  return { ...schema, components: document.components };
}

/** The statuses a route of the document declares. */
function declared(document: any, method: string, path: string): string[] {
  const operation = document.paths[path]?.[method.toLowerCase()];
  assert.ok(operation, `${method} ${path} is documented`);
  return Object.keys(operation.responses ?? {});
}

test('the document is valid OpenAPI 3.1', async () => {
  const document = await openapi();
  assert.equal(document.openapi, '3.1.0');
  const result = await new Validator().validate(document);
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2)?.slice(0, 2000));
});

test('every status SPEC.md lists for a route is declared for it, and uploads and updates answer 202', async () => {
  const document = await openapi();
  // "### METHOD /path" headings, each followed (before the next heading) by "Status codes: ..." when it lists them.
  const sections = [...SPEC.matchAll(/^### (GET|POST|PATCH|DELETE) (\/\S*)\n([\s\S]*?)(?=^### |^## )/gm)];
  let checked = 0;
  for (const [, method, path, body] of sections) {
    const line = /^Status codes: (.*)$/m.exec(body)?.[1];
    if (!line) continue;
    const statuses = [...line.matchAll(/\b([1-5]\d\d)\b/g)].map((match) => match[1]);
    const have = declared(document, method, path);
    for (const status of statuses) assert.ok(have.includes(status), `${method} ${path} declares ${status} (SPEC.md: ${line})`);
    checked++;
  }
  assert.ok(checked >= 9, `SPEC.md's status lists were found (${checked})`);
  assert.ok(declared(document, 'POST', '/embed').includes('202'));
  assert.ok(declared(document, 'PATCH', '/update').includes('202'));
  assert.ok(!declared(document, 'PATCH', '/update').includes('200'), 'an update is accepted, not done, when it answers');
});

test('errors are the envelope, and 429 and 503 carry Retry-After', async () => {
  const document = await openapi();
  for (const [path, operations] of Object.entries<any>(document.paths)) {
    for (const [method, operation] of Object.entries<any>(operations)) {
      for (const [status, declaredResponse] of Object.entries<any>(operation.responses)) {
        if (Number(status) < 400) continue;
        const response = resolve(document, declaredResponse);
        if (path === '/health' && status === '503') {
          // Not an error envelope: the health answer itself, with the publication component failed.
          const required = resolve(document, response.content['application/json'].schema).required;
          assert.deepEqual(required, resolve(document, operation.responses['200'].content['application/json'].schema).required);
          assert.ok(required.includes('publishing'));
          continue;
        }
        const schema = resolve(document, response.content?.['application/json']?.schema);
        assert.deepEqual(schema?.required, ['detail', 'error_code', 'request_id'], `${method} ${path} ${status} is the envelope`);
        if (status === '429' || status === '503') assert.ok(response.headers?.['Retry-After'], `${method} ${path} ${status} declares Retry-After`);
      }
    }
  }
});

test('what the service answers to bad requests on every route is declared for that route', async () => {
  const document = await openapi();
  const probes: { method: string; path: string; url: string; key?: string | null; body?: unknown }[] = [];
  for (const [path, operations] of Object.entries<any>(document.paths)) {
    for (const method of Object.keys(operations)) {
      const url = path.replace(/\{[^}]+\}/g, 'no-such-id');
      const key = path.startsWith('/admin/') ? KEYS.operator : KEYS.alpha;
      probes.push({ method, path, url, key: null }); // no key
      probes.push({ method, path, url: `${url}?bogus=1`, key }); // an unknown query parameter
      if (method !== 'get' && method !== 'delete') probes.push({ method, path, url, key, body: { bogus: true } }); // a body of the wrong shape
      probes.push({ method, path, url, key, body: method === 'get' || method === 'delete' ? undefined : {} }); // an unknown id or an empty body
    }
  }
  const undeclared: string[] = [];
  for (const probe of probes) {
    const headers: Record<string, string> = probe.key ? { 'X-API-Key': probe.key } : {};
    if (probe.body !== undefined) headers['Content-Type'] = 'application/json';
    const answer = await sendRaw(server.url, probe.url, { method: probe.method.toUpperCase(), headers, body: probe.body === undefined ? undefined : JSON.stringify(probe.body) });
    if (!declared(document, probe.method, probe.path).includes(String(answer.status))) undeclared.push(`${probe.method.toUpperCase()} ${probe.url} (key ${probe.key ? 'yes' : 'no'}) answered ${answer.status}`);
  }
  assert.deepEqual(undeclared, []);
});

test('every operation has a summary, and each JSON body it takes or answers with success has an example that fits its schema', async () => {
  const document = await openapi();
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const problems: string[] = [];
  let examples = 0;
  const check = (where: string, media: any) => {
    if (!media?.schema) return;
    if (media.example === undefined && !media.examples) return void problems.push(`${where}: no example`);
    const values = media.example !== undefined ? [media.example] : Object.values<any>(media.examples).map((entry) => entry.value);
    for (const value of values) {
      examples++;
      if (!ajv.validate(standalone(document, media.schema), value)) problems.push(`${where}: the example does not fit: ${ajv.errorsText(ajv.errors)}`);
    }
  };
  for (const [path, operations] of Object.entries<any>(document.paths)) {
    for (const [method, operation] of Object.entries<any>(operations)) {
      const where = `${method.toUpperCase()} ${path}`;
      if (typeof operation.summary !== 'string' || operation.summary.length < 10) problems.push(`${where}: no summary`);
      check(`${where} request`, operation.requestBody?.content?.['application/json']);
      const success = Object.entries<any>(operation.responses).find(([status]) => status.startsWith('2'));
      check(`${where} ${success?.[0]}`, success?.[1].content?.['application/json']);
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(examples >= 20, `examples were checked (${examples})`);
});

test('what the service answers on the happy path of every route matches the schema declared for it', async () => {
  const document = await openapi();
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const mismatches: string[] = [];
  /** Sends one request and checks its body against the schema the document declares for its status. */
  const check = async (method: string, path: string, url: string, options: { key?: string | null; body?: unknown } = {}) => {
    const answer = await api(server.url, url, { method, key: options.key === undefined ? KEYS.alpha : options.key, body: options.body });
    const response = document.paths[path]?.[method.toLowerCase()]?.responses?.[String(answer.status)];
    const text = /^text\/plain/.test(answer.headers.get('content-type') ?? '');
    const declaredSchema = response?.content?.[text ? 'text/plain' : 'application/json']?.schema;
    const schema = declaredSchema && standalone(document, declaredSchema);
    if (text && schema && !ajv.validate(schema, answer.text)) mismatches.push(`${method} ${url} ${answer.status}: ${ajv.errorsText(ajv.errors)}`);
    if (text) {
      if (!schema) mismatches.push(`${method} ${path} ${answer.status} declares no text/plain body`);
      return answer;
    }
    if (answer.status >= 300) mismatches.push(`${method} ${url} answered ${answer.status}: ${answer.text.slice(0, 200)}`);
    else if (!schema) mismatches.push(`${method} ${path} ${answer.status} declares no body schema`);
    else if (!ajv.validate(schema, answer.json)) mismatches.push(`${method} ${url} ${answer.status}: ${ajv.errorsText(ajv.errors)}`);
    return answer;
  };
  const accepted = await check('POST', '/embed', '/embed', { body: { document_id: 'conformance', version_id: 'v1', text: 'Letter of credit issued for the Penang branch.', metadata: { desk: 'trade' } } });
  await waitForJob(server.url, KEYS.alpha, accepted.json.job_id);
  await check('GET', '/status/{job_id}', `/status/${accepted.json.job_id}`);
  for (const scope of ['content', 'metadata', 'both']) await check('POST', '/search', '/search', { body: { query: 'letter of credit', scope, highlight: true } });
  await check('GET', '/documents', '/documents?include_deleted=true');
  await check('GET', '/document/{document_id}/text', '/document/conformance/text');
  await check('GET', '/discovery/readiness', '/discovery/readiness');
  const update = await check('PATCH', '/update', '/update', { body: { document_id: 'conformance', metadata: { desk: 'treasury' } } });
  await waitForJob(server.url, KEYS.alpha, update.json.job_id);
  await check('GET', '/status/{job_id}', `/status/${update.json.job_id}`);
  await check('DELETE', '/document/{document_id}', '/document/conformance');
  await check('POST', '/document/{document_id}/restore', '/document/conformance/restore');
  const backfill = await check('POST', '/admin/backfill', '/admin/backfill', { key: KEYS.operator, body: { client_id: 'client-alpha' } });
  await waitForJob(server.url, KEYS.alpha, backfill.json.job_id);
  await check('GET', '/status/{job_id}', `/status/${backfill.json.job_id}`);
  await check('POST', '/admin/clients', '/admin/clients', { key: KEYS.operator, body: { client_id: 'conformance-client' } });
  await check('GET', '/admin/clients', '/admin/clients', { key: KEYS.operator });
  await check('PATCH', '/admin/clients/{client_id}', '/admin/clients/conformance-client', { key: KEYS.operator, body: { rate_limit_per_minute: 60 } });
  const issued = await check('POST', '/admin/clients/{client_id}/keys', '/admin/clients/conformance-client/keys', { key: KEYS.operator, body: { filter: { 'metadata.custom.desk': 'trade' }, label: 'conformance' } });
  await check('GET', '/admin/clients/{client_id}/keys', '/admin/clients/conformance-client/keys', { key: KEYS.operator });
  const revoked = await api(server.url, `/admin/keys/${issued.json.key_id}`, { method: 'DELETE', key: KEYS.operator });
  if (!declared(document, 'delete', '/admin/keys/{key_id}').includes(String(revoked.status)) || revoked.text !== '') mismatches.push(`DELETE /admin/keys answered ${revoked.status}: ${revoked.text}`);
  await check('GET', '/web-search/capabilities', '/web-search/capabilities');
  await check('POST', '/web-search', '/web-search', { body: { query: 'overnight policy rate' } });
  await check('DELETE', '/document/{document_id}', '/document/conformance?mode=hard');
  await check('GET', '/health', '/health', { key: null });
  await check('GET', '/metrics', '/metrics', { key: KEYS.operator });
  await check('GET', '/admin/authority', '/admin/authority', { key: KEYS.operator });
  await check('POST', '/admin/authority/mode', '/admin/authority/mode', { key: KEYS.operator, body: { mode: 'READY' } });
  assert.deepEqual(mismatches, []);
  // Every route of the document was exercised with a declared body schema (the sweep above).
  for (const [path, operations] of Object.entries<any>(document.paths)) {
    for (const [method, operation] of Object.entries<any>(operations)) {
      const success = Object.entries<any>(operation.responses).find(([status]) => status.startsWith('2'));
      // 204 No Content has no body to declare (DELETE /admin/keys/{key_id}).
      if (success?.[0] === '204') assert.equal(success[1].content, undefined, `${method.toUpperCase()} ${path} declares no body for 204`);
      else assert.ok(success?.[1].content, `${method.toUpperCase()} ${path} declares the body of its success`);
    }
  }
});

/** Every node of the document below `node` that holds schemas, with where it is (data keys are not walked). */
function* schemaNodes(node: any, where: string): Generator<[string, any]> {
  if (typeof node !== 'object' || node === null) return;
  if (Array.isArray(node)) {
    for (const [index, item] of node.entries()) yield* schemaNodes(item, `${where}/${index}`);
    return;
  }
  yield [where, node];
  for (const [key, value] of Object.entries<any>(node)) {
    if (['example', 'examples', 'default', 'enum', 'const'].includes(key)) continue;
    yield* schemaNodes(value, `${where}/${key}`);
  }
}

test('every operation has a unique operationId and a description, and every field and parameter has a description', async () => {
  const document = await openapi();
  const problems: string[] = [];
  const ids = new Set<string>();
  let operations = 0;
  for (const [path, methods] of Object.entries<any>(document.paths)) {
    for (const [method, operation] of Object.entries<any>(methods)) {
      operations++;
      const where = `${method.toUpperCase()} ${path}`;
      if (typeof operation.operationId !== 'string' || !/^[a-z][A-Za-z]+$/.test(operation.operationId)) problems.push(`${where}: operationId ${operation.operationId}`);
      else if (ids.has(operation.operationId)) problems.push(`${where}: operationId ${operation.operationId} is used twice`);
      ids.add(operation.operationId);
      if (typeof operation.description !== 'string' || operation.description.length < 40) problems.push(`${where}: no description`);
    }
  }
  let fields = 0;
  for (const [where, node] of schemaNodes({ paths: document.paths, components: document.components }, '#')) {
    if (node.properties && typeof node.properties === 'object' && !Array.isArray(node.properties)) {
      for (const [name, property] of Object.entries<any>(node.properties)) {
        fields++;
        if (typeof property.description !== 'string' || property.description.length < 4) problems.push(`${where}/properties/${name}: no description`);
      }
    }
    if (Array.isArray(node.parameters)) {
      for (const parameter of node.parameters) {
        fields++;
        if (typeof parameter.description !== 'string' || parameter.description.length < 4) problems.push(`${where} parameter ${parameter.name}: no description`);
      }
    }
  }
  // Each tag an operation is grouped by is declared, with a description.
  const tags = new Map<string, any>(document.tags.map((tag: any) => [tag.name, tag]));
  for (const methods of Object.values<any>(document.paths)) {
    for (const operation of Object.values<any>(methods)) for (const tag of operation.tags ?? []) if (!tags.get(tag)?.description) problems.push(`tag ${tag} is not described`);
  }
  if (!(document.info.description?.length > 200)) problems.push('info has no description');
  assert.deepEqual(problems, []);
  assert.ok(operations >= 16 && fields >= 200, `operations (${operations}) and fields (${fields}) were checked`);
});

test('shared shapes are components: one error envelope, the Evidence Result, a job status by operation; servers are listed, scope is enumerated', async () => {
  const document = await openapi();
  // Every $ref resolves.
  for (const [where, node] of schemaNodes(document, '#')) if (typeof node.$ref === 'string') assert.ok(resolve(document, node), `${where}: ${node.$ref}`);
  assert.equal(document.servers?.[0]?.url, '/', 'the first server is the service that serves the document');
  assert.ok(document.servers.every((server: any) => typeof server.description === 'string'));

  const { schemas, responses } = document.components;
  assert.deepEqual(schemas.ErrorEnvelope.required, ['detail', 'error_code', 'request_id']);
  // The envelope is declared once, not once per status and route: the shared responses hold a $ref to it, and
  // only POST /embed's own refusals (quota, size, form) spell theirs out, each naming its error_code.
  const spelled = JSON.stringify(document).split('"required":["detail","error_code","request_id"]').length - 1;
  assert.ok(spelled <= 4, `the envelope is spelled out ${spelled} times`);
  let shared = 0;
  for (const methods of Object.values<any>(document.paths)) {
    for (const operation of Object.values<any>(methods)) {
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        if (typeof response.$ref !== 'string') continue;
        shared++;
        assert.ok(Number(status) >= 400, `${status} is an error status`);
        assert.deepEqual(resolve(document, resolve(document, response).content['application/json'].schema), schemas.ErrorEnvelope);
      }
    }
  }
  assert.ok(shared >= 60, `error statuses answer the shared responses (${shared})`);
  assert.ok(responses.TooManyRequests.headers['Retry-After'], 'a 429 says when to repeat');

  const search = document.paths['/search'].post;
  const answer = resolve(document, search.responses['200'].content['application/json'].schema);
  assert.equal(answer.properties.results.items.$ref, '#/components/schemas/EvidenceResult');
  assert.equal(schemas.EvidenceResult.properties.content_evidence.$ref, '#/components/schemas/ContentEvidence');
  const scope = resolve(document, search.requestBody.content['application/json'].schema).properties.scope;
  assert.deepEqual(scope.anyOf[0].enum, ['content', 'metadata', 'both']);
  // The other cases the service accepts (SPEC.md: case-insensitive), and nothing else.
  const ajv = new Ajv2020({ strict: false });
  for (const value of ['content', 'Metadata', 'BOTH']) assert.ok(ajv.validate(scope, value), value);
  for (const value of ['contents', 'meta', '']) assert.ok(!ajv.validate(scope, value), value);

  // A job's status: the common part, then the part of each operation.
  const job = resolve(document, document.paths['/status/{job_id}'].get.responses['200'].content['application/json'].schema);
  const parts = job.allOf.map((part: any) => part.$ref.replace('#/components/schemas/', ''));
  assert.deepEqual(parts, ['JobStatusCommon', 'UploadJobStatus', 'MetadataUpdateJobStatus', 'BackfillJobStatus']);
  assert.ok(schemas.UploadJobStatus.properties.search_ready && schemas.MetadataUpdateJobStatus.properties.updated_fields && schemas.BackfillJobStatus.properties.violations);
  assert.deepEqual(schemas.JobStatusCommon.properties.operation.enum, ['embed', 'metadata_update', 'metadata_backfill']);
});

test('every error response has an example of each error code it names, each fitting its schema', async () => {
  const document = await openapi();
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const problems: string[] = [];
  let examples = 0;
  const check = (where: string, response: any) => {
    const media = response.content?.['application/json'];
    if (!media) return void problems.push(`${where}: no JSON body`);
    const entries = Object.entries<any>(media.examples ?? {});
    if (entries.length === 0) return void problems.push(`${where}: no example`);
    for (const [name, example] of entries) {
      examples++;
      if (!ajv.validate(standalone(document, media.schema), example.value)) problems.push(`${where} ${name}: ${ajv.errorsText(ajv.errors)}`);
      if (!response.description.includes(example.value.error_code)) problems.push(`${where} ${name}: ${example.value.error_code} is not named by "${response.description}"`);
    }
  };
  for (const [name, response] of Object.entries<any>(document.components.responses)) check(`components.responses.${name}`, response);
  for (const [path, methods] of Object.entries<any>(document.paths)) {
    for (const [method, operation] of Object.entries<any>(methods)) {
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        if (Number(status) >= 400 && typeof response.$ref !== 'string' && !(path === '/health' && status === '503')) check(`${method.toUpperCase()} ${path} ${status}`, response);
      }
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(examples >= 20, `error examples were checked (${examples})`);
});
