// `npm test` and `npm run test:<tier>`: runs the named steps (all of STEPS when none is named) one after another,
// each test tier through node --test on the files test/tiers.ts places in it, and prints each step's wall time
// and test counts as it ends and all of them at the end. The first step that fails stops the run (as the chain
// of && it replaces did). It refuses to start while a test file belongs to no tier.

import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { besideTheRest, place, postgresE2e, testFiles, TIER_MEANING } from './tiers.ts';
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
  /**
   * The step's files split in two: `rest` at TEST_CONCURRENCY, and `beside` at once, in a run of their own at
   * the same time (files that mostly wait), whose output follows the other run's.
   */
  split?: (files: readonly string[]) => { rest: string[]; beside: string[] };
}

const STEPS: readonly Step[] = [
  { name: 'typecheck', what: 'tsc over src, test, bench and the client, then over the console', command: ['sh', '-c', `"${join(ROOT, 'node_modules/.bin/tsc')}" --noEmit -p . && "${join(ROOT, 'node_modules/.bin/tsc')}" --noEmit -p console`] },
  { name: 'unit', what: TIER_MEANING.unit, tier: 'unit', args: ['--import', `./${UNIT_GUARD}`] },
  { name: 'integration', what: TIER_MEANING.integration, tier: 'integration' },
  { name: 'store', what: TIER_MEANING.store, tier: 'store' },
  { name: 'e2e', what: 'the real service over HTTP, on SQLite', tier: 'e2e', split: besideTheRest },
  { name: 'postgres', what: 'the end-to-end suites below the HTTP surface again, on one throwaway PostgreSQL cluster', tier: 'e2e', select: postgresE2e, args: [`--test-global-setup=${POSTGRES_GLOBAL_SETUP}`], env: { TEST_STORE: 'postgres' } },
  { name: 'browser', what: TIER_MEANING.browser, tier: 'browser' },
  { name: 'disk', what: TIER_MEANING.disk, tier: 'disk' },
  { name: 'serial', what: TIER_MEANING.serial, tier: 'serial', args: ['--test-concurrency=1'] },
];

interface Outcome {
  name: string;
  seconds: number;
  code: number;
  /** node --test's summary counts (tests, pass, fail, skipped...), absent for a step that is not a test run. */
  counts: Record<string, number>;
}

/** One node --test run of a step: all of its files, or one of the two parts of a split step. */
interface Run {
  files: readonly string[];
  concurrency: number;
  /** Where its JUnit report goes. */
  report: string;
}

function runsOf(step: Step, files: readonly string[]): Run[] {
  if (!step.split) return [{ files, concurrency: TEST_CONCURRENCY, report: join(TIMINGS_DIR, `${step.name}.xml`) }];
  const { rest, beside } = step.split(files);
  return [
    { files: rest, concurrency: TEST_CONCURRENCY, report: join(TIMINGS_DIR, `${step.name}.xml`) },
    { files: beside, concurrency: Math.max(1, beside.length), report: join(TIMINGS_DIR, `${step.name}-beside.xml`) },
  ].filter((part) => part.files.length > 0);
}

function commandOf(step: Step, part: Run): string[] {
  if (step.command) return [...step.command];
  return [
    process.execPath,
    '--test',
    `--test-concurrency=${part.concurrency}`,
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    '--test-reporter=junit',
    `--test-reporter-destination=${part.report}`,
    ...(step.args ?? []),
    ...part.files,
  ];
}

/**
 * The step's test files by the summed time of their tests, slowest first (from its JUnit reports). Files run
 * side by side, so the sum is each file's own time, not its share of the step's wall time.
 */
function slowestFiles(parts: readonly Run[]): string {
  const seconds = new Map<string, number>();
  for (const part of parts) {
    let report: string;
    try {
      report = readFileSync(part.report, 'utf8');
    } catch {
      continue;
    }
    // Test cases are the leaves (a test with subtests is reported as a suite of them), so none is counted twice.
    for (const match of report.matchAll(/<testcase [^>]*time="([\d.]+)"[^>]*file="([^"]+)"/g)) {
      const file = relative(ROOT, match[2]);
      seconds.set(file, (seconds.get(file) ?? 0) + Number(match[1]));
    }
  }
  const slowest = [...seconds].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST_FILES);
  return slowest.map(([file, time]) => `     ${time.toFixed(1).padStart(7)} s  ${file}`).join('\n');
}

