// A small file system to fill, for the full-disk suites (test/disk): a tmpfs mounted for the test. Mounting needs
// root, as the suites run here and in CI (.ci/run installs with apt-get as root); a machine that refuses the mount
// fails the test with the reason, since a full disk cannot be tested without one.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { STORAGE_FULL_RETRY_AFTER_SECONDS } from '../../src/domain/store-failure.ts';

/** Mounts a tmpfs of `size` (mount's notation: 1m, 64m) on `dir`, made when missing; throws when it cannot. */
export function mountSmallDisk(size: string, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { encoding: 'utf8' });
  if (mounted.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`mount -t tmpfs on ${dir} failed (${mounted.stderr?.trim() || mounted.error?.message}): the full-disk suites need root to mount a small file system`);
  }
  return dir;
}

export function unmount(dir: string): void {
  // Lazy: a process of the service still winding down may hold a file open.
  spawnSync('umount', ['-l', dir]);
  rmSync(dir, { recursive: true, force: true });
}

/** Writes `path` until the file system refuses another byte (ENOSPC); returns the bytes it took. */
export function fillDisk(path: string): number {
  const fd = openSync(path, 'w');
  let written = 0;
  try {
    for (const size of [1 << 20, 64 << 10, 4 << 10, 512, 1]) {
      const block = Buffer.alloc(size, 0x5a);
      for (;;) {
        try {
          const count = writeSync(fd, block);
          written += count;
          if (count < size) break;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return written;
}

/** A 507 storage_full with its Retry-After, naming the storage that is full. */
export function assertStorageFull(answer: { status: number; headers: Headers; json: any }, storage: string, what: string): void {
  assert.equal(answer.status, 507, `${what}: ${answer.status} ${JSON.stringify(answer.json)}`);
  assert.equal(answer.headers.get('retry-after'), String(STORAGE_FULL_RETRY_AFTER_SECONDS), `${what} carries Retry-After`);
  assert.equal(answer.json.error_code, 'storage_full', what);
  assert.equal(answer.json.details.storage, storage, `${what} names the storage: ${JSON.stringify(answer.json)}`);
}
