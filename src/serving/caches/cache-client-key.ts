// How the caches under DATA_DIR name a Client (its segment-cache directory, its graph holder files): a digest, so
// that a Client id never becomes a path as it is.

import { createHash } from 'node:crypto';

export function cacheClientKey(clientId: string): string {
  return createHash('sha256').update(clientId).digest('hex').slice(0, 24);
}
