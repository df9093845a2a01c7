// Test preload (node --import) giving the service's fault points (src/fault-points.ts) a pause each: the
// process reads them from TEST_FAULT_PAUSES_MS, JSON of point name to milliseconds, as faultPauses() writes it.
// test/helpers/server.ts passes this preload to a supervisor whose settings carry the variable, and the
// supervisor's api and worker processes inherit both. A point name the service does not have fails the start.

import { setTimeout as sleep } from 'node:timers/promises';
import { FAULT_POINTS, onFaultPoint } from '../../src/fault-points.ts';
import type { FaultPoint } from '../../src/fault-points.ts';

export const FAULT_PAUSES_VARIABLE = 'TEST_FAULT_PAUSES_MS';
const FAULTS_PRELOAD = new URL(import.meta.url).pathname;

/** The settings entry that pauses each named point for its milliseconds (an empty object: no pause). */
export function faultPauses(pauses: Partial<Record<FaultPoint, number>>): Record<string, string> {
  return { [FAULT_PAUSES_VARIABLE]: JSON.stringify(pauses) };
}

/** Node's arguments that load this preload, for a process whose settings pause fault points (none otherwise). */
export function faultPreload(env: Record<string, string>): string[] {
  return FAULT_PAUSES_VARIABLE in env ? ['--import', FAULTS_PRELOAD] : [];
}

const given = process.env[FAULT_PAUSES_VARIABLE];
if (given !== undefined) {
  for (const [point, ms] of Object.entries(JSON.parse(given) as Record<string, unknown>)) {
    if (!(FAULT_POINTS as readonly string[]).includes(point)) throw new Error(`${FAULT_PAUSES_VARIABLE}: no fault point ${point} (points: ${FAULT_POINTS.join(', ')})`);
    if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0) throw new Error(`${FAULT_PAUSES_VARIABLE}: ${point} needs whole milliseconds, not ${String(ms)}`);
    if (ms > 0) onFaultPoint(point as FaultPoint, () => sleep(ms));
  }
}
