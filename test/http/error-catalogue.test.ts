import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERROR_CATALOGUE, jsonDecodeFailure, renderError, validationFailure } from '../../src/http/error-catalogue.ts';
import { ServiceError } from '../../src/domain/service-error.ts';

const SPEC = readFileSync(new URL('../../../shared/SPEC.md', import.meta.url), 'utf8');

test('every error_code of the SPEC.md error table is in the catalogue with its status', () => {
  const rows = [...SPEC.matchAll(/^\| (\d{3}) \| ([A-Za-z_]+) \|/gm)].map((match) => ({ status: Number(match[1]), code: match[2] }));
  assert.ok(rows.length >= 10, 'the spec table was read');
  const entries = Object.values(ERROR_CATALOGUE);
  for (const row of rows) {
    assert.ok(
      entries.some((entry) => entry.errorCode === row.code && entry.status === row.status),
      `${row.status} ${row.code} is catalogued`,
    );
  }
});

test('every publication 503 carries Retry-After 1', () => {
  for (const [key, entry] of Object.entries(ERROR_CATALOGUE)) {
    if (entry.status === 503 && entry.errorCode.startsWith('publication_') && key !== 'publication_disabled') {
      assert.equal(entry.retryAfterSeconds, 1, key);
    }
  }
  assert.equal(ERROR_CATALOGUE.search_connection_dropped.retryAfterSeconds, 1);
  assert.equal(ERROR_CATALOGUE.internal_error.retryAfterSeconds, null);
});

// ---------------------------------------------------------------------------------------------------
// renderError: the one place that builds an error envelope.

test('a ServiceError renders its catalogue status, error_code and message as detail', () => {
  const rendered = renderError('req-1', new ServiceError('not_found', 'Job not found'));
  assert.deepEqual(rendered, { status: 404, headers: {}, body: { detail: 'Job not found', error_code: 'not_found', request_id: 'req-1' } });
  assert.deepEqual(Object.keys(rendered.body), ['detail', 'error_code', 'request_id'], 'wire order of the envelope');
  assert.equal(renderError('req-1', new ServiceError('document_not_found')).body.detail, 'Document not found', 'no message: the catalogue detail');
  assert.equal(renderError('req-1', new ServiceError('auth_failed', 'key abc unknown')).body.detail, 'Invalid API key', 'a 401 never echoes its message');
  assert.equal(renderError('req-1', new ServiceError('internal_error', 'stack trace here')).body.detail, 'Internal server error', 'a 5xx never echoes its message');
});

test('a publication 503 carries Retry-After and default details; a service may override both', () => {
  const busy = renderError('req-2', new ServiceError('publication_busy', 'restore in progress'));
  assert.equal(busy.status, 503);
  assert.deepEqual(busy.headers, { 'Retry-After': '1' });
  assert.deepEqual(busy.body, {
    detail: 'Publication is busy',
    error_code: 'publication_busy',
    request_id: 'req-2',
    details: { code: 'publication_busy', message: 'restore in progress' },
  });
  assert.deepEqual(renderError('r', new ServiceError('publication_unavailable')).body.details, { code: 'publication_unavailable', message: 'Publication is unavailable' });
  assert.deepEqual(renderError('r', new ServiceError('publication_disabled')).headers, {}, 'publication_disabled has no Retry-After');
  const limited = renderError('r', new ServiceError('rate_limited', 'Rate limit exceeded', { retryAfterSeconds: 42 }));
  assert.deepEqual([limited.status, limited.headers], [429, { 'Retry-After': '42' }]);
  const discovery = renderError('r', new ServiceError('metadata_discovery_not_ready', undefined, { details: { state: 'pending' } }));
  assert.deepEqual([discovery.status, discovery.body.error_code, discovery.body.details], [409, 'METADATA_DISCOVERY_NOT_READY', { state: 'pending' }]);
});

