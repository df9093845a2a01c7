// The read guard's rule, on a real SQLite store: a read observes every publication committed before it started,
// also when it arrives while another read's log-head read is still under way (reads side by side share those
// reads, runtime/fresh-reads.ts, but never one begun before they arrived).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Storage } from '../../src/storage/sqlite/sqlite-storage.ts';
import type { StoragePort } from '../../src/storage/port.ts';
import { ServingIndex } from '../../src/serving/serving-index.ts';
import { ReadGuard } from '../../src/serving/read-guard.ts';
import { inlineSegmentBuilder } from '../../src/serving/segment.ts';
import { generationInput } from '../helpers/storage-adapters.ts';
import { until } from '../helpers/processes.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';

const DIMENSIONS = 4;

/** A method of `target`, bound to it, for a view that passes everything else through. */
function passThrough<T extends object>(target: T, prop: string | symbol): unknown {
  const value: unknown = Reflect.get(target, prop, target);
  return typeof value === 'function' ? value.bind(target) : value;
}

/**
 * `storage` as the guard sees it: the first log-head read of Client 'acme' reads the head and then holds its answer
 * until `release`; every other read goes straight through. `authorityReads` counts the authority reads answered
 * (a read's next step, its log head, follows its authority read without waiting on anything else).
 */
function holdingFirstHead(storage: StoragePort) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const heads: number[] = [];
  const counted = { authorityReads: 0 };
  let first = true;
  const authority = new Proxy(storage.authority, {
    get(target, method) {
      if (method !== 'authority') return passThrough(target, method);
      return async () => {
        const record = await target.authority();
        counted.authorityReads++;
        return record;
      };
    },
  });
  const view = new Proxy(storage, {
    get(target, prop) {
      if (prop === 'authority') return authority;
      if (prop !== 'client') return passThrough(target, prop);
      return (clientId: string) => {
        const client = target.client(clientId);
        return new Proxy(client, {
          get(repositories, name) {
            if (name !== 'publicationLog') return passThrough(repositories, name);
            const log = repositories.publicationLog;
            return new Proxy(log, {
              get(logTarget, method) {
                if (method !== 'head') return passThrough(logTarget, method);
                return async (until?: string) => {
                  const head = await logTarget.head(until);
                  heads.push(head);
                  if (first && clientId === 'acme') {
                    first = false;
                    await released;
                  }
                  return head;
                };
              },
            });
          },
        });
      };
    },
  });
  return { view, heads, counted, release };
}

test('a read arriving while an earlier read is reading the log head still sees a publication committed before it arrived', async () => {
  const dataDir = tempDataDir();
  const storage = new Storage(dataDir);
  const index = new ServingIndex(storage, DIMENSIONS, inlineSegmentBuilder);
  try {
    await storage.client('acme').generations.stageAndActivate(generationInput('doc-1', ['first']));
    const held = holdingFirstHead(storage);
    const guard = new ReadGuard(held.view, index, { enabled: true, catchUpDeadlineMs: 30_000 });
    guard.recovered();

    const early = guard.guard('acme');
    await until('the first read has read the head', () => held.heads.length === 1);
    await storage.client('acme').generations.stageAndActivate(generationInput('doc-2', ['second']));
    const late = guard.guard('acme');
    // The later read has its authority answer, so it is at its log-head read while the first still holds its own.
    await until('the later read has read the authority record', () => held.counted.authorityReads === 2);
    assert.deepEqual(held.heads, [1], 'the first head read is still held');
    held.release();

    await early;
    await late;
    assert.deepEqual(held.heads, [1, 2], 'the later read read the head again instead of taking the held answer');
    assert.ok(index.appliedSeq('acme') >= 2, 'the later read was served a snapshot with the second publication');
  } finally {
    index.close();
    storage.close();
    removeDir(dataDir);
  }
});
