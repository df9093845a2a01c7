// Hostile input at the HTTP boundary (issue 9): bodies nested without bound, malformed multipart, strings
// that are not well-formed Unicode, loose query integers, duplicate JSON keys, Content-Encoding, extra file
// parts, and requests Node's HTTP parser refuses. Each gets a 4xx envelope and changes nothing.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { gzipSync, deflateSync } from 'node:zlib';
import { useTestServer, api, KEYS, sendRaw, uploadText, waitForJob, untilHealthy } from '../helpers/server.ts';
import { MAX_JSON_DEPTH } from '../../src/http/json-body.ts';

const server = useTestServer();

type Body = string | Uint8Array;

/** A request with a raw body (bytes as given) and explicit headers. */
async function send(path: string, options: { method?: string; key?: string | null; headers?: Record<string, string>; body?: Body } = {}) {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? KEYS.alpha : options.key;
  if (key !== null) headers['X-API-Key'] = key;
  return sendRaw(server.url, path, { method: options.method ?? 'POST', headers, body: options.body });
}

const json = (path: string, body: Body, options: { method?: string; key?: string; headers?: Record<string, string> } = {}) =>
  send(path, { ...options, body, headers: { 'Content-Type': 'application/json', ...options.headers } });

function assertEnvelope(response: { status: number; json: any; text: string }, status: number) {
  assert.equal(response.status, status, response.text.slice(0, 500));
  assert.equal(typeof response.json?.detail, 'string', response.text.slice(0, 500));
  assert.equal(typeof response.json.error_code, 'string');
  assert.equal(typeof response.json.request_id, 'string');
  if (status === 422) {
    assert.equal(response.json.error_code, 'validation_error');
    assert.ok(Array.isArray(response.json.details) && response.json.details.length > 0);
    for (const entry of response.json.details) {
      assert.deepEqual(Object.keys(entry).sort(), ['input', 'loc', 'msg', 'type']);
      assert.ok(Array.isArray(entry.loc));
    }
  }
}

/** The 422 entry of a validation failure (the first). */
function entry(response: { json: any }) {
  return response.json.details[0];
}

/** A JSON body sent to a route: [method, path, body text, where its refusal points]. */
type RefusedBody = [string, string, string, (string | number)[]];

/** Sends every case and expects a 422 whose first entry is of `type` at the case's location. */
async function expectRefused(cases: RefusedBody[], type: string): Promise<void> {
  for (const [method, path, body, loc] of cases) {
    const response = await json(path, body, { method });
    assertEnvelope(response, 422);
    assert.equal(entry(response).type, type, body);
    assert.deepEqual(entry(response).loc, loc, body);
  }
}

