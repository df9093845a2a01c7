// The signature a receiver checks a delivery by: `sha256=` and the hex HMAC-SHA256 of the raw body with the secret
// the webhook was registered with. The body is signed as sent, byte for byte; never re-serialized in between.

import { createHmac } from 'node:crypto';
import { SIGNATURE_PREFIX } from '../domain/webhooks.ts';

export function signatureOf(secret: string, body: string): string {
  return `${SIGNATURE_PREFIX}${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}
