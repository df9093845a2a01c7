// One JSON request over node:http, for tests and load generators (lighter on the loader's CPU than fetch, which
// matters when the loader shares the service's cores). `agent` chooses the connections: a keep-alive Agent to reuse
// them, or false for a fresh connection per request (so that the kernel may hand each to any api process).

import { request } from 'node:http';
import type { Agent } from 'node:http';

export interface JsonAnswer {
  status: number;
  /** The parsed body, or null when it was not JSON. */
  json: any;
  headers: Record<string, unknown>;
}

/** `timeoutMs`: how long the request may go unanswered before it fails (a connection that is never answered). */
export function requestJson(url: string, options: { method?: string; headers?: Record<string, string>; body?: unknown; agent: Agent | false; timeoutMs?: number }): Promise<JsonAnswer> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers = { ...options.headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...(options.agent === false ? { Connection: 'close' } : {}) };
  return new Promise((resolve, reject) => {
    const sent = request(url, { method: options.method ?? (body === undefined ? 'GET' : 'POST'), agent: options.agent, headers });
    sent.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => {
        let json: any = null;
        try {
          json = JSON.parse(text);
        } catch {
          json = null;
        }
        resolve({ status: response.statusCode ?? 0, json, headers: response.headers });
      });
    });
    sent.on('error', reject);
    if (options.timeoutMs !== undefined) sent.setTimeout(options.timeoutMs, () => sent.destroy(new Error(`no answer in ${options.timeoutMs} ms`)));
    sent.end(body);
  });
}
