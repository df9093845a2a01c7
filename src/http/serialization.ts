// Responses are serialized through the schemas /openapi.json declares for them (fast-json-stringify): faster than
// JSON.stringify, and a member a schema does not declare is never sent. Two guards keep a schema from breaking an
// answer: `required` is left out (it documents the contract; fast-json-stringify would throw on a missing member
// and turn the answer into a 500), and free-form objects say additionalProperties: true in route-responses.ts.
// test/e2e/openapi.test.ts checks real answers against the schemas closed to undeclared members.

import fastJson from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';

/** The schema without `required` at any depth (a property named "required" is kept: only the keyword goes). */
export function withoutRequired(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutRequired);
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'required' && Array.isArray(value)) continue;
    copy[key] = key === 'properties' ? Object.fromEntries(Object.entries(value as object).map(([name, property]) => [name, withoutRequired(property)])) : withoutRequired(value);
  }
  return copy;
}

/** A route's serializer for one status, compiled when it first answers with it (as validators are, validation.ts). */
export const responseSerializer: FastifySerializerCompiler<unknown> = ({ schema }) => {
  let compiled: ((data: unknown) => string) | null = null;
  return (data: unknown) => (compiled ??= fastJson(withoutRequired(schema) as Parameters<typeof fastJson>[0]) as (data: unknown) => string)(data);
};