/** Every job of every Client, from the jobs gauge of /metrics. */
async function jobCount(): Promise<number> {
  const text = (await api(server.url, '/metrics', { key: KEYS.operator })).text;
  return [...text.matchAll(/^jobs\{[^}]*\} (\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
}

const nested = (depth: number, leaf = '1') => '['.repeat(depth) + leaf + ']'.repeat(depth);
const nestedObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

function multipart(boundary: string, parts: { name: string; value: string | Uint8Array; filename?: string; headers?: string }[], end = `--${boundary}--\r\n`): Uint8Array {
  const chunks: Uint8Array[] = [];
  const encoder = new TextEncoder();
  for (const part of parts) {
    const disposition = `Content-Disposition: form-data; name="${part.name}"${part.filename !== undefined ? `; ${part.filename}` : ''}`;
    chunks.push(encoder.encode(`--${boundary}\r\n${disposition}\r\n${part.headers ?? ''}\r\n`));
    chunks.push(typeof part.value === 'string' ? encoder.encode(part.value) : part.value);
    chunks.push(encoder.encode('\r\n'));
  }
  chunks.push(encoder.encode(end));
  return Buffer.concat(chunks);
}

const formUpload = (body: Uint8Array, boundary = 'BOUNDARY', key: string = KEYS.alpha) =>
  send('/embed', { key, body, headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` } });

test('a JSON body nested 10,000 levels deep is a 422 json_too_deep on every route that takes a body, and changes nothing', async () => {
  const jobs = await jobCount();
  const deep = nested(10_000);
  const routes: [string, string, string][] = [
    ['POST', '/search', KEYS.alpha],
    ['POST', '/embed', KEYS.alpha],
    ['PATCH', '/update', KEYS.alpha],
    ['POST', '/web-search', KEYS.alpha],
    ['POST', '/admin/authority/mode', KEYS.operator],
    ['POST', '/admin/backfill', KEYS.operator],
  ];
  for (const [method, path, key] of routes) {
    for (const body of [deep, `{"query": ${deep}}`, `{"document_id": "d", "text": "t", "metadata": ${nestedObject(10_000)}}`]) {
      const response = await json(path, body, { method, key });
      assertEnvelope(response, 422);
      assert.deepEqual(entry(response), { type: 'json_too_deep', loc: ['body'], msg: `JSON nesting exceeds the limit of ${MAX_JSON_DEPTH} levels`, input: null }, `${method} ${path}`);
    }
  }
  // DELETE and restore take no body (SPEC lists no 422 for them): one is never read, however deep.
  for (const [method, path] of [['POST', '/document/some-doc/restore'], ['DELETE', '/document/some-doc']]) {
    const response = await json(path, deep, { method });
    assertEnvelope(response, 404);
    assert.equal(response.json.error_code, 'not_found', `${method} ${path}`);
  }
  // The limit itself: MAX_JSON_DEPTH levels are parsed (and then judged by the route), one more is not.
  const atLimit = await json('/search', `{"query": "invoice", "filters": {"metadata.custom.x": ${nested(MAX_JSON_DEPTH - 2)}}}`);
  assert.ok(atLimit.status < 500 && atLimit.json?.details?.[0]?.type !== 'json_too_deep', atLimit.text);
  const overLimit = await json('/search', `{"query": "invoice", "filters": {"metadata.custom.x": ${nested(MAX_JSON_DEPTH - 1)}}}`);
  assert.equal(entry(overLimit).type, 'json_too_deep');
  // A multipart metadata field is JSON text too.
  const form = await formUpload(multipart('BOUNDARY', [{ name: 'document_id', value: 'deep' }, { name: 'metadata', value: nestedObject(100_000) }, { name: 'file', value: 'hello', filename: 'filename="a.txt"' }]));
  assertEnvelope(form, 422);
  assert.deepEqual(entry(form).loc, ['body', 'metadata']);
  assert.equal(entry(form).type, 'json_too_deep');
  // A part declared application/json is decoded by the form parser itself: it is bounded all the same.
  for (const name of ['document_id', 'metadata', 'version_id']) {
    const typed = await formUpload(
      multipart('BOUNDARY', [
        { name, value: nestedObject(100_000), headers: 'Content-Type: application/json\r\n' },
        { name: 'file', value: 'hello', filename: 'filename="a.txt"' },
      ]),
    );
    assertEnvelope(typed, 422);
    assert.deepEqual(entry(typed), { type: 'json_too_deep', loc: ['body', name], msg: `JSON nesting exceeds the limit of ${MAX_JSON_DEPTH} levels`, input: null });
  }
  assert.equal(await jobCount(), jobs, 'nothing was enqueued');
  assert.equal((await api(server.url, '/admin/authority', { key: KEYS.operator })).json.authority_mode, 'READY');
  const health = await untilHealthy(server.url);
  assert.equal(health.status, 200, health.text);
});

test('a malformed multipart body is a 422 validation_error and enqueues nothing', async () => {
  const jobs = await jobCount();
  const good = multipart('BOUNDARY', [{ name: 'document_id', value: 'mp' }, { name: 'file', value: 'hello world', filename: 'filename="a.txt"' }]);
  const cases: [string, Body, string][] = [
    ['no boundary parameter', good, 'multipart/form-data'],
    ['a boundary the body does not use', good, 'multipart/form-data; boundary=OTHER'],
    ['a truncated body', good.slice(0, good.length - 30), 'multipart/form-data; boundary=BOUNDARY'],
    ['a body cut inside a header', good.slice(0, 20), 'multipart/form-data; boundary=BOUNDARY'],
    ['JSON sent as multipart', '{"document_id": "mp", "text": "hello"}', 'multipart/form-data; boundary=BOUNDARY'],
    ['garbage', 'garbage', 'multipart/form-data; boundary=abc'],
  ];
  for (const [name, body, contentType] of cases) {
    const response = await send('/embed', { body, headers: { 'Content-Type': contentType } });
    assertEnvelope(response, 422);
    assert.equal(entry(response).type, 'multipart_invalid', name);
    assert.deepEqual(entry(response).loc, ['body'], name);
  }
  assert.equal(await jobCount(), jobs, 'nothing was enqueued');
});

test('strings that are not well-formed Unicode are refused on every route; a well-formed id is never replaced', async () => {
  const key = KEYS.beta; // a Client of its own, so its totals are this test's
  const kept = await uploadText(server.url, key, { document_id: 'lone-\ufffd', text: 'The original text of the well-formed document.' });
  assert.equal(kept.status, 202);
  assert.equal((await waitForJob(server.url, key, kept.json.job_id)).status, 'completed');
  const jobs = await jobCount();

  // JSON bodies: JSON.stringify writes a lone surrogate as the escape "\ud800".
  for (const lone of ['lone-\ud800', 'lone-\udfff', '\udc00lone']) {
    const cases: [string, string, Record<string, unknown>, (string | number)[]][] = [
      ['POST', '/embed', { document_id: lone, text: 'replacement text' }, ['body', 'document_id']],
      ['POST', '/embed', { document_id: 'lone-ok', version_id: lone, text: 'replacement text' }, ['body', 'version_id']],
      ['POST', '/embed', { document_id: 'lone-ok', filename: lone, text: 'replacement text' }, ['body', 'filename']],
      ['POST', '/embed', { document_id: 'lone-ok', text: `text ${lone}` }, ['body', 'text']],
      ['POST', '/embed', { document_id: 'lone-ok', text: 'x', metadata: { team: { [lone]: 1 } } }, ['body', 'metadata', 'team', lone]],
      ['POST', '/embed', { document_id: 'lone-ok', text: 'x', metadata: { team: [lone] } }, ['body', 'metadata', 'team', 0]],
      ['PATCH', '/update', { document_id: lone, metadata: { a: 1 } }, ['body', 'document_id']],
      ['PATCH', '/update', { document_id: 'lone-\ufffd', version_id: lone, metadata: { a: 1 } }, ['body', 'version_id']],
      ['PATCH', '/update', { document_id: 'lone-\ufffd', filename: lone }, ['body', 'filename']],
      ['POST', '/search', { query: lone }, ['body', 'query']],
      ['POST', '/web-search', { query: lone }, ['body', 'query']],
    ];
    for (const [method, path, body, loc] of cases) {
      const response = await json(path, JSON.stringify(body), { method, key });
      assertEnvelope(response, 422);
      assert.equal(entry(response).type, 'string_unicode', `${method} ${path} ${JSON.stringify(body)}`);
      assert.deepEqual(entry(response).loc.map(String), loc.map(String));
    }
  }
  // Multipart: a field declared UTF-16 can decode to a lone surrogate, so can an RFC 5987 filename.
  const utf16 = (text: string) => new Uint8Array(new Uint16Array([...text].flatMap((c) => [...c].map((unit) => unit.charCodeAt(0)))).buffer);
  const loneField = await formUpload(
    multipart('B', [{ name: 'document_id', value: utf16('lone-\ud800'), headers: 'Content-Type: text/plain; charset=utf-16le\r\n' }, { name: 'file', value: 'replacement', filename: 'filename="a.txt"' }], '--B--\r\n'),
    'B',
    key,
  );
  assertEnvelope(loneField, 422);
  assert.deepEqual(entry(loneField).loc, ['body', 'document_id']);
  const loneFilename = await formUpload(
    multipart('B', [{ name: 'document_id', value: 'lone-ok' }, { name: 'file', value: 'replacement', filename: "filename*=utf-16le''%00%D8" }], '--B--\r\n'),
    'B',
    key,
  );
  assertEnvelope(loneFilename, 422);
  assert.deepEqual(entry(loneFilename).loc, ['body', 'filename']);
  const loneMetadata = await formUpload(
    multipart('B', [{ name: 'document_id', value: 'lone-ok' }, { name: 'metadata', value: '{"team": "\\udfff"}' }, { name: 'file', value: 'replacement', filename: 'filename="a.txt"' }], '--B--\r\n'),
    'B',
    key,
  );
  assertEnvelope(loneMetadata, 422);
  assert.deepEqual(entry(loneMetadata).loc, ['body', 'metadata', 'team']);

  // Bytes that are not UTF-8 at all (the UTF-8 form of a surrogate) in a JSON body.
  const invalidUtf8 = Buffer.concat([Buffer.from('{"document_id": "lone-'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('", "text": "replacement"}')]);
  const bytes = await json('/embed', invalidUtf8, { key });
  assertEnvelope(bytes, 422);
  assert.equal(entry(bytes).type, 'json_invalid');

  // Paths and query strings: %ED%A0%80 is the UTF-8 form of U+D800, %ED%BF%BF of U+DFFF; both are refused.
  for (const escaped of ['lone-%ED%A0%80', 'lone-%ED%BF%BF']) {
    for (const [method, path] of [
      ['GET', `/document/${escaped}/text`],
      ['DELETE', `/document/${escaped}`],
      ['POST', `/document/${escaped}/restore`],
      ['GET', `/status/${escaped}`],
      ['DELETE', `/document/lone-ok?version_id=${escaped}`],
      ['POST', `/document/lone-ok/restore?version_id=${escaped}`],
      ['GET', `/documents?metadata_filter=${escaped}`],
      ['GET', `/document/lone-ok/text?include_deleted=${escaped}`],
    ]) {
      const response = await send(path, { method, key });
      assertEnvelope(response, 400);
      assert.equal(response.json.error_code, 'invalid_request', `${method} ${path}`);
    }
  }
  const malformedEscape = await send('/document/lone-ok?version_id=%zz', { method: 'DELETE', key });
  assertEnvelope(malformedEscape, 400);
  assert.deepEqual(malformedEscape.json.details[0].loc, ['query', 'version_id']);
  const filterEscape = await send(`/documents?metadata_filter=${encodeURIComponent('{"metadata.custom.team":"x')}%5Cud800%22%7D`, { method: 'GET', key });
  assertEnvelope(filterEscape, 400);
  assert.equal(filterEscape.json.error_code, 'invalid_metadata_filter');

  // Nothing was replaced or added: the well-formed document keeps its text, alone.
  assert.equal(await jobCount(), jobs, 'nothing was enqueued');
  const listed = await api(server.url, '/documents', { key });
  assert.deepEqual(listed.json.documents.map((row: any) => row.document_id), ['lone-\ufffd']);
  const text = await api(server.url, `/document/${encodeURIComponent('lone-\ufffd')}/text`, { key });
  assert.equal(text.status, 200);
  assert.match(JSON.stringify(text.json), /The original text of the well-formed document/);
});

test('query integers are plain decimal integers within the safe range, else a 400', async () => {
  for (const query of ['limit=1e3', 'offset=1e308', 'limit=0x10', 'limit=%20%205', 'limit=5.0', 'limit=+5', 'offset=9007199254740992', 'offset=1' + '0'.repeat(400), 'limit=-0x1']) {
    const response = await send(`/documents?${query}`, { method: 'GET' });
    assertEnvelope(response, 400);
    assert.equal(response.json.error_code, 'invalid_request', query);
    assert.equal(response.json.details[0].type, 'int_parsing', query);
    assert.deepEqual(response.json.details[0].loc, ['query', query.split('=')[0]]);
  }
  const plain = await send('/documents?limit=1000&offset=9007199254740991', { method: 'GET' });
  assert.equal(plain.status, 200);
  assert.equal(plain.json.limit, 1000);
  assert.equal(plain.json.offset, 9007199254740991);
  assert.equal((await send('/documents?limit=007', { method: 'GET' })).json.limit, 7);
  assertEnvelope(await send('/documents?limit=1001', { method: 'GET' }), 400);
});

test('duplicate JSON keys are a 422 wherever they are, and enqueue nothing', async () => {
  const jobs = await jobCount();
  const cases: RefusedBody[] = [
    ['POST', '/search', '{"query": "invoice", "query": "other"}', ['body', 'query']],
    ['POST', '/search', '{"query": "invoice", "\\u0071uery": "other"}', ['body', 'query']],
    ['POST', '/search', '{"query": "invoice", "filters": {"metadata.custom.a": 1, "metadata.custom.a": 2}}', ['body', 'filters', 'metadata.custom.a']],
    ['POST', '/search', '{"query": "invoice", "filters": {"x": [{}, {"k": 1, "k": 1}]}}', ['body', 'filters', 'x', 1, 'k']],
    ['POST', '/embed', '{"document_id": "dup", "text": "a", "document_id": "dup2"}', ['body', 'document_id']],
    ['POST', '/embed', '{"document_id": "dup", "text": "a", "metadata": {"team": "a", "team": "b"}}', ['body', 'metadata', 'team']],
    ['PATCH', '/update', '{"document_id": "dup", "metadata": {"a": 1}, "metadata": {"b": 2}}', ['body', 'metadata']],
    ['POST', '/web-search', '{"query": "a", "limit": 1, "limit": 2}', ['body', 'limit']],
  ];
  await expectRefused(cases, 'json_duplicate_key');
  const form = await formUpload(multipart('BOUNDARY', [{ name: 'document_id', value: 'dup' }, { name: 'metadata', value: '{"a": 1, "a": 2}' }, { name: 'file', value: 'x', filename: 'filename="a.txt"' }]));
  assertEnvelope(form, 422);
  assert.deepEqual(entry(form).loc, ['body', 'metadata', 'a']);
  const fields = await formUpload(multipart('BOUNDARY', [{ name: 'document_id', value: 'dup' }, { name: 'document_id', value: 'dup2' }, { name: 'file', value: 'x', filename: 'filename="a.txt"' }]));
  assertEnvelope(fields, 422);
  assert.deepEqual(entry(fields).loc, ['body', 'document_id']);
  const filter = await send(`/documents?metadata_filter=${encodeURIComponent('{"metadata.custom.a": 1, "metadata.custom.a": 2}')}`, { method: 'GET' });
  assertEnvelope(filter, 400);
  assert.equal(filter.json.error_code, 'invalid_metadata_filter');
  // Prototype keys are refused as well (they were before: the framework's parser did it).
  assert.equal(entry(await json('/search', '{"query": "a", "__proto__": {"x": 1}}')).type, 'json_forbidden_key');
  assert.equal(entry(await json('/search', '{"query": "a", "filters": {"constructor": {"prototype": {}}}}')).type, 'json_forbidden_key');
  assert.equal(await jobCount(), jobs, 'nothing was enqueued');
});

test('a number too large for a 64-bit float is a 422 finite_number wherever it is, and changes nothing (it is not stored as null)', async () => {
  const accepted = await uploadText(server.url, KEYS.alpha, { document_id: 'finite', text: 'An account statement with two custom values.', metadata: { keep: 7, other: 1 } });
  assert.equal((await waitForJob(server.url, KEYS.alpha, accepted.json.job_id)).status, 'completed');
  const customOf = async () => (await api(server.url, '/document/finite/text', { key: KEYS.alpha })).json.metadata.custom;
  assert.deepEqual(await customOf(), { keep: 7, other: 1 });
  const jobs = await jobCount();
  const cases: RefusedBody[] = [
    ['PATCH', '/update', '{"document_id": "finite", "metadata": {"keep": 1e400}}', ['body', 'metadata', 'keep']],
    ['PATCH', '/update', '{"document_id": "finite", "metadata": {"list": [1, -1E+999]}}', ['body', 'metadata', 'list', 1]],
    ['POST', '/embed', '{"document_id": "finite-2", "text": "a", "metadata": {"x": 1e400}}', ['body', 'metadata', 'x']],
    ['POST', '/search', '{"query": "account", "filters": {"metadata.custom.keep": 1e400}}', ['body', 'filters', 'metadata.custom.keep']],
    ['POST', '/search', `{"query": "account", "limit": 1${'0'.repeat(400)}}`, ['body', 'limit']],
  ];
  await expectRefused(cases, 'finite_number');
  const form = await formUpload(multipart('BOUNDARY', [{ name: 'document_id', value: 'finite-3' }, { name: 'metadata', value: '{"x": 1e400}' }, { name: 'file', value: 'x', filename: 'filename="a.txt"' }]));
  assertEnvelope(form, 422);
  assert.deepEqual(entry(form).loc, ['body', 'metadata', 'x']);
  const filter = await send(`/documents?metadata_filter=${encodeURIComponent('{"metadata.custom.keep": 1e400}')}`, { method: 'GET' });
  assertEnvelope(filter, 400);
  assert.equal(filter.json.error_code, 'invalid_metadata_filter');
  assert.equal(await jobCount(), jobs, 'nothing was enqueued');
  assert.deepEqual(await customOf(), { keep: 7, other: 1 });
});

test('a body without a Content-Type is read as JSON; under a type no route reads, a JSON route answers 422; a route without a body ignores one', async () => {
  const bytes = (text: string) => new TextEncoder().encode(text); // fetch adds no Content-Type to bytes
  const upload = await send('/embed', { body: bytes('{"document_id": "no-type", "text": "A bank statement sent without a content type."}') });
  assert.equal(upload.status, 202, upload.text);
  assert.equal((await waitForJob(server.url, KEYS.alpha, upload.json.job_id)).status, 'completed');
  const search = await send('/search', { body: bytes('{"query": "bank statement without a content type", "scope": "content"}') });
  assert.equal(search.status, 200, search.text);
  assert.equal(search.json.results[0].document_version.document_id, 'no-type');
  const jobs = await jobCount();
  for (const type of ['application/octet-stream', 'application/x-www-form-urlencoded', 'text/plain']) {
    for (const [method, path] of [['POST', '/search'], ['PATCH', '/update'], ['POST', '/web-search']]) {
      const response = await send(path, { method, headers: { 'Content-Type': type }, body: bytes('{"query": "bank", "document_id": "no-type", "filename": "x.txt"}') });
      assertEnvelope(response, 422);
      assert.equal(entry(response).type, 'model_attributes_type', `${method} ${path} ${type}`);
    }
  }
  // POST /embed reads multipart or JSON, and says so.
  const octets = await send('/embed', { headers: { 'Content-Type': 'application/octet-stream' }, body: bytes('{"document_id": "no-type", "text": "x"}') });
  assertEnvelope(octets, 415);
  assert.equal(await jobCount(), jobs, 'nothing was enqueued');
  // DELETE and restore take no body: whatever one comes with them is not read.
  const deleted = await send('/document/no-type', { method: 'DELETE', headers: { 'Content-Type': 'application/json' }, body: '{bad' });
  assert.equal(deleted.status, 200, deleted.text);
  const restored = await send('/document/no-type/restore', { headers: { 'Content-Type': 'application/octet-stream' }, body: bytes('x') });
  assert.equal(restored.status, 200, restored.text);
});

test('a body with a Content-Encoding other than identity is a 415, compressed or not (the header is never ignored)', async () => {
  const jobs = await jobCount();
  const search = '{"query": "invoice"}';
  const upload = '{"document_id": "encoded", "text": "hello"}';
  const cases: [string, string, Body][] = [
    ['/search', 'gzip', search],
    ['/search', 'gzip', gzipSync(search)],
    ['/search', 'deflate', deflateSync(search)],
    ['/search', 'br', search],
    ['/search', 'identity, gzip', search],
    ['/embed', 'gzip', upload],
    ['/embed', 'GZIP', gzipSync(upload)],
  ];
  for (const [path, encoding, body] of cases) {
    const response = await json(path, body, { headers: { 'Content-Encoding': encoding } });
    assertEnvelope(response, 415);
    assert.equal(response.json.error_code, 'unsupported_media_type', `${path} ${encoding}`);
  }
  const form = await send('/embed', {
    body: multipart('BOUNDARY', [{ name: 'document_id', value: 'encoded' }, { name: 'file', value: 'hello', filename: 'filename="a.txt"' }]),
    headers: { 'Content-Type': 'multipart/form-data; boundary=BOUNDARY', 'Content-Encoding': 'gzip' },
  });
  assertEnvelope(form, 415);
  assert.equal(await jobCount(), jobs, 'nothing was enqueued');
  assert.equal((await json('/search', search, { headers: { 'Content-Encoding': 'identity' } })).status, 200);
});

test('a multipart upload with two file parts is a 422 saying only one file part is allowed, not a 413', async () => {
  const jobs = await jobCount();
  for (const second of ['file', 'other']) {
    const body = multipart('BOUNDARY', [
      { name: 'document_id', value: 'two-files' },
      { name: 'file', value: 'first file', filename: 'filename="a.txt"' },
      { name: second, value: 'second file', filename: 'filename="b.txt"' },
    ]);
    assert.ok(body.length < 1000);
    const response = await formUpload(body);
    assertEnvelope(response, 422);
    assert.deepEqual(entry(response), { type: 'too_many_files', loc: ['body', 'file'], msg: 'Only one file part is allowed', input: null });
  }
  const fields = multipart('BOUNDARY', [...Array.from({ length: 11 }, (_, i) => ({ name: `f${i}`, value: 'x' })), { name: 'file', value: 'x', filename: 'filename="a.txt"' }]);
  const tooManyFields = await formUpload(fields);
  assertEnvelope(tooManyFields, 422);
  const longField = await formUpload(multipart('BOUNDARY', [{ name: 'document_id', value: 'x'.repeat(1024 * 1024 + 1) }, { name: 'file', value: 'x', filename: 'filename="a.txt"' }]));
  assertEnvelope(longField, 422);
  assert.deepEqual(entry(longField).loc, ['body', 'document_id']);
  assert.equal(await jobCount(), jobs, 'nothing was enqueued');
});

test('a request the HTTP parser refuses (raw bytes in the request line) still gets the envelope and a request id', async () => {
  const { port } = new URL(server.url);
  const raw = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(Buffer.concat([Buffer.from('GET /document/x'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from(`/text HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEYS.alpha}\r\n\r\n`)]));
    });
    let data = '';
    socket.on('data', (chunk) => (data += chunk));
    socket.on('close', () => resolve(data));
    socket.on('error', reject);
  });
  const [head, body] = raw.split('\r\n\r\n');
  assert.match(head, /^HTTP\/1\.1 400 /);
  const envelope = JSON.parse(body);
  assert.deepEqual(Object.keys(envelope), ['detail', 'error_code', 'request_id']);
  assert.equal(envelope.error_code, 'invalid_request');
  assert.match(head, new RegExp(`X-Request-Id: ${envelope.request_id}`, 'i'));
});

test('multipart ids with bytes that are not UTF-8 are refused, so two such ids never alias one another', async () => {
  const jobs = await jobCount();
  for (const bytes of [[0x78, 0xff], [0x78, 0xfe], [0x78, 0xc3]]) {
    for (const field of ['document_id', 'version_id']) {
      const parts = [
        ...(field === 'version_id' ? [{ name: 'document_id', value: 'utf8-ok' }] : []),
        { name: field, value: Uint8Array.from(bytes) },
        { name: 'file', value: 'Some text.', filename: 'filename="a.txt"', headers: 'Content-Type: text/plain\r\n' },
      ];
      const response = await formUpload(multipart('BOUNDARY', parts));
      assertEnvelope(response, 422);
      assert.equal(entry(response).type, 'string_unicode');
      assert.deepEqual(entry(response).loc, ['body', field]);
    }
  }
  assert.equal(await jobCount(), jobs, 'nothing was queued');
});
