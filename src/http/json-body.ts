// The JSON body parser of every JSON route, and of JSON carried inside a form field (multipart metadata).
// Hostile input must never reach anything recursive, so before a parsed value exists the text is scanned
// iteratively: nesting deeper than MAX_JSON_DEPTH, duplicate keys and prototype-poisoning keys are refused.
// The bytes must be well-formed UTF-8 and every string (keys included) well-formed Unicode: JSON escapes can
// carry lone surrogates ("\ud800"), which storage would silently turn into U+FFFD (two different ids would
// become one). Every number must be finite: JSON puts no bound on one, and 1e400 parses as Infinity, which
// would be stored as null. Failures are the 422 details of SPEC.md; nothing here recurses.

import type { ValidationDetail } from '../domain/validation-error.ts';
import { RequestValidationError } from '../domain/validation-error.ts';

/**
 * Deepest nesting of objects and arrays a body may have (`{}` is depth 1). Custom metadata may nest to
 * depth 8 (Metadata Discovery contract) inside a body object, so this leaves ample room while keeping any
 * walk over a parsed body (validation, error echoes, canonical JSON) far from the stack limit.
 */
export const MAX_JSON_DEPTH = 64;
/** Ill-formed strings and numbers reported in one response at most (each is one details entry). */
const MAX_REPORTED_PROBLEMS = 20;
/** Longer offending strings are not echoed back as the entry's input. */
const MAX_ECHOED_CHARS = 256;

type Loc = (string | number)[];

export type JsonParseResult = { ok: true; value: unknown } | { ok: false; details: ValidationDetail[]; syntax: boolean };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The 422 entry for text that is not JSON at all. */
function syntaxDetail(loc: Loc, msg = 'JSON decode error'): ValidationDetail {
  return { type: 'json_invalid', loc, msg, input: null };
}

interface Frame {
  object: boolean;
  /** Where this container sits in its parent: the member key or the element index (absent at the root). */
  name: string | number | undefined;
  keys: Set<string> | null;
  expectKey: boolean;
  lastKey: string | null;
  index: number;
}

/** The index of the quote closing the string that opens at `start`, or -1 when it never closes. */
function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return -1;
    let backslashes = 0;
    for (let k = quote - 1; k > start && text.charCodeAt(k) === 0x5c; k--) backslashes++;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

function locOf(base: Loc, stack: Frame[], last: string | number): Loc {
  const loc: Loc = [...base];
  for (let i = 1; i < stack.length; i++) loc.push(stack[i].name as string | number);
  loc.push(last);
  return loc;
}

/**
 * One pass over the text with an explicit stack, bounded by MAX_JSON_DEPTH: the first structural problem
 * (too deep, a duplicate key, a forbidden key), or null. It does not judge the syntax: JSON.parse does,
 * after it. A depth problem is final at once, so nothing ever parses a too-deep text.
 */
function scan(text: string, base: Loc): { detail: ValidationDetail; final: boolean } | null {
  const stack: Frame[] = [];
  let found: ValidationDetail | null = null;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(text, i);
      if (end === -1) return found ? { detail: found, final: false } : null;
      const top = stack.at(-1);
      if (top?.object && top.expectKey && !found) {
        const raw = text.slice(i + 1, end);
        let key: string | null = raw;
        if (raw.includes('\\')) {
          try {
            key = JSON.parse(`"${raw}"`) as string;
          } catch {
            key = null; // malformed: JSON.parse of the whole text reports it
          }
        }
        if (key !== null) {
          if (key === '__proto__' || (key === 'prototype' && top.name === 'constructor')) {
            found = { type: 'json_forbidden_key', loc: locOf(base, stack, key), msg: `Key ${JSON.stringify(key)} is not permitted`, input: null };
          } else if (top.keys!.has(key)) {
            found = { type: 'json_duplicate_key', loc: locOf(base, stack, key), msg: `Duplicate key ${JSON.stringify(key)}: each key may appear once per object`, input: null };
          } else {
            top.keys!.add(key);
          }
          top.lastKey = key;
        }
        top.expectKey = false;
      }
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      if (stack.length >= MAX_JSON_DEPTH) {
        return { detail: { type: 'json_too_deep', loc: base, msg: `JSON nesting exceeds the limit of ${MAX_JSON_DEPTH} levels`, input: null }, final: true };
      }
      const parent = stack.at(-1);
      const name = parent ? (parent.object ? (parent.lastKey ?? '') : parent.index) : undefined;
      const object = c === 0x7b;
      stack.push({ object, name, keys: object ? new Set() : null, expectKey: object, lastKey: null, index: 0 });
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
    } else if (c === 0x2c) {
      const top = stack.at(-1);
      if (top?.object) top.expectKey = true;
      else if (top) top.index++;
    }
  }
  return found ? { detail: found, final: false } : null;
}

