// Property-based fuzzing of every route of the HTTP contract against one real service (issue 9).
// fast-check generates hostile bodies (JSON and multipart), query strings, headers and path ids; whatever
// it sends, the service answers without a 5xx, every 4xx is the envelope of SPEC.md "Errors", rejected
// requests change nothing, and /health still answers at the end. Seeded, so a failure replays exactly.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { useTestServer, api, KEYS, sendRaw, uploadText, waitForJob, untilHealthy } from '../helpers/server.ts';
import { MAX_JSON_DEPTH } from '../../src/http/json-body.ts';

const SEED = 20_260_901;
/** A protected known document of the alpha Client that the fuzzer must never touch. */
const KNOWN = { id: 'fuzz-known-document', text: 'The known document: remittance advice for shipment 4471.' };

const server = useTestServer({}, async (started) => {
  const accepted = await uploadText(started.url, KEYS.alpha, { document_id: KNOWN.id, text: KNOWN.text, metadata: { team: 'ops' } });
  assert.equal(accepted.status, 202);
  assert.equal((await waitForJob(started.url, KEYS.alpha, accepted.json.job_id)).status, 'completed');
});

// ---------------------------------------------------------------------------------------------------
// Generators

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit));
const nastyPiece = fc.constantFrom(
  '', ' ', '\u0000', '\n', '\t', '\u007f', '%', '%zz', '%ED%A0%80', '%C0%AF', '..', '/', '?', '#', '&', '=', '+', '"', '\\', '{', '}', '[', ']',
  '__proto__', 'constructor', 'prototype', 'toString', '1e3', '0x10', '-1', '9007199254740993', 'NaN', 'null', 'true', '\ufffd', '\ufeff',
  '\u{1F600}', 'ı', 'İ', '\u202e', 'metadata.custom.', 'metadata.source.filename', 'a'.repeat(300),
);
const unitString = (maxLength: number) => fc.string({ unit: fc.oneof(fc.constantFrom('a', 'b', '0', ' '), loneSurrogate, fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), maxLength });
/** Strings meant to break things: lone surrogates, escapes, controls, numbers in disguise, long runs. */
const hostileString = fc.oneof(
  fc.string({ maxLength: 12 }),
  unitString(12),
  fc.array(fc.oneof(nastyPiece, loneSurrogate, fc.string({ maxLength: 3 })), { maxLength: 5 }).map((pieces) => pieces.join('')),
);

const { value: hostileJson } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    hostileString,
    fc.integer({ min: -1000, max: 1000 }),
    fc.constantFrom(0, -1, 1, 100, 101, 200, 201, 1000, 1001, 1e308, -0, 0.5, 1.5, 2 ** 53),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(hostileString, tie('value'), { maxKeys: 4 }),
  ),
}));

/** Real field names of each JSON route, so bodies are near-misses as well as junk. */
const JSON_FIELDS: Record<string, string[]> = {
  '/search': ['query', 'scope', 'alpha', 'limit', 'offset', 'filters', 'rerank', 'top_k_rerank', 'include_deleted', 'highlight'],
  '/embed': ['document_id', 'version_id', 'text', 'filename', 'metadata'],
  '/update': ['document_id', 'version_id', 'metadata', 'filename'],
  '/web-search': ['query', 'limit'],
  '/admin/authority/mode': ['mode'],
  '/admin/backfill': ['client_id'],
};
const plausibleValue = fc.oneof(
  fc.constantFrom('invoice', 'content', 'metadata', 'both', 'doc-1', 'v1', 'notes.txt', 'ready', 'Maintenance', 'client-gamma', 'hello world'),
  fc.constantFrom({}, { team: 'ops' }, { 'metadata.custom.team': 'ops' }, [], ''),
);

/** How a JSON text is spoiled after it is written: the defects the parser must catch without recursing. */
type JsonSpoil = 'none' | 'duplicate' | 'deep' | 'lone-escape' | 'truncate' | 'invalid-utf8' | 'trailing' | 'empty' | 'proto';
const MUST_REJECT: ReadonlySet<JsonSpoil> = new Set(['duplicate', 'deep', 'lone-escape', 'truncate', 'invalid-utf8', 'trailing', 'empty', 'proto']);

