// Helpers of the process-topology tests: requests on fresh connections (so consecutive ones may land on
// different api processes), the supervisor's child processes, polling and operator mode changes.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { KEYS } from './server.ts';
import type { ChildServer } from './server.ts';
import { requestJson } from './http-json.ts';
import type { JsonAnswer } from './http-json.ts';

/** How long one request may go unanswered before the test treats it as a failed connection. */
const FRESH_TIMEOUT_MS = 10_000;
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One HTTP request on its own connection (no keep-alive pool), so the kernel hands it to any api process. */
export function fresh(url: string, path: string, options: { method?: string; key?: string; body?: unknown; timeoutMs?: number } = {}): Promise<JsonAnswer> {
  // A connection handed to an api process at the moment it is killed may never be answered.
  return requestJson(`${url}${path}`, { method: options.method, headers: options.key ? { 'X-API-Key': options.key } : {}, body: options.body, agent: false, timeoutMs: options.timeoutMs ?? FRESH_TIMEOUT_MS });
}

/** Children of a process, with their command lines (Linux /proc). */
export function childrenOf(pid: number): { pid: number; args: string }[] {
  const children: { pid: number; args: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push({ pid: Number(entry), args: readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ') });
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

export function childPids(server: ChildServer, role: 'api' | 'worker'): number[] {
  return childrenOf(server.child.pid!).filter((child) => child.args.includes(`src/${role}.ts`)).map((child) => child.pid);
}

export async function until<T>(what: string, probe: () => Promise<T | null | undefined | false> | T | null | undefined | false, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

export async function searchIds(url: string, query: string, key: string = KEYS.alpha): Promise<{ status: number; view: string; ids: string[] }> {
  const response = await fresh(url, '/search', { key, body: { query, scope: 'content', limit: 20 } });
  return { status: response.status, view: response.json?.meta?.publication_view, ids: (response.json?.results ?? []).map((row: any) => `${row.document_version.document_id}/${row.document_version.version_id}`) };
}

export async function setMode(url: string, mode: string): Promise<void> {
  const response = await fresh(url, '/admin/authority/mode', { key: KEYS.operator, body: { mode } });
  assert.equal(response.status, 200, JSON.stringify(response.json));
}

