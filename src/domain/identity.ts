// Identities of the spec: a Document Version is (document_id, version_id), version_id possibly null.
// Pure values; storage encodes a null version as the empty key, which no caller-supplied id can be.

export interface VersionRef {
  documentId: string;
  versionId: string | null;
}

/** Maximum length of a caller-supplied document_id or version_id. */
export const MAX_ID_LENGTH = 256;

export function versionKey(versionId: string | null): string {
  return versionId ?? '';
}

export function versionIdFromKey(key: string): string | null {
  return key === '' ? null : key;
}

/** One string naming a Document Version inside one Client, used as a map key. */
export function versionIdentity(ref: VersionRef): string {
  return `${ref.documentId}\u0000${versionKey(ref.versionId)}`;
}

// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/**
 * Ids are non-empty, bounded, well-formed Unicode and free of control characters. Returns a problem, or
 * null when valid. A lone surrogate ("x\ud800") would be stored as U+FFFD, so two different ids would
 * name one document: such ids are refused, never repaired.
 */
export function idProblem(name: string, value: string): string | null {
  if (value.trim() === '') return `${name} must not be empty`;
  if (value.length > MAX_ID_LENGTH) return `${name} must be at most ${MAX_ID_LENGTH} characters`;
  if (!value.isWellFormed()) return `${name} must be well-formed Unicode (it holds a lone surrogate)`;
  if (CONTROL_CHARACTERS.test(value)) return `${name} must not contain control characters`;
  return null;
}
