// The limit settings of docs/configuration.md "Limits": defaults, validation, and one default for parsing with or without config.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadConfig, ConfigError } from '../src/config.ts';
import { MAX_DOCUMENT_PAGES, MAX_DOCUMENT_TEXT_CHARS, MAX_WORKBOOK_CELLS, MAX_WORKBOOK_SHEETS } from '../src/ingest/parse-options.ts';
import { clientQuotasOf } from '../src/domain/limits.ts';

const SETTINGS = {
  DOCUMENT_MAX_CHARS: ['documentMaxChars', 2_000_000],
  DOCUMENT_MAX_CHUNKS: ['documentMaxChunks', 2_000],
  DOCUMENT_MAX_PAGES: ['documentMaxPages', 2_000],
  DOCUMENT_MAX_SHEETS: ['documentMaxSheets', 256],
  DOCUMENT_MAX_CELLS: ['documentMaxCells', 1_000_000],
  CLIENT_MAX_DOCUMENTS: ['clientMaxDocuments', 100_000],
  CLIENT_MAX_CHUNKS: ['clientMaxChunks', 1_000_000],
  CLIENT_MAX_TEXT_BYTES: ['clientMaxTextBytes', 2048 * 1024 * 1024],
  TEXT_READ_MAX_CHUNKS: ['textReadMaxChunks', 500],
  TEXT_READ_MAX_CHARS: ['textReadMaxChars', 1_000_000],
} as const;

test('every limit has a named setting with its default, listed in .env.example and the configuration reference', () => {
  const config = loadConfig({});
  const example = readFileSync(new URL('../.env.example', import.meta.url), 'utf8');
  const reference = readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8');
  assert.ok(reference.includes('\n## Limits\n'), 'docs/configuration.md has a Limits section');
  const limits = reference.slice(reference.indexOf('\n## Limits\n'), reference.indexOf('\n## ', reference.indexOf('\n## Limits\n') + 1));
  for (const [name, [field, value]] of Object.entries(SETTINGS)) {
    assert.equal(config[field], value, name);
    assert.match(example, new RegExp(`^${name}=${value}$`, 'm'), `${name} in .env.example`);
    assert.ok(limits.includes(name), `${name} in docs/configuration.md "Limits"`);
    assert.equal(loadConfig({ [name]: '7000' })[field], 7000, `${name} is read`);
    assert.throws(() => loadConfig({ [name]: '0' }), (error: unknown) => error instanceof ConfigError && error.setting === name, `${name} refuses 0`);
    assert.throws(() => loadConfig({ [name]: 'many' }), (error: unknown) => error instanceof ConfigError && error.setting === name, `${name} refuses a non-integer`);
  }
});

test('parsing without configuration uses the same defaults as the settings', () => {
  const config = loadConfig({});
  assert.equal(MAX_DOCUMENT_TEXT_CHARS, config.documentMaxChars);
  assert.equal(MAX_DOCUMENT_PAGES, config.documentMaxPages);
  assert.equal(MAX_WORKBOOK_SHEETS, config.documentMaxSheets);
  assert.equal(MAX_WORKBOOK_CELLS, config.documentMaxCells);
  assert.deepEqual(clientQuotasOf(config), { maxDocuments: 100_000, maxChunks: 1_000_000, maxTextBytes: 2048 * 1024 * 1024 });
});