function echo(value: string): string | null {
  return value.length <= MAX_ECHOED_CHARS ? value : null;
}

interface Pending {
  value: unknown;
  parent: Pending | null;
  key: string | number;
  badKey: boolean;
}

function pendingLoc(base: Loc, node: Pending): Loc {
  const path: (string | number)[] = [];
  for (let at: Pending | null = node; at?.parent; at = at.parent) path.push(at.key);
  return [...base, ...path.reverse()];
}

/**
 * What a parsed value holds that the text could spell but nothing may store, as 422/400 entries at their location
 * under `base`, in document order: strings (keys included) that are not well-formed Unicode, when `strings`, and
 * numbers that are not finite (JSON has no bound on a number: 1e400 parses as Infinity, which would be written
 * back as null, and a null in a merge patch deletes). Iterative; the caller bounds the depth.
 */
function valueProblems(value: unknown, base: Loc, strings: boolean): ValidationDetail[] {
  const problems: ValidationDetail[] = [];
  const pending: Pending[] = [{ value, parent: null, key: '', badKey: false }];
  while (pending.length > 0 && problems.length < MAX_REPORTED_PROBLEMS) {
    const node = pending.pop()!;
    const current = node.value;
    if (node.badKey) {
      problems.push({ type: 'string_unicode', loc: pendingLoc(base, node), msg: 'Keys should be valid strings: this one holds a lone surrogate (not well-formed Unicode)', input: null });
    } else if (typeof current === 'number') {
      if (!Number.isFinite(current)) problems.push({ type: 'finite_number', loc: pendingLoc(base, node), msg: 'Input should be a finite number: this one is too large for a 64-bit float', input: null });
    } else if (typeof current === 'string') {
      if (strings && !current.isWellFormed()) {
        problems.push({ type: 'string_unicode', loc: pendingLoc(base, node), msg: 'Input should be a valid string: it holds a lone surrogate (not well-formed Unicode)', input: echo(current) });
      }
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) pending.push({ value: current[i], parent: node, key: i, badKey: false });
    } else if (current !== null && typeof current === 'object') {
      const keys = Object.keys(current);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i];
        pending.push({ value: (current as Record<string, unknown>)[key], parent: node, key, badKey: strings && !key.isWellFormed() });
      }
    }
  }
  return problems;
}

/** Every string of a parsed value (keys included) that is not well-formed Unicode, and every number that is not finite. */
export function illFormedValues(value: unknown, base: Loc): ValidationDetail[] {
  return valueProblems(value, base, true);
}

/** A surrogate escape (\uD800-\uDFFF): the only way well-formed JSON text can spell a lone surrogate. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** Parses JSON text under the limits above; `base` is where its entries point (['body'], ['body', 'metadata']). */
export function parseJsonText(text: string, base: Loc = ['body']): JsonParseResult {
  const structural = scan(text, base);
  if (structural?.final) return { ok: false, details: [structural.detail], syntax: false };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, details: [syntaxDetail(base)], syntax: true };
  }
  if (structural) return { ok: false, details: [structural.detail], syntax: false };
  // Well-formed text without surrogate escapes cannot hold an ill-formed string: then only numbers are looked at.
  const illFormed = valueProblems(value, base, !text.isWellFormed() || SURROGATE_ESCAPE.test(text));
  if (illFormed.length > 0) return { ok: false, details: illFormed, syntax: false };
  return { ok: true, value };
}

/** Decodes and parses a request body; throws the 422 RequestValidationError when it is refused. */
export function parseJsonBody(bytes: Buffer): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes); // a leading byte-order mark is dropped
  } catch {
    throw new RequestValidationError([syntaxDetail(['body'], 'JSON decode error: the body is not valid UTF-8')]);
  }
  const result = parseJsonText(text);
  if (!result.ok) throw new RequestValidationError(result.details);
  return result.value;
}

/**
 * Bounds a value that was parsed elsewhere (a form field the multipart parser decoded as JSON itself):
 * its depth, its strings and its numbers, iteratively. Returns the problems, empty when it may be used.
 */
export function checkParsedJson(value: unknown, base: Loc): ValidationDetail[] {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (pending.length > 0) {
    const { value: current, depth } = pending.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > MAX_JSON_DEPTH) return [{ type: 'json_too_deep', loc: base, msg: `JSON nesting exceeds the limit of ${MAX_JSON_DEPTH} levels`, input: null }];
    for (const member of Object.values(current)) pending.push({ value: member, depth: depth + 1 });
  }
  return illFormedValues(value, base);
}
