// The documentation holds together: every link between README.md and the pages of docs/ resolves (to a file of the
// checkout and, with a #fragment, to a heading of it), docs/configuration.md lists every setting the service
// reads, with the default .env.example gives it, and README.md's quickstart commands give only valid settings.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEnv } from 'node:util';
import { loadConfig } from '../src/config.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DOCS = join(ROOT, 'docs');
const PAGES = [join(ROOT, 'README.md'), ...readdirSync(DOCS).filter((name) => name.endsWith('.md')).map((name) => join(DOCS, name))];
/** What the configuration reference must list: the pages a user is sent to for settings. */
const REFERENCE = join(DOCS, 'configuration.md');
/** .env.example gives the development key here so that a copied file works; the service's own default is none. */
const EXAMPLE_VALUE_NOT_DEFAULT = new Set(['API_KEY_CLIENTS']);

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
}

function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  let inFence = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) inFence = !inFence;
    const heading = !inFence && /^#{1,6} (.+)$/.exec(line);
    if (heading) anchors.add(anchorOf(heading[1]));
  }
  return anchors;
}

/** Markdown links outside code: [text](target). */
function linksOf(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]);
}

test('every link of README.md and docs/ resolves to a file of the checkout and a heading in it', () => {
  assert.ok(PAGES.length >= 7, `README and the docs pages: ${PAGES.map((page) => relative(ROOT, page)).join(', ')}`);
  const problems: string[] = [];
  let checked = 0;
  for (const page of PAGES) {
    for (const link of linksOf(readFileSync(page, 'utf8'))) {
      if (/^[a-z]+:/.test(link)) continue; // http(s) and the like: not files of the checkout
      checked += 1;
      const [path, fragment] = link.split('#');
      const target = path === '' ? page : resolve(dirname(page), decodeURIComponent(path));
      const where = `${relative(ROOT, page)} -> ${link}`;
      if (relative(ROOT, target).startsWith('..')) problems.push(`${where}: outside the checkout`);
      else if (!existsSync(target)) problems.push(`${where}: no such file`);
      else if (fragment !== undefined && !anchorsOf(readFileSync(target, 'utf8')).has(fragment)) problems.push(`${where}: no such heading`);
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(checked >= 20, `links checked: ${checked}`);
});

/** The settings the service reads: every name src/config.ts parses, and ENV_FILE (src/env-file.ts). */
function settingsRead(): string[] {
  const config = readFileSync(join(ROOT, 'src/config.ts'), 'utf8');
  const names = new Set([...config.matchAll(/\benv, '([A-Z][A-Z0-9_]*)'/g)].map((match) => match[1]));
  assert.match(readFileSync(join(ROOT, 'src/env-file.ts'), 'utf8'), /env\.ENV_FILE/);
  names.add('ENV_FILE');
  return [...names].sort();
}

/** The rows `| \`NAME\` | default | what it does |` of the configuration reference, by name. */
function referenceRows(): Map<string, string> {
  const rows = new Map<string, string>();
  for (const match of readFileSync(REFERENCE, 'utf8').matchAll(/^\| `([A-Z][A-Z0-9_]*)` \| ([^|]*) \|/gm)) rows.set(match[1], match[2].trim());
  return rows;
}

test('docs/configuration.md lists every setting the service reads, with the default .env.example gives it', () => {
  const settings = settingsRead();
  assert.ok(settings.length >= 75, `settings found in src/config.ts: ${settings.length}`);
  const rows = referenceRows();
  const example = new Map([...readFileSync(join(ROOT, '.env.example'), 'utf8').matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((match) => [match[1], match[2]]));
  for (const name of settings) {
    const documented = rows.get(name);
    assert.ok(documented !== undefined, `${name} has a row in docs/configuration.md`);
    assert.notEqual(documented, '', `${name} has a default in docs/configuration.md`);
    if (name === 'ENV_FILE') continue; // read before the settings, from the environment only: .env.example names it in a comment
    assert.ok(example.has(name), `${name} in .env.example`);
    const value = example.get(name)!;
    if (value !== '' && !EXAMPLE_VALUE_NOT_DEFAULT.has(name)) assert.equal(documented, `\`${value}\``, `${name}: the default of docs/configuration.md is .env.example's`);
  }
  for (const name of example.keys()) assert.ok(settings.includes(name), `${name} of .env.example is a setting src/config.ts reads`);
});

/** The `npm start` lines of README.md's shell blocks, with the settings each gives as NAME=value or NAME='value'. */
function startCommands(): Array<{ line: string; settings: Record<string, string> }> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const lines = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((block) => block[1].split('\n')).filter((line) => /\bnpm start$/.test(line));
  return lines.map((line) => ({ line, settings: Object.fromEntries([...line.matchAll(/\b([A-Z][A-Z0-9_]*)=('[^']*'|\S+)/g)].map((match) => [match[1], match[2].replace(/^'|'$/g, '')])) }));
}

test("README's quickstart commands are the two a new machine needs, and the settings they give are valid", () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const quickstart = readme.slice(readme.indexOf('\n## Quickstart\n'), readme.indexOf('\n## ', readme.indexOf('\n## Quickstart\n') + 1));
  assert.match(quickstart, /^npm install && API_KEY_CLIENTS='\{"dev-key":"dev-client"\}' npm start$/m, 'install and start on the embedded default');
  assert.match(quickstart, /^npm ci && npm test$/m, 'install and run all tests');
  const commands = startCommands();
  assert.ok(commands.length >= 2, `npm start commands in README.md: ${commands.length}`);
  const settings = settingsRead();
  for (const { line, settings: given } of commands) {
    for (const name of Object.keys(given)) assert.ok(settings.includes(name), `${name} of "${line}" is a setting`);
    const config = loadConfig(given);
    assert.equal(config.apiKeyClients.get('dev-key'), 'dev-client', `"${line}" maps dev-key`);
  }
  const laptop = commands.find(({ settings: given }) => 'RATE_LIMIT_PER_MINUTE' in given);
  assert.ok(laptop, 'a laptop command raising the rate limits');
  const config = loadConfig(laptop.settings);
  assert.ok(config.rateLimitPerMinute > loadConfig({}).rateLimitPerMinute && config.searchRateLimitPerMinute > loadConfig({}).searchRateLimitPerMinute);
});

test('.env.example copied to .env gives the defaults of docs/configuration.md, with the development key', () => {
  const copied = parseEnv(readFileSync(join(ROOT, '.env.example'), 'utf8'));
  const fromFile = loadConfig(copied);
  const defaults = loadConfig({});
  assert.deepEqual([...fromFile.apiKeyClients], [['dev-key', 'dev-client']]);
  const { apiKeyClients: _keys, apiKeyClientsProblem: _problem, ...rest } = fromFile;
  const { apiKeyClients: _defaultKeys, apiKeyClientsProblem: _defaultProblem, ...restDefaults } = defaults;
  assert.deepEqual(rest, restDefaults);
});
