// One attempt of one delivery: a POST of the stored body, signed, to the webhook's address, within the timeout. The
// answer's status is all that is kept of it; a redirect is not followed (it is a non-2xx answer, retried), so that no
// receiver can send a delivery on to an address that was never checked.

import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { LeasedDelivery } from '../domain/webhooks.ts';
import { SIGNATURE_HEADER } from '../domain/webhooks.ts';
import { hostOf, isPublicAddress, publicOnlyLookup, RefusedAddress } from './address-guard.ts';
import { signatureOf } from './signature.ts';

export interface SendOptions {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  userAgent: string;
}

/** How an attempt ended: the receiver's status code, or why there was none (then statusCode is null). */
export interface SendResult {
  statusCode: number | null;
  error: string | null;
}

/** An error's text as a delivery log shows it: short, and never a body (the receiver's answer is not read). */
const MAX_ERROR_CHARS = 300;

function describe(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return `No answer within ${timeoutMs} ms`;
  const text = error instanceof Error ? error.message : String(error);
  return text.slice(0, MAX_ERROR_CHARS);
}

export function sendDelivery(delivery: LeasedDelivery, options: SendOptions): Promise<SendResult> {
  const url = new URL(delivery.url);
  const host = hostOf(url);
  // An IP literal is never looked up, so the lookup's check does not see it: it is checked here.
  if (!options.allowPrivateNetworks && isIP(host) !== 0 && !isPublicAddress(host)) {
    return Promise.resolve({ statusCode: null, error: new RefusedAddress(host, host).message });
  }
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: SendResult) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    const outgoing = request(
      url,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(delivery.body),
          'User-Agent': options.userAgent,
          [SIGNATURE_HEADER]: signatureOf(delivery.secret, delivery.body),
        },
        signal: AbortSignal.timeout(options.timeoutMs),
        ...(options.allowPrivateNetworks ? {} : { lookup: publicOnlyLookup }),
      },
      (response) => {
        // The answer's body is not kept; it is read to its end (within the timeout) so that the attempt ends cleanly.
        response.resume();
        response.on('end', () => settle({ statusCode: response.statusCode ?? null, error: null }));
        response.on('error', (error) => settle({ statusCode: response.statusCode ?? null, error: describe(error, options.timeoutMs) }));
      },
    );
    outgoing.on('error', (error) => settle({ statusCode: null, error: describe(error, options.timeoutMs) }));
    outgoing.end(delivery.body);
  });
}
