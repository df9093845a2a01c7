// /openapi.json as a client generator reads it: a valid OpenAPI 3.1 document (checked by an OpenAPI validator)
// that declares, for every route, each status SPEC.md lists for it and each status the running service answers
// to a sweep of bad requests, errors as the envelope and Retry-After where it applies; uploads and updates 202;
// and bodies the service really sends on the happy path of each route match the schema declared for them (that the
// serializer loses no member on the way is test/http/response-serialization.test.ts).

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
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        if (Number(status) < 400) continue;
        if (path === '/health' && status === '503') {
          // Not an error envelope: the health answer itself, with the publication component failed.
          assert.deepEqual(response.content['application/json'].schema.required, operation.responses['200'].content['application/json'].schema.required);
          continue;
        }
        const schema = response.content?.['application/json']?.schema;
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
      if (!ajv.validate(media.schema, value)) problems.push(`${where}: the example does not fit: ${ajv.errorsText(ajv.errors)}`);
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
    const schema = response?.content?.[text ? 'text/plain' : 'application/json']?.schema;
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
      assert.ok(success?.[1].content, `${method.toUpperCase()} ${path} declares the body of its success`);
    }
  }
});
