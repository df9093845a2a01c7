// The operator commands' requests: /admin routes with an operator key. The answer is printed as the service sent
// it (the authority, or the backfill job), whatever its status.

export const AUTHORITY_MODES = ['READY', 'MAINTENANCE', 'FENCING'];

export interface OperatorCall {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
}

export async function operatorCall(url: string, key: string, call: OperatorCall): Promise<{ ok: boolean; body: unknown }> {
  const response = await fetch(`${url.replace(/\/+$/, '')}${call.path}`, {
    method: call.method,
    headers: { 'X-API-Key': key, ...(call.body ? { 'Content-Type': 'application/json' } : {}) },
    body: call.body ? JSON.stringify(call.body) : undefined,
  });
  return { ok: response.ok, body: await response.json() };
}