/** A valid body of each route (never a state change the checks at the end would see: see the key policy). */
const VALID_BASE: Record<string, Record<string, unknown>> = {
  '/search': { query: 'invoice' },
  '/embed': { document_id: 'fuzz-doc', text: 'Fuzz text about an invoice.' },
  '/update': { document_id: 'fuzz-doc', metadata: { team: 'ops' } },
  '/web-search': { query: 'invoice' },
  '/admin/authority/mode': { mode: 'ready' }, // the modes are upper case: never a valid mode change
  '/admin/backfill': { client_id: 'client-gamma' }, // no such Client
};

/** A valid body with one field replaced, dropped, or one key added. */
const nearValid = (route: string) =>
  fc
    .record({
      field: fc.oneof(fc.constantFrom(...JSON_FIELDS[route]), hostileString),
      value: fc.oneof(plausibleValue, hostileJson),
      action: fc.constantFrom('keep', 'replace', 'replace', 'drop'),
    })
    .map(({ field, value, action }) => {
      const body: Record<string, unknown> = { ...VALID_BASE[route] };
      if (action === 'replace') Object.defineProperty(body, field, { value, enumerable: true, writable: true, configurable: true });
      if (action === 'drop') delete body[field];
      return body;
    });

const jsonBody = (route: string) =>
  fc
    .record({
      fields: fc.oneof(nearValid(route), fc.dictionary(fc.oneof(fc.constantFrom(...JSON_FIELDS[route]), hostileString), fc.oneof(plausibleValue, hostileJson), { minKeys: 0, maxKeys: 5 })),
      root: fc.oneof({ weight: 8, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: hostileJson }),
      spoil: fc.constantFrom<JsonSpoil>('none', 'none', 'none', 'duplicate', 'deep', 'lone-escape', 'truncate', 'invalid-utf8', 'trailing', 'empty', 'proto'),
      depth: fc.integer({ min: MAX_JSON_DEPTH + 1, max: 20_000 }),
      cut: fc.nat(),
    })
    .map(({ fields, root, spoil, depth, cut }) => {
      const value = root === null ? fields : root;
      let text = JSON.stringify(value) ?? 'null';
      let bytes: Uint8Array | null = null;
      // A lone surrogate anywhere (JSON.stringify writes it as an escape) is refused too.
      let reject = MUST_REJECT.has(spoil) || holdsIllFormed(value);
      switch (spoil) {
        case 'duplicate':
          text = `{"k": 1, "k": ${text}}`;
          break;
        case 'deep':
          text = depth % 2 === 0 ? '['.repeat(depth) + ']'.repeat(depth) : `{"query": ${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
          break;
        case 'lone-escape':
          text = `{"document_id": "x\\ud800", "query": "q\\udfff", "text": "t\\udc00", "k": ${text}}`;
          break;
        case 'truncate':
          text = text.length > 1 ? text.slice(0, 1 + (cut % (text.length - 1))) : '{';
          reject = !isJson(text) || holdsIllFormed(JSON.parse(text));
          break;
        case 'invalid-utf8':
          bytes = Buffer.concat([Buffer.from('{"query": "'), Buffer.from([0xed, 0xa0, 0x80, 0xff]), Buffer.from(`", "k": ${text}}`)]);
          break;
        case 'trailing':
          text = `${text} }`;
          break;
        case 'empty':
          text = '';
          break;
        case 'proto':
          text = `{"__proto__": {"polluted": true}, "k": ${text}}`;
          break;
      }
      return { body: bytes ?? text, reject, note: `json:${spoil}` };
    });