test('validation failures: 422 for the body, 400 invalid_request when every entry is in the query or path', () => {
  const body = [{ type: 'missing', loc: ['body', 'query'], msg: 'Field required', input: {} }];
  assert.deepEqual(renderError('r', validationFailure(body)), {
    status: 422,
    headers: {},
    body: { detail: 'Request validation failed', error_code: 'validation_error', request_id: 'r', details: body },
  });
  const query = [
    { type: 'greater_than_equal', loc: ['query', 'limit'], msg: 'Input should be greater than or equal to 1', input: 0 },
    { type: 'string_too_short', loc: ['path', 'job_id'], msg: 'String should have at least 1 character', input: '' },
  ];
  assert.deepEqual(renderError('r', validationFailure(query)), {
    status: 400,
    headers: {},
    body: {
      detail: 'Invalid query.limit, path.job_id: Input should be greater than or equal to 1',
      error_code: 'invalid_request',
      request_id: 'r',
      details: query,
    },
  });
  assert.equal(renderError('r', validationFailure([...query, ...body])).status, 422, 'any body entry makes it a 422');
  assert.deepEqual(renderError('r', validationFailure([])).body.details, [], 'a framework validation error without entries');
  assert.deepEqual(renderError('r', jsonDecodeFailure()).body, {
    detail: 'Request validation failed',
    error_code: 'validation_error',
    request_id: 'r',
    details: [{ type: 'json_invalid', loc: ['body'], msg: 'JSON decode error', input: null }],
  });
});

test('descriptors: the detail is verbatim, a framework 4xx status is kept, anything else falls back to the catalogue', () => {
  assert.deepEqual(renderError('r', { code: 'not_found' }), { status: 404, headers: {}, body: { detail: 'Not found', error_code: 'not_found', request_id: 'r' } });
  const tooLong = renderError('r', { code: 'invalid_request', detail: "'/status/aaa' is too long", status: 414 });
  assert.deepEqual([tooLong.status, tooLong.body.detail, tooLong.body.error_code], [414, "'/status/aaa' is too long", 'invalid_request']);
  assert.equal(renderError('r', { code: 'invalid_request', detail: 'x', status: 500 }).status, 400);
  assert.equal(renderError('r', { code: 'invalid_request', detail: 'x', status: undefined }).status, 400);
  assert.equal(renderError('r', { code: 'invalid_request', detail: '' }).body.detail, '', 'an empty framework message stays empty');
});

