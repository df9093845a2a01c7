// Keys issued at runtime (DESIGN.md "Clients and keys at runtime"): what a key may do (its scopes), the form of
// its secret, and the hash the store keeps instead of the secret. Keys from API_KEY_CLIENTS are not these: they
// keep every right SPEC.md gives them.

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a key may do: search (POST /search, web search), read (the GET routes), write (uploads, updates, deletes). */
export const KEY_SCOPES = ['search', 'read', 'write'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

/** A key issued without `scopes`. */
export const DEFAULT_KEY_SCOPES: readonly KeyScope[] = KEY_SCOPES;
/** A key issued with a `filter` and without `scopes`: a confined key never writes. */
export const FILTERED_KEY_DEFAULT_SCOPES: readonly KeyScope[] = ['search', 'read'];

/** Every issued secret starts so: an operator who finds one in a log knows what it is. */
export const ISSUED_KEY_PREFIX = 'hds_';
/** Random bytes of a secret: 256 bits, so a plain SHA-256 of it needs no salt or stretching to resist guessing. */
export const KEY_SECRET_BYTES = 32;
/** Most characters of a key's label. */
export const MAX_KEY_LABEL_LENGTH = 200;

export function isKeyScope(value: unknown): value is KeyScope {
  return typeof value === 'string' && (KEY_SCOPES as readonly string[]).includes(value);
}

/** A new key: its id (listed, never secret) and the secret that carries the id, so a look-up needs no scan. */
export function newIssuedKey(): { keyId: string; secret: string } {
  const keyId = randomBytes(12).toString('hex');
  return { keyId, secret: `${ISSUED_KEY_PREFIX}${keyId}_${randomBytes(KEY_SECRET_BYTES).toString('base64url')}` };
}

/** The key id an issued secret names, or null for anything else (an API_KEY_CLIENTS key, a guess). */
export function keyIdOfSecret(secret: string): string | null {
  const match = /^hds_([0-9a-f]{24})_[A-Za-z0-9_-]{43}$/.exec(secret);
  return match ? match[1] : null;
}

/** What the store keeps of a secret (hex SHA-256). */
export function secretHash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Whether a presented secret is the one a stored hash was made from, in time that does not depend on where they differ. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const presented = Buffer.from(secretHash(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
