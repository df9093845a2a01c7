// `npm test` and `npm run test:<tier>`: runs the named steps (all of STEPS when none is named) one after another,
// each test tier through node --test on the files test/tiers.ts places in it, and prints each step's wall time
// and test counts as it ends and all of them at the end. The first step that fails stops the run (as the chain
// of && it replaces did). It refuses to start while a test file belongs to no tier.
//
// The files on the clock (ON_THE_CLOCK in test/tiers.ts: they mostly wait out a real rate-limit minute) of the
// chosen steps run apart, in one run started with the first of those steps and going on beside the steps after
// it; its output and its line come when it ends. A step that fails stops that run too.

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inStartOrder, offTheClock, place, postgresE2e, testFiles, TIER_MEANING } from './tiers.ts';
import type { Tier } from './tiers.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** Test files at once within a tier: what `npm test` ran the suites with before it had tiers. */
const TEST_CONCURRENCY = 3;
const UNIT_GUARD = 'test/helpers/unit-guard.ts';
const POSTGRES_GLOBAL_SETUP = 'test/helpers/postgres-global.ts';
/** Where each test step's JUnit report goes (file per step), read back for the slowest files of the step. */
const TIMINGS_DIR = join(ROOT, 'test-results/timings');
/** How many of a step's slowest test files its summary names. */
const SLOWEST_FILES = 5;

interface Step {
  name: string;
  what: string;
  /** A command of its own, or the node --test run of a tier. */
  command?: readonly string[];
  tier?: Tier;
  args?: readonly string[];
  env?: Record<string, string>;
  /** Which of the tier's files the step runs, when not all of them. */
  select?: (files: readonly string[]) => string[];
  /** The step's files split into those it runs and those on the clock, which the clock run takes. */
  split?: (files: readonly string[]) => { rest: string[]; clock: string[] };
}

const STEPS: readonly Step[] = [
  { name: 'typecheck', what: 'tsc over src, test, bench and the client, then over the console', command: ['sh', '-c', `"${join(ROOT, 'node_modules/.bin/tsc')}" --noEmit -p . && "${join(ROOT, 'node_modules/.bin/tsc')}" --noEmit -p console`] },
  { name: 'unit', what: TIER_MEANING.unit, tier: 'unit', args: ['--import', `./${UNIT_GUARD}`] },
  { name: 'integration', what: TIER_MEANING.integration, tier: 'integration' },
  { name: 'store', what: TIER_MEANING.store, tier: 'store' },
  { name: 'e2e', what: 'the real service over HTTP, on SQLite', tier: 'e2e', split: offTheClock },
  { name: 'postgres', what: 'the end-to-end suites below the HTTP surface again, on one throwaway PostgreSQL cluster', tier: 'e2e', select: postgresE2e, args: [`--test-global-setup=${POSTGRES_GLOBAL_SETUP}`], env: { TEST_STORE: 'postgres' } },
  { name: 'browser', what: TIER_MEANING.browser, tier: 'browser', split: offTheClock },
  { name: 'disk', what: TIER_MEANING.disk, tier: 'disk' },
  { name: 'serial', what: TIER_MEANING.serial, tier: 'serial', args: ['--test-concurrency=1'] },
];

/** The run of the files on the clock: all at once, on the store of the e2e step (SQLite). */
const CLOCK: Step = { name: 'clock', what: 'the files that wait out a real rate-limit minute, beside the steps' };

interface Outcome {
  name: string;
  seconds: number;
  code: number;
  /** node --test's summary counts (tests, pass, fail, skipped...), absent for a step that is not a test run. */
  counts: Record<string, number>;
}

function reportOf(step: Step): string {
  return join(TIMINGS_DIR, `${step.name}.xml`);
}

function commandOf(step: Step, files: readonly string[], concurrency: number): string[] {
  if (step.command) return [...step.command];
  return [
    process.execPath,
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    '--test-reporter=junit',
    `--test-reporter-destination=${reportOf(step)}`,
    ...(step.args ?? []),
    ...files,
  ];
}

/**
 * The step's test files by the summed time of their tests, slowest first (from its JUnit report). Files run
 * side by side, so the sum is each file's own time, not its share of the step's wall time.
 */
function slowestFiles(step: Step): string {
  let report: string;
  try {
    report = readFileSync(reportOf(step), 'utf8');
  } catch {
    return '';
  }
  const seconds = new Map<string, number>();
  // Test cases are the leaves (a test with subtests is reported as a suite of them), so none is counted twice.
  for (const match of report.matchAll(/<testcase [^>]*time="([\d.]+)"[^>]*file="([^"]+)"/g)) {
    const file = relative(ROOT, match[2]);
    seconds.set(file, (seconds.get(file) ?? 0) + Number(match[1]));
  }
  const slowest = [...seconds].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST_FILES);
  return slowest.map(([file, time]) => `     ${time.toFixed(1).padStart(7)} s  ${file}`).join('\n');
}

interface Running {
  child: ChildProcess;
  outcome: Promise<Outcome>;
  /** What it printed, when its output is held (the clock run's) rather than streamed. */
  output(): string;
}

