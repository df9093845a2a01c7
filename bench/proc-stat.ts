// Reading Linux /proc stat lines for the benches: the fields after a process's or thread's name, and the CPU
// time they record.

import { readFileSync } from 'node:fs';

/** Clock ticks a second in /proc times (USER_HZ, 100 on Linux). */
export const TICKS_PER_SECOND = 100;

/**
 * The fields of a /proc/.../stat file after the name in parentheses (which may hold spaces): index 0 is the
 * state, 1 the parent pid, 2 the process group, 11 and 12 utime and stime, 13 and 14 those of reaped children.
 * Throws when the process or thread has ended.
 */
export function statFields(path: string): string[] {
  const stat = readFileSync(path, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** utime + stime of statFields, in seconds. */
export function cpuSecondsOf(fields: readonly string[]): number {
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}
