// Request validation: bodies are checked strictly (no coercion, unknown keys rejected), query strings
// and params with coercion. Failures become the 422 details of SPEC.md: {type, loc, msg, input}.

import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';

import { RequestValidationError } from '../domain/validation-error.ts';
import type { ValidationDetail } from '../domain/validation-error.ts';

export { RequestValidationError } from '../domain/validation-error.ts';
export type { ValidationDetail } from '../domain/validation-error.ts';

const strict = new Ajv({ allErrors: true, coerceTypes: false, removeAdditional: false, useDefaults: true, strict: false });
const coercing = new Ajv({ allErrors: true, coerceTypes: true, removeAdditional: false, useDefaults: true, strict: false });

type Part = 'body' | 'querystring' | 'params' | 'headers';
const LOCATION: Record<Part, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

function valueAt(data: unknown, path: string[]): unknown {
  let current = data;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

function typeName(expected: string): string {
  return expected === 'integer' ? 'int' : expected === 'number' ? 'float' : expected === 'boolean' ? 'bool' : expected === 'string' ? 'string' : expected;
}

const TYPE_MESSAGES: Record<string, string> = {
  integer: 'Input should be a valid integer',
  number: 'Input should be a valid number',
  boolean: 'Input should be a valid boolean',
  string: 'Input should be a valid string',
  object: 'Input should be a valid dictionary',
  array: 'Input should be a valid list',
};

function toDetail(error: ErrorObject, part: Part, data: unknown): ValidationDetail {
  const path = error.instancePath.split('/').slice(1).map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  const loc: (string | number)[] = [LOCATION[part], ...path];
  const input = valueAt(data, path);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const extra = String(params.additionalProperty);
      return { type: 'extra_forbidden', loc: [...loc, extra], msg: 'Extra inputs are not permitted', input: valueAt(input, [extra]) };
    }
    case 'required': {
      const missing = String(params.missingProperty);
      return { type: 'missing', loc: [...loc, missing], msg: 'Field required', input: input ?? null };
    }
    case 'type': {
      const expected = String(params.type).split(',')[0];
      return { type: `${typeName(expected)}_type`, loc, msg: TYPE_MESSAGES[expected] ?? `Input should be of type ${expected}`, input };
    }
    case 'minimum':
      return { type: 'greater_than_equal', loc, msg: `Input should be greater than or equal to ${params.limit}`, input };
    case 'maximum':
      return { type: 'less_than_equal', loc, msg: `Input should be less than or equal to ${params.limit}`, input };
    case 'minLength':
      return { type: 'string_too_short', loc, msg: `String should have at least ${params.limit} character${params.limit === 1 ? '' : 's'}`, input };
    case 'maxLength':
      return { type: 'string_too_long', loc, msg: `String should have at most ${params.limit} characters`, input };
    case 'pattern':
      return { type: 'string_pattern_mismatch', loc, msg: error.message ?? 'String does not match the expected pattern', input };
    case 'enum':
      return { type: 'enum', loc, msg: `Input should be ${(params.allowedValues as unknown[]).map((v) => `'${v}'`).join(', ')}`, input };
    default:
      return { type: error.keyword, loc, msg: error.message ?? 'Invalid value', input };
  }
}

/** The dedicated error for the root not being an object (no key-level errors to list). */
function rootDetail(part: Part, data: unknown): ValidationDetail {
  return { type: 'model_attributes_type', loc: [LOCATION[part]], msg: 'Input should be a valid dictionary or object', input: data ?? null };
}

/** A query or path integer is written as plain decimal digits: no exponent, hex, sign, blanks or fraction. */
const PLAIN_INTEGER = /^-?\d+$/;

/**
 * What the coercing validator would accept too loosely in a query string or path: integers not written as
 * plain decimals ('1e3', '0x10', ' 5', '5.0' all coerce to numbers), values beyond the safe-integer range,
 * and strings that are not well-formed Unicode. Returns the entries; the parameters are flat, so no walk.
 */
function parameterProblems(schema: unknown, part: Part, data: unknown): ValidationDetail[] {
  if (data === null || typeof data !== 'object') return [];
  const properties = ((schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {}) as Record<string, { type?: unknown }>;
  const problems: ValidationDetail[] = [];
  for (const [name, value] of Object.entries(data as Record<string, unknown>)) {
    const loc = [LOCATION[part], name];
    const values = Array.isArray(value) ? value : [value];
    if (values.some((item) => typeof item === 'string' && !item.isWellFormed())) {
      problems.push({ type: 'string_unicode', loc, msg: 'Input should be a valid string: it holds a lone surrogate (not well-formed Unicode)', input: null });
      continue;
    }
    if (properties[name]?.type !== 'integer' || typeof value !== 'string') continue;
    if (!PLAIN_INTEGER.test(value)) {
      problems.push({ type: 'int_parsing', loc, msg: 'Input should be a valid integer, written as plain decimal digits', input: value });
    } else if (!Number.isSafeInteger(Number(value))) {
      problems.push({ type: 'int_parsing', loc, msg: `Input should be a valid integer between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`, input: value });
    }
  }
  return problems;
}

/**
 * What a validation error echoes as the sent body. Defaults are filled in at the top level only (no schema
 * here declares a nested default), so a shallow copy keeps the body as sent without walking it.
 */
function asSent(data: unknown): unknown {
  if (Array.isArray(data)) return [...data];
  if (data !== null && typeof data === 'object') return { ...data };
  return data;
}

/**
 * A route's validator for one part of its requests, compiled on its first request: an api process starts without
 * compiling every route's schemas (a fifth of its start-up), and most processes meet only some routes.
 */
export const schemaCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const part = (httpPart ?? 'body') as Part;
  let compiled: ValidateFunction | null = null;
  return (data: unknown) => {
    const validate = (compiled ??= (part === 'body' ? strict : coercing).compile(schema as object));
    if (part === 'querystring' || part === 'params') {
      const problems = parameterProblems(schema, part, data);
      if (problems.length > 0) return { error: new RequestValidationError(problems) };
    }
    // Defaults are filled in during validation; errors must echo the input as the caller sent it.
    const sent = part === 'body' ? asSent(data) : data;
    if (validate(data)) return { value: data };
    data = sent;
    const errors = validate.errors ?? [];
    const rootTypeError = errors.find((error) => error.keyword === 'type' && error.instancePath === '');
    const details = rootTypeError ? [rootDetail(part, data)] : errors.map((error) => toDetail(error, part, data));
    return { error: new RequestValidationError(details) };
  };
};

/** Builds a validation error for rules a schema cannot express (for example offset + limit <= 200). */
export function validationError(detail: ValidationDetail): RequestValidationError {
  return new RequestValidationError([detail]);
}