function start(step: Step, command: readonly string[], held: boolean): Running {
  const [program, ...args] = command;
  const started = performance.now();
  const child = spawn(program, args, { cwd: ROOT, env: { ...process.env, ...step.env }, stdio: ['ignore', 'pipe', 'inherit'] });
  // The summary is the last lines of the spec reporter's output ("ℹ tests 412"): keep a tail to read it from.
  let tail = '';
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    if (held) output += chunk.toString('utf8');
    else process.stdout.write(chunk);
    tail = (tail + chunk.toString('utf8')).slice(-4096);
  });
  const outcome = new Promise<Outcome>((resolve) =>
    child.once('close', (exitCode, signal) => {
      const counts: Record<string, number> = {};
      for (const match of tail.matchAll(/^ℹ (tests|suites|pass|fail|cancelled|skipped|todo) (\d+)$/gm)) counts[match[1]] = Number(match[2]);
      resolve({ name: step.name, seconds: (performance.now() - started) / 1000, code: exitCode ?? (signal ? 128 : 1), counts });
    }),
  );
  return { child, outcome, output: () => output };
}

function line(outcome: Outcome): string {
  const { tests, pass, fail, skipped } = outcome.counts;
  const figures = tests === undefined ? '' : `  ${tests} tests, ${pass ?? 0} pass, ${fail ?? 0} fail${skipped ? `, ${skipped} skipped` : ''}`;
  return `${outcome.name.padEnd(12)} ${outcome.seconds.toFixed(1).padStart(7)} s  ${outcome.code === 0 ? 'ok    ' : `FAILED (exit ${outcome.code})`}${figures}`;
}

function report(step: Step, outcome: Outcome): void {
  process.stdout.write(`== ${line(outcome)}\n`);
  const slowest = step.tier || step === CLOCK ? slowestFiles(step) : '';
  if (slowest) process.stdout.write(`   slowest files:\n${slowest}\n`);
}

async function main(names: readonly string[]): Promise<number> {
  const unknown = names.filter((name) => !STEPS.some((step) => step.name === name));
  if (unknown.length > 0) {
    process.stderr.write(`no such step: ${unknown.join(', ')} (steps: ${STEPS.map((step) => step.name).join(', ')})\n`);
    return 2;
  }
  const placement = place(testFiles(ROOT));
  if (placement.unplaced.length > 0 || placement.stale.length > 0) {
    if (placement.unplaced.length > 0) process.stderr.write(`test files that belong to no tier (add a row to test/tiers.ts):\n${placement.unplaced.map((file) => `  ${file}`).join('\n')}\n`);
    if (placement.stale.length > 0) process.stderr.write(`rows of test/tiers.ts naming no test file:\n${placement.stale.map((file) => `  ${file}`).join('\n')}\n`);
    return 2;
  }
  mkdirSync(TIMINGS_DIR, { recursive: true });
  const chosen = (names.length === 0 ? STEPS : STEPS.filter((step) => names.includes(step.name))).map((step) => {
    const tierFiles = step.tier ? placement.byTier[step.tier] : [];
    const files = step.select ? step.select(tierFiles) : tierFiles;
    return { step, ...(step.split ? step.split(files) : { rest: inStartOrder(files), clock: [] as string[] }) };
  });
  const clockFiles = chosen.flatMap((plan) => plan.clock);
  const firstOnTheClock = chosen.find((plan) => plan.clock.length > 0);
  let clock: Running | null = null;
  const outcomes: Outcome[] = [];
  const total = performance.now();
  for (const { step, rest } of chosen) {
    if (step === firstOnTheClock?.step) {
      process.stdout.write(`\n== ${CLOCK.name}: ${CLOCK.what} (${clockFiles.length} files, from now on)\n`);
      clock = start(CLOCK, commandOf(CLOCK, clockFiles, clockFiles.length), true);
    }
    process.stdout.write(`\n== ${step.name}: ${step.what}${step.tier ? ` (${rest.length} files)` : ''}\n`);
    // node --test given no file runs its default glob, every test of the checkout: a tier with none runs nothing.
    if (step.tier && rest.length === 0) continue;
    const outcome = await start(step, commandOf(step, rest, TEST_CONCURRENCY), false).outcome;
    outcomes.push(outcome);
    report(step, outcome);
    if (outcome.code !== 0) break;
  }
  if (clock) {
    if (outcomes.some((outcome) => outcome.code !== 0)) clock.child.kill('SIGTERM');
    const outcome = await clock.outcome;
    process.stdout.write(`\n== ${CLOCK.name}: ${CLOCK.what}\n${clock.output()}`);
    outcomes.push(outcome);
    report(CLOCK, outcome);
  }
  const failed = outcomes.some((outcome) => outcome.code !== 0);
  process.stdout.write(`\n== wall time by step\n${outcomes.map((outcome) => `   ${line(outcome)}`).join('\n')}\n   ${'all'.padEnd(12)} ${((performance.now() - total) / 1000).toFixed(1).padStart(7)} s  ${failed ? 'FAILED' : 'ok'}\n`);
  return failed ? 1 : 0;
}

process.env.NODE_COMPILE_CACHE ??= join(ROOT, 'node_modules/.cache/node-compile-cache');
process.exitCode = await main(process.argv.slice(2));