test('every error code src/http sends by name is catalogued', () => {
  // The replies live beside the wiring since app.ts was split (access.ts, request-parsing.ts, error-replies.ts).
  const dir = new URL('../../src/http/', import.meta.url);
  const app = readdirSync(dir, { recursive: true })
    .filter((name) => String(name).endsWith('.ts'))
    .map((name) => readFileSync(new URL(String(name), dir), 'utf8'))
    .join('\n');
  const named = [...app.matchAll(/(?:new ServiceError\(|code: )'([a-z_]+)'/g)].map((match) => match[1]);
  assert.ok(named.includes('not_found') && named.includes('invalid_request'), 'the codes were read');
  for (const code of named) assert.ok(code in ERROR_CATALOGUE, `${code} is catalogued`);
});

// ---------------------------------------------------------------------------------------------------
// No hand-built envelope under src/http: a small TypeScript tokenizer finds object literals and
// property writes, so comments and strings that mention error_code do not count.

interface Token {
  kind: 'id' | 'str' | 'num' | 'punct';
  value: string;
  line: number;
}

const PUNCTUATORS = ['>>>=', '...', '===', '!==', '**=', '<<=', '>>=', '??=', '||=', '&&=', '=>', '==', '!=', '<=', '>=', '&&', '||', '??', '?.', '++', '--', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '**', '<<', '>>'];
const KEYWORDS_BEFORE_REGEX = new Set(['return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'new', 'delete', 'void', 'throw', 'instanceof', 'yield', 'await']);

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  const templateResume: number[] = []; // brace depths at which a template literal resumes
  let depth = 0;
  let line = 1;
  let i = 0;
  const push = (kind: Token['kind'], value: string) => tokens.push({ kind, value, line });
  const advance = (to: number) => {
    for (let k = i; k < to; k++) if (source[k] === '\n') line++;
    i = to;
  };
  const scanTemplate = () => {
    // i is just after a backtick or the closing brace of ${...}
    let text = '';
    while (i < source.length) {
      const c = source[i];
      if (c === '\\') { text += source.slice(i, i + 2); advance(i + 2); continue; }
      if (c === '`') { push('str', text); advance(i + 1); return; }
      if (c === '$' && source[i + 1] === '{') { push('str', text); advance(i + 2); push('punct', '${'); templateResume.push(depth); depth++; return; }
      text += c;
      advance(i + 1);
    }
  };
  while (i < source.length) {
    const c = source[i];
    if (/\s/.test(c)) { advance(i + 1); continue; }
    if (source.startsWith('//', i)) { const end = source.indexOf('\n', i); advance(end === -1 ? source.length : end); continue; }
    if (source.startsWith('/*', i)) { const end = source.indexOf('*/', i + 2); advance(end === -1 ? source.length : end + 2); continue; }
    if (c === '"' || c === "'") {
      let j = i + 1;
      let text = '';
      while (j < source.length && source[j] !== c) { if (source[j] === '\\') { text += source[j + 1]; j += 2; } else text += source[j++]; }
      push('str', text);
      advance(j + 1);
      continue;
    }
    if (c === '`') { advance(i + 1); scanTemplate(); continue; }
    if (c === '/') {
      const previous = tokens.at(-1);
      const regexAllowed = !previous || (previous.kind === 'punct' && previous.value !== ')' && previous.value !== ']') || (previous.kind === 'id' && KEYWORDS_BEFORE_REGEX.has(previous.value));
      if (regexAllowed) {
        let j = i + 1;
        let inClass = false;
        while (j < source.length && (inClass || source[j] !== '/')) {
          if (source[j] === '\\') j++;
          else if (source[j] === '[') inClass = true;
          else if (source[j] === ']') inClass = false;
          j++;
        }
        j++;
        while (/[a-z]/i.test(source[j] ?? '')) j++;
        push('str', source.slice(i, j));
        advance(j);
        continue;
      }
    }
    const word = /^[A-Za-z_$][\w$]*/.exec(source.slice(i, i + 200));
    if (word) { push('id', word[0]); advance(i + word[0].length); continue; }
    const number = /^\d[\w.]*/.exec(source.slice(i, i + 50));
    if (number) { push('num', number[0]); advance(i + number[0].length); continue; }
    if (c === '{') { depth++; push('punct', c); advance(i + 1); continue; }
    if (c === '}') {
      depth--;
      if (templateResume.length > 0 && templateResume.at(-1) === depth) { templateResume.pop(); push('punct', '}'); advance(i + 1); scanTemplate(); continue; }
      push('punct', c);
      advance(i + 1);
      continue;
    }
    const operator = PUNCTUATORS.find((candidate) => source.startsWith(candidate, i)) ?? c;
    push('punct', operator);
    advance(i + operator.length);
  }
  return tokens;
}

const OPENERS: Record<string, string> = { '{': '}', '${': '}', '(': ')', '[': ']' };

/** Top-level keys of the object literal (or brace block) that opens at tokens[open]. */
function literalKeys(tokens: Token[], open: number): string[] {
  const keys: string[] = [];
  const stack: string[] = [];
  for (let k = open + 1; k < tokens.length; k++) {
    const token = tokens[k];
    if (token.kind === 'punct' && OPENERS[token.value] && stack.length > 0) { stack.push(OPENERS[token.value]); continue; }
    if (token.kind === 'punct' && stack.length > 0 && token.value === stack.at(-1)) { stack.pop(); continue; }
    if (stack.length > 0) continue;
    if (token.kind === 'punct' && token.value === '}') break;
    if (token.kind === 'punct' && OPENERS[token.value]) {
      // [ 'computed' ]: key
      if (token.value === '[' && tokens[k + 1]?.kind === 'str' && tokens[k + 2]?.value === ']' && tokens[k + 3]?.value === ':') keys.push(tokens[k + 1].value);
      stack.push(OPENERS[token.value]);
      continue;
    }
    const before = tokens[k - 1];
    const after = tokens[k + 1];
    const atKeyPosition = k === open + 1 || (before.kind === 'punct' && before.value === ',');
    if (!atKeyPosition || (token.kind !== 'id' && token.kind !== 'str')) continue;
    if (after?.value === ':' || (token.kind === 'id' && (after?.value === ',' || after?.value === '}'))) keys.push(token.value);
  }
  return keys;
}

/** Hand-built error bodies in one file's source: envelopes, writes of error_code, literal error bodies, hand-picked error statuses. */
const ENVELOPE_KEYS = new Set(['detail', 'error_code', 'request_id', 'details']);

function handBuiltErrors(source: string): string[] {
  const tokens = tokenize(source);
  const found: string[] = [];
  tokens.forEach((token, k) => {
    if (token.kind === 'punct' && token.value === '{') {
      const keys = literalKeys(tokens, k);
      // An envelope's shape: its keys, and mostly only those (a table of every field name, such as the OpenAPI
      // document's field descriptions, holds them among many others and is no envelope).
      const envelopeKeys = keys.filter((key) => ENVELOPE_KEYS.has(key)).length;
      if (keys.includes('error_code') && (keys.includes('detail') || keys.includes('details')) && 2 * envelopeKeys >= keys.length) {
        found.push(`line ${token.line}: object literal with the envelope's keys {${keys.join(', ')}}`);
      }
      if (tokens[k - 1]?.value === '(' && tokens[k - 2]?.value === 'send' && tokens[k - 3]?.value === '.' && keys.includes('detail')) {
        found.push(`line ${token.line}: .send() of a literal error body {${keys.join(', ')}}`);
      }
    }
    const isErrorCode = (token.kind === 'id' && tokens[k - 1]?.value === '.') || (token.kind === 'str' && tokens[k - 1]?.value === '[' && tokens[k + 1]?.value === ']');
    if (token.value === 'error_code' && isErrorCode) {
      const next = tokens[k + (token.kind === 'str' ? 2 : 1)];
      if (next?.kind === 'punct' && /^(=|\?\?=|\|\|=|&&=)$/.test(next.value)) found.push(`line ${token.line}: writes error_code by hand`);
    }
    if (token.kind === 'num' && Number(token.value) >= 400 && tokens[k - 1]?.value === '(' && /^(code|status)$/.test(tokens[k - 2]?.value ?? '') && tokens[k - 3]?.value === '.') {
      found.push(`line ${token.line}: picks error status ${token.value} by hand`);
    }
  });
  return found;
}

function tsFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

test('the hand-built-envelope scanner finds what it must and nothing else', () => {
  // The helper app.ts used before the catalogue rendered every envelope.
  const oldHelper = `function envelope(request: FastifyRequest, detail: string, errorCode: string, details?: unknown): Record<string, unknown> {
  const body: Record<string, unknown> = { detail, error_code: errorCode, request_id: request.id };
  if (details !== undefined) body.details = details;
  return body;
}
app.setNotFoundHandler((request, reply) => {
  reply.code(404).send(envelope(request, 'Not found', 'not_found'));
});`;
  assert.deepEqual(handBuiltErrors(oldHelper), [
    "line 2: object literal with the envelope's keys {detail, error_code, request_id}",
    'line 7: picks error status 404 by hand',
  ]);
  assert.equal(handBuiltErrors(`reply.send({ 'error_code': 'x', details: [{ loc: ['body'] }] });`).length, 1);
  assert.equal(handBuiltErrors("const body = { ...base, detail: `Invalid ${names.map((n) => ({ n })).join()}`, ['error_code']: code };").length, 1);
  assert.equal(handBuiltErrors(`const body = { detail, error_code: code, request_id: id, retry: 1, hint: 'x' };`).length, 1);
  assert.deepEqual(handBuiltErrors(`const DESCRIPTIONS = { document_id: 'a', job_id: 'b', detail: 'c', error_code: 'd', request_id: 'e', rank: 'f', page: 'g', total: 'h', limit: 'i' };`), []);
  assert.deepEqual(handBuiltErrors(`body.error_code = 'x'; other['error_code'] ??= 'y';`), ['line 1: writes error_code by hand', 'line 1: writes error_code by hand']);
  assert.deepEqual(handBuiltErrors(`return reply.code(404).send({ detail: 'Document not found' });`), [
    'line 1: picks error status 404 by hand',
    'line 1: .send() of a literal error body {detail}',
  ]);
  // Not envelopes: comments, strings, regexes, the audit event, validation entries, descriptors, reads, 2xx.
  const clean = `// builds { detail, error_code } envelopes
  const PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
  const text = "{ detail: 'x', error_code: 'y' }";
  const event = { event: 'publication_unavailable', error_code: entry.errorCode, request_id: request.id };
  const entry = { type: 'json_invalid', loc: ['body'], msg: 'JSON decode error', input: null };
  sendError(request, reply, { code: 'invalid_request', detail: error.message, status });
  if (body.error_code === 'x') reply.code(202).send({ job_id: id });
  return reply.code(servingSafe ? 200 : 503).send({ status: 'degraded' });`;
  assert.deepEqual(handBuiltErrors(clean), []);
});

test('no file under src/http except the catalogue builds an error envelope or picks an error status', () => {
  const httpDir = fileURLToPath(new URL('../../src/http/', import.meta.url));
  const files = tsFilesUnder(httpDir).filter((file) => relative(httpDir, file) !== 'error-catalogue.ts');
  assert.ok(files.some((file) => file.endsWith('app.ts')) && files.length > 3, 'src/http was read');
  const offences = files.flatMap((file) => handBuiltErrors(readFileSync(file, 'utf8')).map((offence) => `src/http/${relative(httpDir, file)} ${offence}`));
  assert.deepEqual(offences, [], 'render every error with renderError (src/http/error-catalogue.ts)');
  // The catalogue itself does build the envelope, so the scanner would see it there.
  assert.ok(handBuiltErrors(readFileSync(join(httpDir, 'error-catalogue.ts'), 'utf8')).length > 0, 'the scanner recognises the real envelope');
});

// ---------------------------------------------------------------------------------------------------
// The other direction: every catalogued code is raised somewhere and answered to some end-to-end test.

function filesUnder(dir: URL): string[] {
  const root = fileURLToPath(dir);
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/**
 * SPEC.md codes this design can never raise, with the reason (they stay catalogued: they are contract).
 * publication_snapshot_changed: a read takes its Client's immutable snapshot once, after the read guard, and
 * serves the whole request from it; publication replaces snapshots, never changes one, so no read can see
 * a snapshot move or ACTIVATE begin or end under it.
 */
const NEVER_RAISED_BY_DESIGN = new Set(['publication_snapshot_changed']);

test('every catalogued code is raised by a path of the service and its error_code is met by a test', () => {
  const sourceFiles = filesUnder(new URL('../../src/', import.meta.url)).filter((path) => !path.endsWith('service-error.ts'));
  // The catalogue's own descriptor builders raise codes too (validation failures); its table does not count.
  const sources = sourceFiles
    .map((path) => {
      const text = readFileSync(path, 'utf8');
      return path.endsWith('error-catalogue.ts') ? text.slice(text.indexOf('export function')) : text;
    })
    .join('\n');
  // Tests that meet the code: end to end, or at unit level for the one raised only on an internal inconsistency.
  const testTexts = filesUnder(new URL('../', import.meta.url))
    .filter((path) => !path.endsWith('error-catalogue.test.ts'))
    .map((path) => readFileSync(path, 'utf8'))
    .join('\n');
  const unraised: string[] = [];
  const unreached: string[] = [];
  for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
    if (NEVER_RAISED_BY_DESIGN.has(code)) continue;
    const raised = new RegExp(`ServiceError\\(\\s*'${code}'|code: '${code}'|'${code}' as const`).test(sources);
    if (!raised) unraised.push(code);
    if (!testTexts.includes(`'${entry.errorCode}'`)) unreached.push(`${code} (${entry.errorCode})`);
  }
  assert.deepEqual(unraised, [], 'catalogued codes no path raises');
  assert.deepEqual(unreached, [], 'error codes no test meets');
  for (const code of NEVER_RAISED_BY_DESIGN) assert.ok(code in ERROR_CATALOGUE, `${code} stays catalogued`);
});
