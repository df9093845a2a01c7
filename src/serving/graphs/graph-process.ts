// A graph process: finds or builds the HNSW graph of one segment's int8 codes in the graph cache, then prints
// the file's path. It runs apart from the api process so that a build's memory (several times the graph) is
// returned when it exits, and a native fault in the graph library ends a build, not the server.
// Usage (by graph-builder.ts): node graph-process.ts <cache dir> <dimensions> <cache budget bytes>, the codes on
// stdin; prints {"graph": path, "groups": path}.

import { setTimeout as sleep } from 'node:timers/promises';
import { rmSync, writeFileSync } from 'node:fs';
import { writeAnnGraph } from './ann-index.ts';
import { cachedGraph, graphKey, partialPaths, pruneGraphs, storeGraph, tryLock, unlock } from './graph-cache.ts';
import type { CachedGraph } from './graph-cache.ts';
import { groupCodes, groupOfRows, rowGroups } from './distinct-rows.ts';

/** How often a process waiting on another's build of the same graph looks again. */
const LOCK_POLL_MS = 250;

async function readCodes(): Promise<Int8Array> {
  const parts: Buffer[] = [];
  for await (const part of process.stdin) parts.push(part as Buffer);
  const bytes = Buffer.concat(parts);
  return new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

async function graphOf(dir: string, codes: Int8Array, dimensions: number, budgetBytes: number): Promise<CachedGraph> {
  const key = graphKey(codes, dimensions);
  const parent = process.ppid;
  for (;;) {
    const cached = cachedGraph(dir, key);
    if (cached) return cached;
    if (tryLock(dir, key)) break;
    await sleep(LOCK_POLL_MS); // another process is building this very graph
    if (process.ppid !== parent) process.exit(1);
  }
  try {
    const cached = cachedGraph(dir, key); // finished by the previous holder just before the lock was taken
    if (cached) return cached;
    const partial = partialPaths(dir, key);
    try {
      // One vector per group of identical rows; the groups file maps the segment's rows to them.
      const groupOfRow = groupOfRows(codes, dimensions);
      writeFileSync(partial.groups, new Uint8Array(groupOfRow.buffer, groupOfRow.byteOffset, groupOfRow.byteLength));
      // An api process that went away (its parent pid changes) no longer wants the graph.
      if (!writeAnnGraph(groupCodes(codes, dimensions, rowGroups(groupOfRow)), dimensions, partial.graph, () => process.ppid !== parent)) process.exit(1);
      const stored = storeGraph(dir, key, partial);
      pruneGraphs(dir, budgetBytes, stored);
      return stored;
    } finally {
      rmSync(partial.graph, { force: true });
      rmSync(partial.groups, { force: true });
    }
  } finally {
    unlock(dir, key);
  }
}

const [dir, dimensionsArg, budgetArg] = process.argv.slice(2);
const dimensions = Number(dimensionsArg);
const codes = await readCodes();
if (!Number.isInteger(dimensions) || dimensions <= 0 || codes.length % dimensions !== 0) {
  process.stderr.write(`graph process: ${codes.length} code bytes are not rows of ${dimensionsArg} dimensions\n`);
  process.exit(2);
}
process.stdout.write(`${JSON.stringify(await graphOf(dir, codes, dimensions, Number(budgetArg)))}\n`);
