import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractEntities } from '../../src/ingest/entities/extract.ts';
import { BNM_ENGLISH_FILE, BNM_MALAY_FILE, readCorpusText } from './corpus.ts';

// Ceilings at least 20 times what is measured on an idle machine (80-120 ms per MB of the notices, the first run
// of the process the slowest; at most 100-135 ms for one hostile input, the patronymics): they catch catastrophic
// backtracking, which takes seconds to minutes, not regressions, so a busy machine does not make them fail.
// Speed itself is bench/ingest's to measure.
const MAX_MS_PER_MB = 3000;
const MAX_MS_PATHOLOGICAL = 3000;

function timeMs(work: () => void): number {
  const start = performance.now();
  work();
  return performance.now() - start;
}

for (const file of [BNM_ENGLISH_FILE, BNM_MALAY_FILE]) {
  test(`no catastrophic backtracking on ${file} (a bound per MB)`, () => {
    const text = readCorpusText(file);
    const megabytes = Buffer.byteLength(text) / 1e6;
    const ms = timeMs(() => extractEntities(text));
    assert.ok(ms / megabytes < MAX_MS_PER_MB, `${(ms / megabytes).toFixed(0)} ms per MB`);
  });
}

const HOSTILE_INPUTS: Record<string, string> = {
  'capitalized words without end': 'Abc '.repeat(50_000),
  'honorifics without names': 'Encik Dato '.repeat(20_000),
  'digits and separators': '1,2.3,4.5'.repeat(20_000),
  'currency then digit runs': 'RM1.1.1.1.1.1 '.repeat(15_000),
  'account label then masks': 'Account No: ' + 'X-'.repeat(100_000),
  'reference label chains': 'Ref: Ref: Ref '.repeat(15_000),
  'IBAN-like run': 'NL81' + 'ABCD'.repeat(50_000),
  'suffixes everywhere': 'Sdn Bhd Berhad Inc '.repeat(10_000),
  'patronymics everywhere': 'Ali bin Abu bin Ali '.repeat(10_000),
  'one huge line of letters': 'a'.repeat(200_000),
  'one huge word of digits': '7'.repeat(200_000),
  'dotted capitals': 'A.'.repeat(100_000),
  'street prefixes': 'Jalan '.repeat(30_000),
  'closings without names': 'Yours sincerely,\n'.repeat(10_000),
};

for (const [name, text] of Object.entries(HOSTILE_INPUTS)) {
  test(`no catastrophic backtracking: ${name}`, () => {
    const ms = timeMs(() => extractEntities(text));
    assert.ok(ms < MAX_MS_PATHOLOGICAL, `${ms.toFixed(0)} ms`);
  });
}
