// The Metadata Discovery contract on custom metadata (DESIGN.md limits): canonical size, depth, leaves and
// key length. A violation is reported as {code, path, observed, limit, unit}; values never appear in it.

import type { JsonValue } from './canonical-metadata.ts';
import { isJsonObject } from './canonical-metadata.ts';
import { canonicalJson } from './merge-patch.ts';
import { METADATA_MAX_CANONICAL_BYTES } from '../spec-limits.ts';

export const METADATA_MAX_DEPTH = 8;
export const METADATA_MAX_LEAVES = 512;
export const METADATA_MAX_KEY_CHARS = 128;
/** Longer string values are stored but not eligible for metadata matching. */
export const METADATA_MAX_MATCHABLE_STRING_CHARS = 1_024;

/** A type alias, not an interface: a violation is a job's error_details, JSON to TypeScript. */
export type ContractViolation = {
  code: string;
  path: string[];
  observed: number;
  limit: number;
  unit: string;
};

export interface ContractLimits {
  maxCanonicalBytes: number;
  maxDepth: number;
  maxLeaves: number;
  maxKeyChars: number;
}

export const DEFAULT_CONTRACT_LIMITS: ContractLimits = {
  maxCanonicalBytes: METADATA_MAX_CANONICAL_BYTES,
  maxDepth: METADATA_MAX_DEPTH,
  maxLeaves: METADATA_MAX_LEAVES,
  maxKeyChars: METADATA_MAX_KEY_CHARS,
};

/** The first violation of the contract by merged custom metadata, or null when it complies. */
export function checkMetadataContract(custom: JsonValue, limits: ContractLimits = DEFAULT_CONTRACT_LIMITS): ContractViolation | null {
  const bytes = Buffer.byteLength(canonicalJson(custom), 'utf8');
  if (bytes > limits.maxCanonicalBytes) {
    return { code: 'metadata_canonical_json_bytes_limit', path: ['metadata', 'custom'], observed: bytes, limit: limits.maxCanonicalBytes, unit: 'utf8_bytes' };
  }
  let leaves = 0;
  let violation: ContractViolation | null = null;
  const walk = (value: JsonValue, path: string[], depth: number): void => {
    if (violation) return;
    if (depth > limits.maxDepth) {
      violation = { code: 'metadata_depth_limit', path, observed: depth, limit: limits.maxDepth, unit: 'levels' };
      return;
    }
    if (isJsonObject(value)) {
      for (const [key, member] of Object.entries(value)) {
        if (key.length > limits.maxKeyChars) {
          violation = { code: 'metadata_key_length_limit', path: [...path, key.slice(0, limits.maxKeyChars)], observed: key.length, limit: limits.maxKeyChars, unit: 'characters' };
          return;
        }
        walk(member, [...path, key], depth + 1);
      }
      return;
    }
    if (Array.isArray(value)) {
      for (const item of value) walk(item, path, depth + 1);
      return;
    }
    leaves++;
  };
  walk(custom, ['metadata', 'custom'], 0);
  if (violation) return violation;
  if (leaves > limits.maxLeaves) {
    return { code: 'metadata_leaf_count_limit', path: ['metadata', 'custom'], observed: leaves, limit: limits.maxLeaves, unit: 'leaves' };
  }
  return null;
}
