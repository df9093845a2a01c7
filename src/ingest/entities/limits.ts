// Bounds on extracted entities, so a huge CSV or a malicious upload cannot produce megabytes of them.
// Pure constants; extraction code must never use a bare number in place of one of these.

/** Distinct values kept per entity type for one chunk (or one call of extractEntities). */
export const MAX_ENTITIES_PER_TYPE = 64;
/** Distinct values kept per entity type for a whole document (the union of its chunks). */
export const MAX_DOCUMENT_ENTITIES_PER_TYPE = 256;
/** Longer normalized values are dropped, not truncated: a cut value would be a wrong filter key. */
export const MAX_ENTITY_CHARS = 120;
/** Capitalized words a person, organization or place name may span (honorifics not counted). */
export const MAX_NAME_WORDS = 6;
/** Words walked back from a legal suffix or head noun ("Sdn. Bhd.", "Bank") to find an organization's start. */
export const MAX_ORGANIZATION_WORDS_BEFORE = 6;
/** Words walked forward from a head noun ("Kementerian", "Bank") to find an organization's end. */
export const MAX_ORGANIZATION_WORDS_AFTER = 8;
/** Lines looked at after a closing ("Yours sincerely", "Yang benar") for the signer's name. */
export const MAX_SIGNATURE_LOOKAHEAD_LINES = 4;
/** Shortest reference or account number kept (shorter ones are mostly section numbers and years). */
export const MIN_REFERENCE_CHARS = 4;
/** Unlabelled-looking references ("Ref 2019") need this many characters to count. */
export const MIN_UNSEPARATED_REFERENCE_CHARS = 6;
/** Digits (or mask characters) an account number needs. */
export const MIN_ACCOUNT_NUMBER_DIGITS = 6;
export const MAX_ACCOUNT_NUMBER_CHARS = 40;
export const MAX_REFERENCE_CHARS = 40;
