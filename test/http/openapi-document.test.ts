// The shaping of /openapi.json (src/http/openapi-document.ts) on small documents: a schema marked with a
// component's title becomes a $ref (its own description kept beside it), a marked schema whose shape differs
// from the component fails the build instead of lying, an error status's envelope becomes its shared response
// with an example per code, and an operation without an operationId fails the build.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorResponseName, shapeDocument } from '../../src/http/openapi-document.ts';
import { errorResponseDescription, SCHEMA_COMPONENTS } from '../../src/http/route-responses.ts';

const VERSION = SCHEMA_COMPONENTS.DocumentVersion as any;
const ENVELOPE = SCHEMA_COMPONENTS.ErrorEnvelope as any;

/** A document as swagger builds it, with one GET /probe whose 200 and 404 are given. */
function built(ok: object, notFound?: object): any {
  const responses: any = { 200: { description: 'ok', content: { 'application/json': { schema: ok } } } };
  if (notFound) responses[404] = { description: errorResponseDescription(404), content: { 'application/json': { schema: notFound } } };
  return { openapi: '3.1.0', info: { title: 't', version: '1' }, components: {}, paths: { '/probe': { get: { operationId: 'probe', summary: 'A probe route', responses } } } };
}

test('a schema titled as a component becomes a $ref to it, keeping its own description beside the $ref', () => {
  const shaped = shapeDocument(built({ ...VERSION, description: 'The version probed.' }));
  const schema = shaped.paths['/probe'].get.responses[200].content['application/json'].schema;
  assert.deepEqual(schema, { $ref: '#/components/schemas/DocumentVersion', description: 'The version probed.' });
  assert.equal(shaped.components.schemas.DocumentVersion.title, 'DocumentVersion');
  assert.deepEqual(shaped.components.schemas.DocumentVersion.required, VERSION.required);
  // Every field of the component got a description (its own, or the one its name has across the API).
  for (const property of Object.values<any>(shaped.components.schemas.DocumentVersion.properties)) assert.equal(typeof property.description, 'string');
});

test('a schema that keeps a component title with another shape fails the build', () => {
  const changed = { ...VERSION, properties: { ...VERSION.properties, extra: { type: 'string' } } };
  assert.throws(() => shapeDocument(built(changed)), /titled DocumentVersion is not the DocumentVersion component/);
});

test("an error status's envelope becomes its shared response, with an example per code of the status", () => {
  const envelope = { ...ENVELOPE, description: errorResponseDescription(404) };
  const shaped = shapeDocument(built({ type: 'object', properties: { ok: { type: 'boolean', description: 'Yes.' } } }, envelope));
  const name = errorResponseName(404);
  assert.equal(name, 'NotFound');
  assert.deepEqual(shaped.paths['/probe'].get.responses[404], { $ref: `#/components/responses/${name}` });
  const shared = shaped.components.responses[name];
  assert.equal(shared.description, errorResponseDescription(404));
  assert.deepEqual(shared.content['application/json'].schema, { $ref: '#/components/schemas/ErrorEnvelope' });
  const examples = Object.values<any>(shared.content['application/json'].examples).map((example) => example.value);
  assert.deepEqual(examples.map((value) => value.error_code), ['not_found']);
  assert.equal(examples[0].detail, 'Not found');
});

test('an operation without an operationId fails the build', () => {
  const document = built({ type: 'object' });
  delete document.paths['/probe'].get.operationId;
  assert.throws(() => shapeDocument(document), /GET \/probe has no operationId/);
});