/** Whether a generated value holds a string (or key) that is not well-formed Unicode. Shallow: depth <= 4. */
function holdsIllFormed(value: unknown): boolean {
  if (typeof value === 'string') return !value.isWellFormed();
  if (Array.isArray(value)) return value.some(holdsIllFormed);
  if (value !== null && typeof value === 'object') return Object.entries(value).some(([key, member]) => !key.isWellFormed() || holdsIllFormed(member));
  return false;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Percent-encodes any string, lone surrogates included (as the UTF-8 bytes of the surrogate: invalid). */
function encodeHostile(text: string): string {
  let out = '';
  for (const char of text) {
    const unit = char.charCodeAt(0);
    if (char.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('');
    } else {
      out += encodeURIComponent(char);
    }
  }
  return out;
}

const pathId = fc.oneof(
  { weight: 4, arbitrary: hostileString.map((id) => ({ raw: id, encoded: encodeHostile(id) })) },
  { weight: 1, arbitrary: fc.constantFrom('%zz', '%', '%ED%A0%80', '%C0%AF', '..', '%2e%2e', 'a%2Fb', '%00', 'x'.repeat(1100), '%41'.repeat(400)).map((raw) => ({ raw, encoded: raw })) },
).filter(({ raw }) => raw !== KNOWN.id && raw !== '');

const QUERY_FIELDS = ['limit', 'offset', 'metadata_filter', 'include_deleted', 'include_vector', 'version_id', 'mode'];
const queryValue = fc.oneof(
  fc.constantFrom('1', '0', '-1', '10', '1000', '1001', '1e3', '1e308', '0x10', ' 5', '5.0', '+5', '9007199254740992', 'true', 'false', 'TRUE', '1', 'soft', 'hard', 'HARD', ''),
  fc.constantFrom('{"metadata.custom.team":"ops"}', '{"a":1,"a":2}', '[1]', '{"k":"\\ud800"}', 'metadata.custom.team:ops', '{"x":' + '['.repeat(100) + ']'.repeat(100) + '}'),
  hostileString,
);
/** A query string; `reject` when it holds a lone surrogate (sent as its invalid UTF-8 escapes: always a 400). */
const queryString = fc
  .array(
    fc.record({ name: fc.oneof(fc.constantFrom(...QUERY_FIELDS), hostileString), value: queryValue, raw: fc.boolean() }),
    { maxLength: 4 },
  )
  .map((pairs) => ({
    text:
      pairs.length === 0
        ? ''
        : `?${pairs.map(({ name, value, raw }) => `${encodeHostile(name)}=${raw && !/[#\s]/.test(value) && value.isWellFormed() ? value : encodeHostile(value)}`).join('&')}`,
    reject: pairs.some(({ name, value }) => !name.isWellFormed() || !value.isWellFormed()),
  }));

/** A multipart body built by hand, then spoiled at the boundary, the encoding or the end. */
type FormSpoil = 'none' | 'no-boundary' | 'wrong-boundary' | 'truncate' | 'no-closing' | 'json-as-form' | 'two-files' | 'utf16-field' | 'deep-json-part';
const formBody = fc
  .record({
    parts: fc.array(
      fc.record({
        name: fc.oneof(fc.constantFrom('document_id', 'version_id', 'metadata', 'filename', 'file', 'file'), hostileString.filter((name) => !/["\r\n]/.test(name))),
        value: fc.oneof(plausibleValue.map((value) => (typeof value === 'string' ? value : JSON.stringify(value))), hostileString, hostileJson.map((value) => JSON.stringify(value) ?? '')),
        asFile: fc.boolean(),
        /** Declared application/json: the form parser decodes such a part itself. */
        json: fc.boolean(),
      }),
      { maxLength: 5 },
    ),
    spoil: fc.constantFrom<FormSpoil>('none', 'none', 'none', 'no-boundary', 'wrong-boundary', 'truncate', 'no-closing', 'json-as-form', 'two-files', 'utf16-field', 'deep-json-part'),
    cut: fc.nat(),
  })
  .map(({ parts, spoil, cut }) => {
    const boundary = 'fuzzBOUNDARY';
    const encoder = new TextEncoder();
    const chunks: Uint8Array[] = [];
    const all = [...parts];
    if (spoil === 'two-files') all.push({ name: 'file', value: 'one', asFile: true, json: false }, { name: 'file', value: 'two', asFile: true, json: false });
    if (spoil === 'deep-json-part') all.unshift({ name: 'document_id', value: '{"a":'.repeat(5000) + '1' + '}'.repeat(5000), asFile: false, json: true });
    for (const part of all) {
      const file = part.asFile || part.name === 'file';
      const disposition = `Content-Disposition: form-data; name="${part.name}"${file ? '; filename="f.txt"' : ''}`;
      const utf16 = spoil === 'utf16-field' && !file;
      const type = utf16 ? 'Content-Type: text/plain; charset=utf-16le\r\n' : part.json && !file ? 'Content-Type: application/json\r\n' : '';
      chunks.push(encoder.encode(`--${boundary}\r\n${disposition}\r\n${type}\r\n`));
      chunks.push(utf16 ? new Uint8Array(new Uint16Array([...`${part.value}\ud800`].map((c) => c.charCodeAt(0))).buffer) : encoder.encode(part.value));
      chunks.push(encoder.encode('\r\n'));
    }
    if (spoil !== 'no-closing') chunks.push(encoder.encode(`--${boundary}--\r\n`));
    let body: Uint8Array = Buffer.concat(chunks);
    let contentType = `multipart/form-data; boundary=${boundary}`;
    if (spoil === 'no-boundary') contentType = 'multipart/form-data';
    if (spoil === 'wrong-boundary') contentType = 'multipart/form-data; boundary=otherBOUNDARY';
    // Where the closing delimiter starts: a body cut before it is truncated, one cut inside it may still parse.
    const closing = body.length - encoder.encode(`--${boundary}--\r\n`).length;
    let cutShort = false;
    if (spoil === 'truncate' && body.length > 2) {
      body = body.slice(0, 1 + (cut % (body.length - 1)));
      cutShort = body.length <= closing;
    }
    if (spoil === 'json-as-form') body = encoder.encode(JSON.stringify({ document_id: 'doc', text: 'hello' }));
    // Broken framing never passes, nor does a form without a file part (an empty body is an empty form).
    const reject = (spoil !== 'none' && spoil !== 'truncate') || cutShort || !all.some((part) => part.asFile || part.name === 'file');
    return { body, contentType, reject, note: `form:${spoil}` };
  });

const contentType = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON') },
  { weight: 2, arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data', 'application/octet-stream', 'application/jsonx', '') },
);
/** A value one time in `every`, else undefined. */
const sometimes = <T>(arbitrary: fc.Arbitrary<T>, every: number) =>
  fc.oneof({ weight: every - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
const headerText = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 40 });
/** Extra headers, each present now and then: request ids, a Content-Encoding (true or not), Accept. */
const extraHeaders = fc
  .record({
    requestId: sometimes(fc.oneof(headerText, fc.constant('x'.repeat(200)), fc.constant('id-1')), 2),
    encoding: sometimes(fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'GZIP', 'gzip, identity', 'x-unknown'), 10),
    accept: sometimes(fc.constantFrom('application/json', 'text/html', '*/*', ''), 4),
  })
  .map(({ requestId, encoding, accept }) => {
    const headers: Record<string, string> = {};
    if (requestId !== undefined) headers['X-Request-Id'] = requestId;
    if (encoding !== undefined) headers['Content-Encoding'] = encoding;
    if (accept !== undefined) headers.Accept = accept;
    return headers;
  });

type KeyChoice = 'route' | 'wrong' | 'none' | 'operator';
const keyChoice = fc.oneof({ weight: 12, arbitrary: fc.constant<KeyChoice>('route') }, { weight: 1, arbitrary: fc.constantFrom<KeyChoice>('wrong', 'none', 'operator') });

interface Case {
  method: string;
  path: string;
  key: string | null;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** Hostile by construction: a 2xx would be a defect. */
  reject: boolean;
  note: string;
  /** A write route whose 2xx enqueues a job (the count checked at the end). */
  enqueues?: boolean;
}

function keyFor(choice: KeyChoice, routeKey: string): string | null {
  if (choice === 'route') return routeKey;
  if (choice === 'wrong') return 'not-a-key';
  if (choice === 'none') return null;
  return routeKey === KEYS.operator ? KEYS.alpha : KEYS.operator;
}

/** Writes go to the beta Client, reads to alpha (whose known document must survive); admin to the operator. */
const routeCase: fc.Arbitrary<Case> = fc.oneof(
  fc.record({ body: jsonBody('/search'), q: queryString, k: keyChoice, h: extraHeaders, ct: contentType }).map(({ body, q, k, h, ct }) => {
    const c = jsonCase('POST', `/search${q.text}`, KEYS.alpha, body, k, h, ct);
    return { ...c, reject: c.reject || q.reject };
  }),
  fc.record({ body: jsonBody('/embed'), k: keyChoice, h: extraHeaders, ct: contentType }).map(({ body, k, h, ct }) => ({ ...jsonCase('POST', '/embed', KEYS.beta, body, k, h, ct), enqueues: true })),
  fc.record({ form: formBody, k: keyChoice, h: extraHeaders }).map(({ form, k, h }) => ({
    method: 'POST',
    path: '/embed',
    key: keyFor(k, KEYS.beta),
    headers: { ...h, 'Content-Type': form.contentType },
    body: form.body,
    reject: form.reject || rejectsHeaders(h),
    note: form.note,
    enqueues: true,
  })),
  fc.record({ body: jsonBody('/update'), k: keyChoice, h: extraHeaders, ct: contentType }).map(({ body, k, h, ct }) => ({ ...jsonCase('PATCH', '/update', KEYS.beta, body, k, h, ct), enqueues: true })),
  fc.record({ body: jsonBody('/web-search'), k: keyChoice, h: extraHeaders, ct: contentType }).map(({ body, k, h, ct }) => jsonCase('POST', '/web-search', KEYS.alpha, body, k, h, ct)),
  fc.record({ body: jsonBody('/admin/authority/mode'), k: keyChoice, h: extraHeaders, ct: contentType }).map(({ body, k, h, ct }) => jsonCase('POST', '/admin/authority/mode', KEYS.operator, body, k, h, ct)),
  fc.record({ body: jsonBody('/admin/backfill'), k: keyChoice, h: extraHeaders, ct: contentType }).map(({ body, k, h, ct }) => ({ ...jsonCase('POST', '/admin/backfill', KEYS.operator, body, k, h, ct), enqueues: true })),
  fc.record({ q: queryString, k: keyChoice, h: extraHeaders }).map(({ q, k, h }) => getCase('GET', `/documents${q.text}`, KEYS.alpha, k, h, q.reject)),
  // No document but the protected one exists for alpha, so every id route answers 4xx (mostly 404).
  fc.record({ id: pathId, q: queryString, k: keyChoice, h: extraHeaders }).map(({ id, q, k, h }) => getCase('GET', `/document/${id.encoded}/text${q.text}`, KEYS.alpha, k, h, true)),
  fc.record({ id: pathId, q: queryString, k: keyChoice, h: extraHeaders }).map(({ id, q, k, h }) => getCase('DELETE', `/document/${id.encoded}${q.text}`, KEYS.alpha, k, h, true)),
  fc.record({ id: pathId, q: queryString, k: keyChoice, h: extraHeaders }).map(({ id, q, k, h }) => getCase('POST', `/document/${id.encoded}/restore${q.text}`, KEYS.alpha, k, h, true)),
  fc.record({ id: pathId, q: queryString, k: keyChoice, h: extraHeaders }).map(({ id, q, k, h }) => getCase('GET', `/status/${id.encoded}${q.text}`, KEYS.alpha, k, h, true)),
  fc.record({ path: fc.constantFrom('/web-search/capabilities', '/discovery/readiness', '/admin/authority'), q: queryString, k: keyChoice, h: extraHeaders }).map(({ path, q, k, h }) =>
    getCase('GET', `${path}${q.text}`, path.startsWith('/admin') ? KEYS.operator : KEYS.alpha, k, h, q.reject),
  ),
);

/** A Content-Encoding other than identity on a body is refused whatever else the request holds. */
function rejectsHeaders(headers: Record<string, string>): boolean {
  const encoding = headers['Content-Encoding'];
  return encoding !== undefined && encoding.split(',').some((coding) => coding.trim().toLowerCase() !== 'identity');
}

function jsonCase(method: string, path: string, routeKey: string, body: { body: string | Uint8Array; reject: boolean; note: string }, k: KeyChoice, h: Record<string, string>, ct: string): Case {
  // A body without a Content-Type is read as JSON.
  const json = ct === '' || ct.toLowerCase().startsWith('application/json');
  const headers: Record<string, string> = { ...h };
  if (ct !== '') headers['Content-Type'] = ct;
  const empty = typeof body.body === 'string' ? body.body === '' : body.body.length === 0;
  return {
    method,
    path,
    key: keyFor(k, routeKey),
    headers,
    body: body.body,
    // Under another type the body is not JSON and is refused (422, or 415 on POST /embed) whatever the text; an
    // empty body under another type may pass.
    reject: (json && body.reject) || (!json && !empty) || (!empty && rejectsHeaders(h)),
    note: `${body.note} ${ct}`,
  };
}

function getCase(method: string, path: string, routeKey: string, k: KeyChoice, h: Record<string, string>, reject: boolean): Case {
  return { method, path, key: keyFor(k, routeKey), headers: { ...h }, reject, note: 'params' };
}

// ---------------------------------------------------------------------------------------------------
// The service's answers

interface Answer {
  status: number;
  text: string;
  json: any;
  requestIdHeader: string | null;
}

async function sendCase(c: Case): Promise<Answer> {
  const headers: Record<string, string> = { ...c.headers };
  if (c.key !== null) headers['X-API-Key'] = c.key;
  const answer = await sendRaw(server.url, c.path, { method: c.method, headers, body: c.method === 'GET' ? undefined : c.body });
  return { status: answer.status, text: answer.text, json: answer.json, requestIdHeader: answer.headers.get('x-request-id') };
}

function describe(c: Case, answer: Answer): string {
  const body = c.body === undefined ? '' : typeof c.body === 'string' ? c.body.slice(0, 300) : `<${c.body.length} bytes> ${Buffer.from(c.body.slice(0, 200)).toString('latin1')}`;
  return `${c.method} ${c.path.slice(0, 300)} [${c.note}] key=${c.key} headers=${JSON.stringify(c.headers)} body=${JSON.stringify(body)} -> ${answer.status} ${answer.text.slice(0, 400)}`;
}

/** SPEC.md "Errors": {detail, error_code, request_id, details?}; a 422 carries entries {type, loc, msg, input}. */
function assertEnvelope(c: Case, answer: Answer): void {
  const where = describe(c, answer);
  const envelope = answer.json;
  assert.ok(envelope !== null && typeof envelope === 'object' && !Array.isArray(envelope), `not a JSON envelope: ${where}`);
  assert.equal(typeof envelope.detail, 'string', where);
  assert.equal(typeof envelope.error_code, 'string', where);
  assert.equal(typeof envelope.request_id, 'string', where);
  assert.equal(answer.requestIdHeader, envelope.request_id, where);
  for (const key of Object.keys(envelope)) assert.ok(['detail', 'error_code', 'request_id', 'details'].includes(key), `unexpected key ${key}: ${where}`);
  if (answer.status === 422) {
    assert.equal(envelope.error_code, 'validation_error', where);
    assert.ok(Array.isArray(envelope.details) && envelope.details.length > 0, where);
    for (const entry of envelope.details) {
      assert.deepEqual(Object.keys(entry).sort(), ['input', 'loc', 'msg', 'type'], where);
      assert.equal(typeof entry.type, 'string', where);
      assert.equal(typeof entry.msg, 'string', where);
      assert.ok(Array.isArray(entry.loc) && entry.loc.length > 0, where);
    }
  }
}

async function checkAnswer(c: Case, answer: Answer, accepted: { count: number }): Promise<void> {
  assert.ok(answer.status >= 200 && answer.status < 500, `5xx or no status: ${describe(c, answer)}`);
  if (answer.status >= 400) assertEnvelope(c, answer);
  else {
    assert.ok(!c.reject, `a hostile request was accepted: ${describe(c, answer)}`);
    if (c.enqueues) accepted.count++;
  }
}

/** Every job recorded, from the jobs gauge of /metrics. */
async function jobCount(): Promise<number> {
  const text = (await api(server.url, '/metrics', { key: KEYS.operator })).text;
  return [...text.matchAll(/^jobs\{[^}]*\} (\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
}

async function snapshot() {
  const list = await api(server.url, '/documents?limit=1000', { key: KEYS.alpha });
  const text = await api(server.url, `/document/${KNOWN.id}/text`, { key: KEYS.alpha });
  const authority = await api(server.url, '/admin/authority', { key: KEYS.operator });
  return { total: list.json.total, ids: list.json.documents.map((row: any) => `${row.document_id}@${row.version_id}`), text: text.json, mode: authority.json.authority_mode };
}

test('hostile requests to every route: no 5xx, every 4xx is the envelope, rejected requests change nothing', async (t) => {
  const before = await snapshot();
  assert.equal(before.total, 1);
  const jobsBefore = await jobCount();
  const accepted = { count: 0 };
  const statuses = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(routeCase, async (c) => {
      const answer = await sendCase(c);
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      await checkAnswer(c, answer, accepted);
    }),
    { seed: SEED, numRuns: 2000 },
  );
  t.diagnostic(`statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}; accepted writes: ${accepted.count}`);
  // The run exercised both sides: rejections of several kinds and some accepted requests.
  assert.ok([400, 401, 404, 415, 422].every((status) => (statuses.get(status) ?? 0) > 0), JSON.stringify([...statuses]));
  assert.ok((statuses.get(200) ?? 0) > 0, JSON.stringify([...statuses]));

  const after = await snapshot();
  assert.deepEqual(after, before, 'the known document, the alpha list and the authority mode are unchanged');
  // Jobs exist only for accepted writes (uploads and updates of the beta Client, backfills).
  assert.equal((await jobCount()) - jobsBefore, accepted.count, 'no job was created by a rejected request');
  const health = await untilHealthy(server.url);
  assert.equal(health.status, 200, health.text);
});

test('dedicated hostile bodies: deep nesting and big strings on every JSON route', async () => {
  const jobsBefore = await jobCount();
  const routes: [string, string, string][] = [
    ['POST', '/search', KEYS.alpha],
    ['POST', '/embed', KEYS.beta],
    ['PATCH', '/update', KEYS.beta],
    ['POST', '/web-search', KEYS.alpha],
    ['POST', '/admin/authority/mode', KEYS.operator],
    ['POST', '/admin/backfill', KEYS.operator],
    ['POST', `/document/fuzz-other/restore`, KEYS.alpha],
  ];
  const hostileBody = fc.oneof(
    fc.record({ depth: fc.integer({ min: MAX_JSON_DEPTH + 1, max: 100_000 }), open: fc.constantFrom('[', '{"a":', '{"query":[') }).map(({ depth, open }) => {
      const close = open === '[' ? ']' : open === '{"a":' ? '}' : ']}';
      return { text: open.repeat(depth) + '0' + close.repeat(depth), reject: true };
    }),
    fc.record({ size: fc.integer({ min: 100_000, max: 2_000_000 }), field: fc.constantFrom('query', 'document_id', 'text', 'filename', 'mode', 'client_id'), lone: fc.boolean() }).map(({ size, field, lone }) => ({
      text: JSON.stringify({ [field]: 'x'.repeat(size) + (lone ? '\ud800' : '') }),
      reject: lone,
    })),
  );
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...routes), hostileBody, async ([method, path, key], body) => {
      const c: Case = { method, path, key, headers: { 'Content-Type': 'application/json' }, body: body.text, reject: body.reject, note: 'dedicated' };
      const answer = await sendCase(c);
      await checkAnswer(c, answer, { count: 0 });
    }),
    { seed: SEED, numRuns: 40 },
  );
  assert.equal(await jobCount(), jobsBefore, 'nothing was enqueued');
  const health = await untilHealthy(server.url);
  assert.equal(health.status, 200, health.text);
});
