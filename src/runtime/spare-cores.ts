// Whether the machine has a core to spare now: the idle share of every CPU's time over the last moment, in cores.
// A search hands its graph walks to a thread only when one is idle. Measured over HTTP (2 api processes, 16
// connections, 2 cores): walks on the thread while every core was already busy took p99 from about 46 ms
// to about 70, since the walk then waits for a core and its message costs more than it saves.
// The figure is read lazily, at most once per SPARE_CORES_SAMPLE_MS, from the kernel's per-CPU times (os.cpus),
// and covers the time since the previous reading: after a quiet spell, the first search sees the quiet.
// In a container limited to fewer cores than the host shows, the host's idle cores may not be ours; there the
// walks may go to the thread when they should not, which costs latency under load, never correctness.

import { cpus } from 'node:os';
import type { CpuInfo } from 'node:os';

/** Readings closer together than this reuse the last figure. */
export const SPARE_CORES_SAMPLE_MS = 100;
/** Idle cores, averaged over the last reading's span, from which a core counts as spare. */
export const SPARE_CORE_IDLE_SHARE = 0.5;

/** Cumulative idle and total CPU time over every CPU, in milliseconds, and how many CPUs. */
export interface CpuTimes {
  idleMs: number;
  totalMs: number;
  cpus: number;
}

export function machineCpuTimes(infos: readonly CpuInfo[] = cpus()): CpuTimes {
  let idleMs = 0;
  let totalMs = 0;
  for (const { times } of infos) {
    idleMs += times.idle;
    totalMs += times.user + times.nice + times.sys + times.idle + times.irq;
  }
  return { idleMs, totalMs, cpus: infos.length };
}

export class SpareCores {
  private readonly readTimes: () => CpuTimes;
  private readonly now: () => number;
  private last: CpuTimes;
  private lastAt: number;
  private idle: number;

  /** `readTimes` and `now` are the machine's unless given (tests give their own). */
  constructor(readTimes: () => CpuTimes = machineCpuTimes, now: () => number = () => performance.now()) {
    this.readTimes = readTimes;
    this.now = now;
    this.last = readTimes();
    this.lastAt = now();
    // Until a first span is measured, assume the machine is busy: a walk on the event loop is always safe.
    this.idle = 0;
  }

  /** Idle cores over the span between the last two readings (a fresh one taken if the last is old enough). */
  idleCores(): number {
    const at = this.now();
    if (at - this.lastAt < SPARE_CORES_SAMPLE_MS) return this.idle;
    const times = this.readTimes();
    // The idle share of the CPU time counted since the last reading, in cores. The kernel counts in ticks
    // (10 ms), so over a short span the figure is coarse; a span with no tick keeps the last figure.
    const total = times.totalMs - this.last.totalMs;
    if (total > 0) this.idle = Math.max(0, Math.min(1, (times.idleMs - this.last.idleMs) / total)) * times.cpus;
    this.last = times;
    this.lastAt = at;
    return this.idle;
  }

  /** True when at least one core has been mostly idle lately. */
  available(): boolean {
    return this.idleCores() >= SPARE_CORE_IDLE_SHARE;
  }
}
