// Canonical paths of custom metadata keys (SPEC.md, PATCH /update: "a literal key containing dots is quoted as
// one key"): what updated_fields lists, and what a filter key after metadata.custom. may quote.

/** The prefix of every custom metadata path. */
export const CUSTOM_PATH_PREFIX = 'metadata.custom.';

/**
 * The canonical stored path of a top-level custom key; a key containing dots is quoted as one key, and so is the
 * empty key (unquoted, `metadata.custom.` would name no key at all).
 */
export function customPath(key: string): string {
  return key === '' || key.includes('.') ? `${CUSTOM_PATH_PREFIX}${JSON.stringify(key)}` : `${CUSTOM_PATH_PREFIX}${key}`;
}

/** The one key a quoted path part names (`"cost.centre"` -> cost.centre), or null when the part is not quoted. */
export function quotedCustomKey(part: string): string | null {
  if (part.length < 2 || !part.startsWith('"') || !part.endsWith('"')) return null;
  try {
    const parsed: unknown = JSON.parse(part);
    return typeof parsed === 'string' ? parsed : null;
  } catch {
    return null;
  }
}
