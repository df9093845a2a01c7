// The operator commands' requests: /admin routes with an operator key (no Client's budget: operator requests are
// not rate-limited). A refusal is thrown as the client's SearchServiceError, so it is shown like any other.

import { SearchServiceError } from '../../clients/typescript/src/index.ts';
import { connectionFailure } from './connection.ts';

export const AUTHORITY_MODES = ['READY', 'MAINTENANCE', 'FENCING'];

export interface OperatorCall {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
}

export async function operatorCall(url: string, key: string, call: OperatorCall): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetch(`${url}${call.path}`, {
      method: call.method,
      headers: { 'X-API-Key': key, ...(call.body ? { 'Content-Type': 'application/json' } : {}) },
      body: call.body ? JSON.stringify(call.body) : undefined,
    });
  } catch (error) {
    throw connectionFailure(url, error);
  }
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new SearchServiceError(response.status, body, response.headers.get('retry-after'));
  return body as Record<string, unknown>;
}
