// The bounded JSON body parser and the request-framing guards, without a server.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_JSON_DEPTH, checkParsedJson, illFormedValues, parseJsonBody, parseJsonText } from '../../src/http/json-body.ts';
import { contentEncodingProblem, queryEncodingProblems } from '../../src/http/request-guards.ts';
import { RequestValidationError } from '../../src/domain/validation-error.ts';

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

function problem(text: string) {
  const result = parseJsonText(text);
  assert.equal(result.ok, false, text.slice(0, 80));
  return (result as { details: { type: string; loc: unknown[] }[] }).details[0];
}

test('nesting up to MAX_JSON_DEPTH parses; one level more is json_too_deep, however deep, without recursion', () => {
  assert.deepEqual(parseJsonText(nested(MAX_JSON_DEPTH)), { ok: true, value: JSON.parse(nested(MAX_JSON_DEPTH)) });
  assert.equal(problem(nested(MAX_JSON_DEPTH + 1)).type, 'json_too_deep');
  // Both take about 6 ms on an idle machine (9 ms cold); a scan quadratic in the depth would take hours on 5 M
  // levels. The bound, 200 times the normal time, only catches that runaway.
  const started = performance.now();
  assert.equal(problem(nested(5_000_000)).type, 'json_too_deep');
  assert.equal(problem('{"a":'.repeat(1_000_000)).type, 'json_too_deep', 'even when the text never closes');
  assert.ok(performance.now() - started < 2_000, `took ${Math.round(performance.now() - started)} ms`);
  // Brackets inside strings (with escaped quotes) are text, not nesting.
  const inString = `{"a": "${'[{'.repeat(1000)}\\"${'['.repeat(100)}"}`;
  assert.equal(parseJsonText(inString).ok, true);
});

test('duplicate keys are refused at their location, also when written with escapes', () => {
  assert.deepEqual(problem('{"a": 1, "a": 2}').loc, ['body', 'a']);
  assert.deepEqual(problem('{"a": 1, "\\u0061": 2}').loc, ['body', 'a']);
  assert.deepEqual(problem('{"x": [{"k": 1}, {"k": 1, "k": 2}]}').loc, ['body', 'x', 1, 'k']);
  assert.deepEqual(problem('{"x": {"y": {"z": 1, "z": 1}}}').loc, ['body', 'x', 'y', 'z']);
  assert.equal(problem('{"a": 1, "a": 2}').type, 'json_duplicate_key');
  // The same key in sibling objects, or a value equal to a key, is fine.
  assert.equal(parseJsonText('[{"k": 1}, {"k": 2}]').ok, true);
  assert.equal(parseJsonText('{"a": "a", "b": {"a": "b"}}').ok, true);
  assert.equal(parseJsonText('{"a\\"b": 1, "a\\\\": 2}').ok, true);
});

test('prototype keys are refused; syntax errors are json_invalid and marked as syntax', () => {
  assert.equal(problem('{"__proto__": {"x": 1}}').type, 'json_forbidden_key');
  assert.equal(problem('{"a": {"constructor": {"prototype": {}}}}').type, 'json_forbidden_key');
  assert.equal(parseJsonText('{"constructor": 1, "prototype": 2}').ok, true);
  for (const text of ['', '{', '{"a": 1,}', '{"a" 1}', '[1] ]', "{'a': 1}", 'NaN']) {
    const result = parseJsonText(text);
    assert.equal(result.ok, false, text);
    assert.deepEqual(result.ok ? null : [result.syntax, result.details[0].type], [true, 'json_invalid']);
  }
});

test('lone surrogates in values and keys are string_unicode entries at their location', () => {
  assert.deepEqual(
    (parseJsonText('{"id": "x\\ud800", "ok": "\\ud83d\\ude00", "list": ["\\udfff"], "\\udc00": 1}') as { details: unknown[] }).details,
    [
      { type: 'string_unicode', loc: ['body', 'id'], msg: 'Input should be a valid string: it holds a lone surrogate (not well-formed Unicode)', input: 'x\ud800' },
      { type: 'string_unicode', loc: ['body', 'list', 0], msg: 'Input should be a valid string: it holds a lone surrogate (not well-formed Unicode)', input: '\udfff' },
      { type: 'string_unicode', loc: ['body', '\udc00'], msg: 'Keys should be valid strings: this one holds a lone surrogate (not well-formed Unicode)', input: null },
    ],
  );
  assert.deepEqual(illFormedValues({ a: ['fine', '\u{1F600}'] }, ['body']), []);
  assert.equal(illFormedValues('x'.repeat(1000) + '\ud800', ['body'])[0].input, null, 'long strings are not echoed');
});