/** Runs one command; its output goes to stdout as it comes, or, when `held`, all at once when it ends. */
async function runOne(command: readonly string[], env: Record<string, string> | undefined, held: boolean): Promise<{ code: number; counts: Record<string, number>; output: string }> {
  const [program, ...args] = command;
  const child = spawn(program, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  // The summary is the last lines of the spec reporter's output ("ℹ tests 412"): keep a tail to read it from.
  let tail = '';
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    if (held) output += chunk.toString('utf8');
    else process.stdout.write(chunk);
    tail = (tail + chunk.toString('utf8')).slice(-4096);
  });
  const code = await new Promise<number>((resolve) => child.once('close', (exitCode, signal) => resolve(exitCode ?? (signal ? 128 : 1))));
  const counts: Record<string, number> = {};
  for (const match of tail.matchAll(/^ℹ (tests|suites|pass|fail|cancelled|skipped|todo) (\d+)$/gm)) counts[match[1]] = Number(match[2]);
  return { code, counts, output };
}

async function run(step: Step, parts: readonly Run[]): Promise<Outcome> {
  const started = performance.now();
  if (step.command) {
    const { code, counts } = await runOne(step.command, step.env, false);
    return { name: step.name, seconds: (performance.now() - started) / 1000, code, counts };
  }
  // The first part streams; the others (the files beside it) are held and follow it, not interleaved with it.
  const ended = await Promise.all(parts.map((part, i) => runOne(commandOf(step, part), step.env, i > 0)));
  for (const part of ended.slice(1)) process.stdout.write(part.output);
  const counts: Record<string, number> = {};
  for (const part of ended) for (const [name, count] of Object.entries(part.counts)) counts[name] = (counts[name] ?? 0) + count;
  const code = ended.find((part) => part.code !== 0)?.code ?? 0;
  return { name: step.name, seconds: (performance.now() - started) / 1000, code, counts };
}

function line(outcome: Outcome): string {
  const { tests, pass, fail, skipped } = outcome.counts;
  const figures = tests === undefined ? '' : `  ${tests} tests, ${pass ?? 0} pass, ${fail ?? 0} fail${skipped ? `, ${skipped} skipped` : ''}`;
  return `${outcome.name.padEnd(12)} ${outcome.seconds.toFixed(1).padStart(7)} s  ${outcome.code === 0 ? 'ok    ' : `FAILED (exit ${outcome.code})`}${figures}`;
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
  const chosen = names.length === 0 ? STEPS : STEPS.filter((step) => names.includes(step.name));
  const outcomes: Outcome[] = [];
  const total = performance.now();
  for (const step of chosen) {
    const tierFiles = step.tier ? placement.byTier[step.tier] : [];
    const files = step.select ? step.select(tierFiles) : tierFiles;
    process.stdout.write(`\n== ${step.name}: ${step.what}${step.tier ? ` (${files.length} files)` : ''}\n`);
    // node --test given no file runs its default glob, every test of the checkout: a tier with none runs nothing.
    if (step.tier && files.length === 0) continue;
    const parts = runsOf(step, files);
    const outcome = await run(step, parts);
    outcomes.push(outcome);
    process.stdout.write(`== ${line(outcome)}\n`);
    const slowest = step.tier ? slowestFiles(parts) : '';
    if (slowest) process.stdout.write(`   slowest files:\n${slowest}\n`);
    if (outcome.code !== 0) break;
  }
  const failed = outcomes.some((outcome) => outcome.code !== 0);
  process.stdout.write(`\n== wall time by step\n${outcomes.map((outcome) => `   ${line(outcome)}`).join('\n')}\n   ${'all'.padEnd(12)} ${((performance.now() - total) / 1000).toFixed(1).padStart(7)} s  ${failed ? 'FAILED' : 'ok'}\n`);
  return failed ? 1 : 0;
}

process.env.NODE_COMPILE_CACHE ??= join(ROOT, 'node_modules/.cache/node-compile-cache');
process.exitCode = await main(process.argv.slice(2));
