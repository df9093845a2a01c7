import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpus } from 'node:os';
import { machineCpuTimes, SPARE_CORE_IDLE_SHARE, SPARE_CORES_SAMPLE_MS, SpareCores } from '../../src/runtime/spare-cores.ts';
import type { CpuTimes } from '../../src/runtime/spare-cores.ts';

/** A machine of `cores` CPUs whose idle share the test sets, with a clock the test moves. */
function fakeMachine(cores: number) {
  let at = 0;
  const times: CpuTimes = { idleMs: 0, totalMs: 0, cpus: cores };
  return {
    now: () => at,
    readTimes: () => ({ ...times }),
    /** `idleCores` of the cores were idle for the next `ms`. */
    run(ms: number, idleCores: number) {
      at += ms;
      times.idleMs += idleCores * ms;
      times.totalMs += cores * ms;
    },
  };
}

test('the idle cores are measured over the span since the last reading', () => {
  const machine = fakeMachine(2);
  const spare = new SpareCores(machine.readTimes, machine.now);
  // No span measured yet: the machine counts as busy.
  assert.equal(spare.available(), false);
  machine.run(1000, 1.9);
  assert.ok(Math.abs(spare.idleCores() - 1.9) < 1e-9);
  assert.equal(spare.available(), true);
  // Both cores busy: no spare core.
  machine.run(200, 0.1);
  assert.ok(Math.abs(spare.idleCores() - 0.1) < 1e-9);
  assert.equal(spare.available(), false);
  // One core busy, one idle: a core to spare.
  machine.run(200, 1);
  assert.equal(spare.available(), true);
});

test('readings closer together than the sample span reuse the last figure', () => {
  const machine = fakeMachine(2);
  const spare = new SpareCores(machine.readTimes, machine.now);
  machine.run(SPARE_CORES_SAMPLE_MS, 0);
  assert.equal(spare.idleCores(), 0);
  // Idle since, but not long enough for a new reading.
  machine.run(SPARE_CORES_SAMPLE_MS / 2, 2);
  assert.equal(spare.idleCores(), 0);
  machine.run(SPARE_CORES_SAMPLE_MS / 2, 0);
  // The new reading covers both halves: 1 idle core on average.
  assert.ok(Math.abs(spare.idleCores() - 1) < 1e-9);
  assert.ok(1 >= SPARE_CORE_IDLE_SHARE);
});

test('the figure comes from the CPU times counted, whatever the wall clock says', () => {
  const machine = fakeMachine(2);
  let lag = 0;
  const spare = new SpareCores(machine.readTimes, () => machine.now() - lag);
  machine.run(1000, 2);
  // The wall clock saw less time pass than the kernel counted: still 2 idle cores of 2, not 4.
  lag = 500;
  assert.equal(spare.idleCores(), 2);
  // A span in which the kernel counted no tick keeps the last figure.
  machine.run(0, 0);
  lag = 0;
  assert.equal(spare.idleCores(), 2);
});

test("the machine's own CPU times add up", () => {
  const times = machineCpuTimes();
  assert.ok(times.totalMs > 0);
  assert.ok(times.idleMs >= 0 && times.idleMs <= times.totalMs);
  assert.equal(times.cpus, cpus().length);
  assert.equal(machineCpuTimes([]).totalMs, 0);
});
