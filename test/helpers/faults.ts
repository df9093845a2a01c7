// Test preload (node --import) giving the service's fault points (src/fault-points.ts) a behaviour, and the test
// side of it. Two behaviours:
//   - a pause: TEST_FAULT_PAUSES_MS, JSON of point name to milliseconds (faultPauses), for tests whose subject is
//     time passing at a point (a job longer than its lease, a purge past its deadline);
//   - a hold: TEST_FAULT_HOLDS, each arrival at a held point waits until the test lets it pass (FaultHolds), for
//     tests that must act while the service is at the point (kill it there, change the authority mode there),
//     whatever the machine's load: nothing is raced against a pause.
// test/helpers/server.ts passes this preload to a supervisor whose settings carry either variable, and the
// supervisor's api and worker processes inherit both. A point name the service does not have fails the start.
// It imports nothing of the test harness (server.ts installs signal handlers): it runs inside the service.

import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { FAULT_POINTS, onFaultPoint } from '../../src/fault-points.ts';
import type { FaultPoint } from '../../src/fault-points.ts';

export const FAULT_PAUSES_VARIABLE = 'TEST_FAULT_PAUSES_MS';
export const FAULT_HOLDS_VARIABLE = 'TEST_FAULT_HOLDS';
const FAULTS_PRELOAD = new URL(import.meta.url).pathname;
/** How often a held process looks for the test's word to go on (a file in the holds folder). */
const HOLD_POLL_MS = 10;
/** How long a test waits for the service to reach a held point: far past any step of these tests. */
const REACH_TIMEOUT_MS = 60_000;

/** The settings entry that pauses each named point for its milliseconds (an empty object: no pause). */
export function faultPauses(pauses: Partial<Record<FaultPoint, number>>): Record<string, string> {
  return { [FAULT_PAUSES_VARIABLE]: JSON.stringify(pauses) };
}

/** Node's arguments that load this preload, for a process whose settings give fault points a behaviour (none otherwise). */
export function faultPreload(env: Record<string, string>): string[] {
  return FAULT_PAUSES_VARIABLE in env || FAULT_HOLDS_VARIABLE in env ? ['--import', FAULTS_PRELOAD] : [];
}

interface HoldSettings {
  dir: string;
  points: FaultPoint[];
}

/**
 * The test's side of holds: a folder where each held arrival leaves `<point>.<pid>.<n>.held` and waits for
 * `<point>.<pid>.<n>.pass` or `<point>.open`. The service is released when the folder goes (remove), so a test
 * that fails while the service is held does not leave it held through its graceful stop.
 */
export class FaultHolds {
  readonly dir = mkdtempSync(join(tmpdir(), 'hds-fault-holds-'));
  readonly points: FaultPoint[];
  private readonly handedOut = new Set<string>();

  constructor(points: FaultPoint[]) {
    this.points = points;
  }

  /** The settings entry that holds this object's points in every process started with it. */
  env(): Record<string, string> {
    const settings: HoldSettings = { dir: this.dir, points: this.points };
    return { [FAULT_HOLDS_VARIABLE]: JSON.stringify(settings) };
  }

  /** Waits until some process is held at `point` in an arrival not handed out before, and names that arrival. */
  async reached(point: FaultPoint): Promise<string> {
    const deadline = Date.now() + REACH_TIMEOUT_MS;
    for (;;) {
      const arrivals = readdirSync(this.dir)
        .filter((name) => name.startsWith(`${point}.`) && name.endsWith('.held'))
        .map((name) => name.slice(0, -'.held'.length))
        .filter((arrival) => !this.handedOut.has(arrival))
        .sort((a, b) => statSync(join(this.dir, `${a}.held`)).mtimeMs - statSync(join(this.dir, `${b}.held`)).mtimeMs);
      if (arrivals.length > 0) {
        this.handedOut.add(arrivals[0]);
        return arrivals[0];
      }
      if (Date.now() > deadline) throw new Error(`the service did not reach fault point ${point} in ${REACH_TIMEOUT_MS} ms`);
      await sleep(HOLD_POLL_MS);
    }
  }

  /** Lets one held arrival go on. */
  pass(arrival: string): void {
    writeFileSync(join(this.dir, `${arrival}.pass`), '');
  }

  /** Lets every arrival at `point` go on, those held now and those to come. */
  open(point: FaultPoint): void {
    writeFileSync(join(this.dir, `${point}.open`), '');
  }

  /** Holds the arrivals at `point` that come from now on again (after open); none may be at it meanwhile. */
  close(point: FaultPoint): void {
    rmSync(join(this.dir, `${point}.open`), { force: true });
  }

  /** Releases everything held, for good. */
  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function checkPoint(point: string, variable: string): FaultPoint {
  if (!(FAULT_POINTS as readonly string[]).includes(point)) throw new Error(`${variable}: no fault point ${point} (points: ${FAULT_POINTS.join(', ')})`);
  return point as FaultPoint;
}

const pauses = process.env[FAULT_PAUSES_VARIABLE];
if (pauses !== undefined) {
  for (const [name, ms] of Object.entries(JSON.parse(pauses) as Record<string, unknown>)) {
    const point = checkPoint(name, FAULT_PAUSES_VARIABLE);
    if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0) throw new Error(`${FAULT_PAUSES_VARIABLE}: ${point} needs whole milliseconds, not ${String(ms)}`);
    if (ms > 0) onFaultPoint(point, () => sleep(ms));
  }
}

const holds = process.env[FAULT_HOLDS_VARIABLE];
if (holds !== undefined) {
  const { dir, points } = JSON.parse(holds) as HoldSettings;
  for (const name of points) {
    const point = checkPoint(name, FAULT_HOLDS_VARIABLE);
    let arrivals = 0;
    onFaultPoint(point, async () => {
      arrivals += 1;
      const arrival = `${point}.${process.pid}.${arrivals}`;
      if (!existsSync(dir)) return;
      writeFileSync(join(dir, `${arrival}.held`), '');
      // No bound: held is what the test asked for, until it says go, removes the folder or ends the process.
      while (existsSync(dir) && !existsSync(join(dir, `${arrival}.pass`)) && !existsSync(join(dir, `${point}.open`))) await sleep(HOLD_POLL_MS);
    });
  }
}