test('numbers too large for a 64-bit float are finite_number entries at their location, not Infinity', () => {
  const finite = { type: 'finite_number', msg: 'Input should be a finite number: this one is too large for a 64-bit float', input: null };
  assert.deepEqual((parseJsonText('{"metadata": {"keep": 1e400, "list": [1, -2E+999]}, "limit": 10}') as { details: unknown[] }).details, [
    { ...finite, loc: ['body', 'metadata', 'keep'] },
    { ...finite, loc: ['body', 'metadata', 'list', 1] },
  ]);
  assert.deepEqual((parseJsonText(`[1${'0'.repeat(400)}]`, ['query', 'metadata_filter']) as { details: unknown[] }).details, [{ ...finite, loc: ['query', 'metadata_filter', 0] }]);
  assert.equal(checkParsedJson({ team: Number.POSITIVE_INFINITY }, ['body', 'metadata'])[0].type, 'finite_number');
  // The largest double and the smallest ones (1e-400 underflows to 0) are numbers like any other.
  assert.deepEqual(parseJsonText('[1.7976931348623157e308, 1e-400, 5e-324]'), { ok: true, value: [1.7976931348623157e308, 0, 5e-324] });
});

test('a body must be UTF-8: invalid bytes are json_invalid, a byte-order mark is dropped', () => {
  assert.deepEqual(parseJsonBody(Buffer.from('\ufeff{"a": "é"}')), { a: 'é' });
  for (const bytes of [[0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xff]]) {
    assert.throws(
      () => parseJsonBody(Buffer.concat([Buffer.from('{"a": "'), Buffer.from(bytes), Buffer.from('"}')])),
      (error: unknown) => error instanceof RequestValidationError && error.details[0].type === 'json_invalid',
    );
  }
});

test('a value parsed elsewhere is bounded the same way', () => {
  let deep: unknown = 1;
  for (let i = 0; i < 10_000; i++) deep = { a: deep };
  assert.equal(checkParsedJson(deep, ['body', 'metadata'])[0].type, 'json_too_deep');
  assert.deepEqual(checkParsedJson({ team: 'ops' }, ['body', 'metadata']), []);
  assert.deepEqual(checkParsedJson({ team: '\ud800' }, ['body', 'metadata'])[0].loc, ['body', 'metadata', 'team']);
});

test('Content-Encoding: only identity passes, and only a request with a body is judged', () => {
  assert.equal(contentEncodingProblem({ 'content-length': '10' }), null);
  assert.equal(contentEncodingProblem({ 'content-encoding': 'identity', 'content-length': '10' }), null);
  assert.equal(contentEncodingProblem({ 'content-encoding': 'gzip', 'content-length': '0' }), null);
  for (const coding of ['gzip', 'GZIP', 'deflate', 'br', 'identity, gzip', 'x-anything']) {
    const problem = contentEncodingProblem({ 'content-encoding': coding, 'content-length': '10' });
    assert.equal(problem?.code, 'unsupported_media_type', coding);
  }
  assert.equal(contentEncodingProblem({ 'content-encoding': 'gzip', 'transfer-encoding': 'chunked' })?.code, 'unsupported_media_type');
});

test('query escapes must be UTF-8: malformed or surrogate escapes are named, good ones pass', () => {
  assert.deepEqual(queryEncodingProblems('/documents?limit=10&metadata_filter=%7B%22a%22%3A1%7D&x=%C3%A9+y'), []);
  assert.deepEqual(queryEncodingProblems('/documents'), []);
  const problems = queryEncodingProblems('/document/x?version_id=x%ED%A0%80&mode=%zz&ok=1&%FF=2');
  assert.deepEqual(problems.map((entry) => entry.loc), [['query', 'version_id'], ['query', 'mode'], ['query', '%FF']]);
  assert.equal(problems[0].type, 'query_encoding');
});
