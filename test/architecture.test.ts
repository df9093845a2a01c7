// DESIGN.md "Architecture", as docs/architecture.md "Layout" draws it today (its table of forbidden arrows is
// this file's FORBIDDEN, and a test keeps the two the same): walks the imports of every .ts and .js file under
// src/ and fails on a forbidden arrow between top-level folders, on a folder-level cycle or on a cycle between
// two files (anywhere, even inside one folder). Type-only imports count: a type is a dependency too. codec/
// (what a generation is written as) sits below both its writer (jobs, publication) and its reader (serving,
// search); runtime/ (threads and processes) below every folder that runs one. Files directly in src/ (main.ts, api.ts, worker.ts, cli.ts, version.ts) are the
// composition root, "root", which may import anything; src/config.ts is its own leaf node, "config",
// which every folder may read and which imports nothing of ours; src/spec-limits.ts (SPEC.md's limits) is
// the leaf "limits", which every folder, even those that depend on nothing else of ours, may read;
// src/fault-points.ts (the points a test preload may pause) is the leaf "faults", which imports nothing of ours.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ALL = '*';
/** A row naming what a folder MAY import (the limits always), for a folder kept below nearly everything else. */
interface OnlyRule {
  readonly only: readonly string[];
}
const only = (...folders: string[]): OnlyRule => ({ only: folders });

/**
 * What each folder of src/ must not import (besides the two rules below the table). ALL: nothing of
 * ours at all; only(...): nothing but those folders (so a folder added later is forbidden to it too). A
 * folder that does not exist yet is tolerated; a folder that exists must have a row.
 *
 *   folder         must not import
 */
const FORBIDDEN: Record<string, readonly string[] | typeof ALL | OnlyRule> = {
  config: ALL, // the typed settings: a leaf every layer may read (and the limits, below)
  limits: ALL, // SPEC.md's limits by name: a leaf every folder may read
  faults: ALL, // the test-only fault points: a leaf the code that holds one imports
  domain: ALL, // pure types and rules: depends on nothing of ours (not even text)
  text: ALL, // analyzers: depend on nothing of ours (not even domain)
  codec: only('domain', 'text'), // what a generation is written as: below the worker that writes it and the api that reads it
  runtime: only('config', 'domain'), // threads, processes and shared reads (request threads, spare cores, liveness, fresh reads): generic, so below all that use them
  storage: ['http', 'search', 'serving', 'publication', 'ingest', 'jobs'],
  serving: ['publication', 'http', 'jobs', 'ingest'],
  search: ['publication', 'http', 'jobs', 'ingest'],
  models: ['http', 'publication', 'serving', 'search', 'jobs', 'storage'],
  ingest: ['http', 'publication', 'serving', 'search', 'jobs'], // accepting uploads uses the storage port
  publication: ['http', 'search', 'serving'], // writers: the api's snapshots and read guard are for reads/
  jobs: ['http', 'serving'],
  websearch: ['http'],
  webhooks: ['http', 'serving', 'search', 'publication', 'ingest', 'jobs', 'reads'], // registering webhooks and sending the outbox's deliveries
  reads: ['http', 'publication', 'jobs', 'ingest'], // the api's reads (status, readiness, documents, health, the authority view): never a write path
  health: ['http', 'publication', 'search', 'serving', 'ingest', 'jobs', 'models'], // /health's store reads on a thread (runtime/request-thread.ts)
  access: ['http', 'publication', 'ingest', 'jobs', 'serving', 'models', 'websearch', 'health'], // Clients and keys at runtime: the storage port, the key filter
  http: ['storage'], // HTTP only: parsing, validation, rendering; it reaches the store through services
  cli: ['domain', 'text', 'codec', 'runtime', 'storage', 'serving', 'search', 'models', 'ingest', 'publication', 'jobs', 'websearch', 'health', 'reads', 'access', 'http'], // a client of the HTTP API (through clients/typescript), like any other
};
/** Nothing imports http except the composition root. */
const ONLY_ROOT_IMPORTS = 'http';
/** The database drivers stay behind the storage port: the folders that may import each. */
const DRIVERS: Record<string, ReadonlySet<string>> = {
  'node:sqlite': new Set(['storage', 'root']),
  pg: new Set(['storage']),
};

/**
 * Services see the store only through its port: outside storage/, a file imports from storage/ only the port's
 * interfaces (readiness derived over them is a read: reads/discovery-readiness.ts); the adapters themselves
 * (storage/sqlite/, storage/postgres/) are opened by storage/open-storage.ts for the composition roots, the root
 * and the health probe thread, which composes its own thread.
 */
const STORAGE_PORT_FILES = new Set(['src/storage/port.ts']);
const ADAPTER_COMPOSERS = new Set(['src/health/probe-thread.ts']);
/** The port names no driver and no adapter file: a PostgreSQL adapter implements the same interfaces. */
const PORT_FILE = 'src/storage/port.ts';
/**
 * Each adapter's folder and the one driver it speaks. Inside storage/, an adapter's files are imported only by
 * its own folder and by OPEN_STORAGE_FILE (which opens the one configured), and a driver only by its adapter:
 * what both adapters need is written once in storage/shared/, which imports neither, instead of one adapter
 * reaching into the other.
 */
const ADAPTER_DRIVERS: Record<string, string> = { 'src/storage/sqlite/': 'node:sqlite', 'src/storage/postgres/': 'pg' };
const OPEN_STORAGE_FILE = 'src/storage/open-storage.ts';

/** The architecture page, whose layout table must say what FORBIDDEN says. */
const ARCHITECTURE_PAGE = fileURLToPath(new URL('../docs/architecture.md', import.meta.url));

const ROOT = 'root';
const CONFIG = 'config';
const LIMITS = 'limits';
const FAULTS = 'faults';
const SRC = fileURLToPath(new URL('../src/', import.meta.url));

interface ImportEdge {
  /** Path relative to the repository, for example src/search/filters.ts. */
  from: string;
  /** The resolved path (relative ones) or the bare specifier. */
  to: string;
  fromFolder: string;
  /** The folder under src/ of a relative import, or null for a package or node: builtin. */
  toFolder: string | null;
  specifier: string;
}

/** `root` for files directly in src/, else the first folder under src/. */
function folderOf(srcRelative: string): string {
  const parts = srcRelative.split(sep);
  if (srcRelative === 'config.ts') return CONFIG;
  if (srcRelative === 'spec-limits.ts') return LIMITS;
  if (srcRelative === 'fault-points.ts') return FAULTS;
  return parts.length === 1 ? ROOT : parts[0];
}

/**
 * Static `import ... from '...'`, `import '...'`, `export ... from '...'`, and `import('...')` with a
 * literal specifier. Comment lines are skipped; declarations are read where they start a line.
 */
function importSpecifiers(source: string): string[] {
  const code: string[] = [];
  let inBlockComment = false;
  for (const line of source.split('\n')) {
    const trimmed = line.trimStart();
    if (inBlockComment) {
      if (trimmed.includes('*/')) {
        inBlockComment = false;
        code.push(trimmed.slice(trimmed.indexOf('*/') + 2));
      } else {
        code.push('');
      }
      continue;
    }
    if (trimmed.startsWith('/*')) {
      const end = trimmed.indexOf('*/', 2);
      if (end === -1) inBlockComment = true;
      code.push(end === -1 ? '' : trimmed.slice(end + 2));
      continue;
    }
    code.push(trimmed.startsWith('//') ? '' : line);
  }
  const text = code.join('\n');
  const patterns = [
    // import x from, import { a, b } from (multi-line), import * as x from, import type ... from
    /^[ \t]*import\s+(?:type\s+)?(?:[\w$]+\s*,?\s*)?(?:\{[^}]*\}|\*\s*as\s+[\w$]+)?\s*from\s*(['"])([^'"\n]+)\1/gm,
    // import './side-effect.ts'
    /^[ \t]*import\s*(['"])([^'"\n]+)\1/gm,
    // export { a } from, export * from, export * as x from, export type { a } from
    /^[ \t]*export\s+(?:type\s+)?(?:\{[^}]*\}|\*(?:\s*as\s+[\w$]+)?)\s*from\s*(['"])([^'"\n]+)\1/gm,
    // await import('./parsers/pdf.ts')
    /\bimport\(\s*(['"])([^'"\n]+)\1\s*\)/g,
  ];
  return patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[2]));
}

/** Source files: TypeScript, and the JavaScript a thread entry may be written in (serving/graphs/graph-thread.js). */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && (entry.name.endsWith('.ts') || entry.name.endsWith('.js')) && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

function readEdges(): ImportEdge[] {
  const repo = resolve(SRC, '..');
  const edges: ImportEdge[] = [];
  for (const file of sourceFiles(SRC)) {
    const fromFolder = folderOf(relative(SRC, file));
    // A file that imports both values and types of one module is one arrow.
    for (const specifier of new Set(importSpecifiers(readFileSync(file, 'utf8')))) {
      const from = relative(repo, file);
      if (!specifier.startsWith('.')) {
        edges.push({ from, to: specifier, fromFolder, toFolder: null, specifier });
        continue;
      }
      const target = resolve(dirname(file), specifier);
      const inSrc = relative(SRC, target);
      const toFolder = inSrc.startsWith('..') ? `outside src (${relative(repo, target)})` : folderOf(inSrc);
      edges.push({ from, to: relative(repo, target), fromFolder, toFolder, specifier });
    }
  }
  return edges;
}

type Graph = Map<string, Set<string>>;

/** Tarjan's strongly connected components. */
function stronglyConnected(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  const nodes = new Set([...graph.keys(), ...[...graph.values()].flatMap((targets) => [...targets])]);
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      components.push(component.sort());
    }
  };
  for (const node of [...nodes].sort()) if (!index.has(node)) visit(node);
  return components;
}

/** The shortest path from `start` back to itself inside `members` (breadth first), as [start, ..., start]. */
function shortestCycleThrough(graph: Graph, start: string, members: Set<string>): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const target of [...(graph.get(node) ?? [])].sort()) {
      if (!members.has(target)) continue;
      if (target === start) {
        const path: string[] = [];
        for (let at = node; at !== start; at = previous.get(at)!) path.unshift(at);
        return [start, ...path, start];
      }
      if (!previous.has(target)) {
        previous.set(target, node);
        queue.push(target);
      }
    }
  }
  return [];
}

/**
 * The cycles of a graph, self-arrows ignored: for every node that lies on one, the shortest cycle
 * through it, as a path [a, b, ..., a] that starts at its alphabetically first node; duplicates
 * dropped. Empty when the graph is acyclic.
 */
function findCycles(graph: Graph): string[][] {
  const withoutSelf: Graph = new Map([...graph].map(([node, targets]) => [node, new Set([...targets].filter((target) => target !== node))]));
  const cycles = new Map<string, string[]>();
  for (const component of stronglyConnected(withoutSelf).filter((members) => members.length > 1)) {
    for (const member of component) {
      const cycle = shortestCycleThrough(withoutSelf, member, new Set(component)).slice(0, -1);
      const first = cycle.indexOf([...cycle].sort()[0]);
      const rotated = [...cycle.slice(first), ...cycle.slice(0, first)];
      cycles.set(rotated.join(' -> '), [...rotated, rotated[0]]);
    }
  }
  return [...cycles.values()];
}

/** The strongly connected groups of folders (more than one folder each): every arrow inside one is on a cycle. */
function cyclicGroups(graph: Graph): string[][] {
  return stronglyConnected(graph).filter((members) => members.length > 1);
}

function folderGraph(edges: ImportEdge[]): Graph {
  const graph: Graph = new Map();
  for (const edge of edges) {
    if (edge.toFolder === null || edge.toFolder === edge.fromFolder) continue;
    if (!graph.has(edge.fromFolder)) graph.set(edge.fromFolder, new Set());
    graph.get(edge.fromFolder)!.add(edge.toFolder);
  }
  return graph;
}

function evidence(edges: ImportEdge[], fromFolder: string, toFolder: string): string[] {
  return edges.filter((edge) => edge.fromFolder === fromFolder && edge.toFolder === toFolder).map((edge) => `    ${edge.from} -> ${edge.to}`);
}

/** The adapter folder (a key of ADAPTER_DRIVERS) a repository path lies in, or null. */
function adapterOf(path: string): string | null {
  return Object.keys(ADAPTER_DRIVERS).find((folder) => path.startsWith(folder)) ?? null;
}

/** A storage/ file's import that reaches into an adapter not its own, or a driver outside its adapter; else null. */
function adapterOffence(edge: ImportEdge): string | null {
  if (edge.fromFolder !== 'storage') return null;
  const from = adapterOf(edge.from);
  if (edge.toFolder === null) {
    const owner = Object.keys(ADAPTER_DRIVERS).find((folder) => ADAPTER_DRIVERS[folder] === edge.specifier);
    return owner !== undefined && owner !== from ? `storage -> ${edge.specifier}: ${edge.from} imports ${edge.specifier} (only ${owner} may)` : null;
  }
  const to = adapterOf(edge.to);
  if (to === null || to === from || edge.from === OPEN_STORAGE_FILE) return null;
  return `storage -> ${edge.to}: ${edge.from} imports ${edge.specifier} (an adapter is imported by its own folder and ${OPEN_STORAGE_FILE} only; what both need goes in storage/shared/)`;
}

function isOnlyRule(rule: readonly string[] | typeof ALL | OnlyRule | undefined): rule is OnlyRule {
  return typeof rule === 'object' && !Array.isArray(rule);
}

/** The graph of imports between files of src/ (packages and builtins left out), by path. */
function fileGraph(edges: ImportEdge[]): Graph {
  const graph: Graph = new Map();
  for (const edge of edges) {
    if (edge.toFolder === null || !edge.to.startsWith(`src${sep}`)) continue;
    if (!graph.has(edge.from)) graph.set(edge.from, new Set());
    graph.get(edge.from)!.add(edge.to);
  }
  return graph;
}

/**
 * The rows of the page's table `| folders | must not import |`, by folder: "anything of ours" is ALL, "anything
 * but a, b" is only(a, b), else the folders named; names are in backticks, and an explanation after ':' or '('
 * is not read.
 */
function documentedRules(page: string): Map<string, readonly string[] | typeof ALL | OnlyRule> {
  const names = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]);
  const rules = new Map<string, readonly string[] | typeof ALL | OnlyRule>();
  for (const line of page.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    if (cells.length !== 4 || !cells[1].startsWith('`')) continue;
    const said = cells[2].split(/[:(]/)[0];
    const rule = said.startsWith('anything of ours') ? ALL : said.startsWith('anything but') ? only(...names(said)) : names(said);
    for (const folder of names(cells[1])) rules.set(folder, rule);
  }
  return rules;
}

/** A rule in one comparable form: ALL, or `only:` or `not:` and the folders sorted. */
function ruleText(rule: readonly string[] | typeof ALL | OnlyRule | undefined): string {
  if (rule === undefined) return 'no row';
  if (rule === ALL) return ALL;
  return isOnlyRule(rule) ? `only: ${[...rule.only].sort().join(', ')}` : `not: ${[...rule].sort().join(', ')}`;
}

/** Every forbidden arrow, one line per importing file and target. */
function forbiddenArrows(edges: ImportEdge[]): string[] {
  const offences: string[] = [];
  for (const edge of edges) {
    if (edge.from === PORT_FILE && edge.toFolder !== 'domain') {
      offences.push(`port -> ${edge.to}: ${edge.from} imports ${edge.specifier} (the port depends on domain types only)`);
      continue;
    }
    const crossing = adapterOffence(edge);
    if (crossing !== null) {
      offences.push(crossing);
      continue;
    }
    if (edge.toFolder === null) {
      const allowed = DRIVERS[edge.specifier];
      if (allowed && !allowed.has(edge.fromFolder)) offences.push(`${edge.fromFolder} -> ${edge.specifier}: ${edge.from} imports ${edge.specifier} (only ${[...allowed].join(' and ')} may)`);
      continue;
    }
    if (edge.toFolder === 'storage' && edge.fromFolder !== 'storage' && edge.fromFolder !== ROOT && !STORAGE_PORT_FILES.has(edge.to) && !ADAPTER_COMPOSERS.has(edge.from)) {
      offences.push(`${edge.fromFolder} -> ${edge.to}: ${edge.from} (services see the store through storage/port.ts only)`);
      continue;
    }
    if (edge.toFolder === edge.fromFolder || edge.toFolder === LIMITS) continue;
    const arrow = `${edge.fromFolder} -> ${edge.toFolder}: ${edge.from} -> ${edge.to}`;
    if (edge.toFolder === ONLY_ROOT_IMPORTS && edge.fromFolder !== ROOT) {
      offences.push(`${arrow} (nothing but the composition root imports ${ONLY_ROOT_IMPORTS})`);
      continue;
    }
    const forbidden = FORBIDDEN[edge.fromFolder];
    if (forbidden === ALL) offences.push(`${arrow} (${edge.fromFolder} depends on nothing of ours)`);
    else if (Array.isArray(forbidden) && forbidden.includes(edge.toFolder)) offences.push(`${arrow} (${edge.fromFolder} must not import ${edge.toFolder})`);
    else if (isOnlyRule(forbidden) && !forbidden.only.includes(edge.toFolder)) offences.push(`${arrow} (${edge.fromFolder} imports only ${[...forbidden.only, LIMITS].join(', ')})`);
  }
  return offences;
}

// ---------------------------------------------------------------------------------------------------

test('the cycle finder finds a folder cycle and its path, and nothing in a DAG', () => {
  const graph = (arrows: Record<string, string[]>): Graph => new Map(Object.entries(arrows).map(([node, targets]) => [node, new Set(targets)]));
  // A diamond is not a cycle (a visited-set bug would call it one); self-arrows are ignored.
  assert.deepEqual(findCycles(graph({ root: ['http', 'search'], http: ['search', 'domain', 'http'], search: ['domain'], domain: [] })), []);
  assert.deepEqual(findCycles(graph({ search: ['publication'], publication: ['search'] })), [['publication', 'search', 'publication']]);
  assert.deepEqual(findCycles(graph({ a: ['b'], b: ['c'], c: ['a', 'd'], d: [] })), [['a', 'b', 'c', 'a']]);
  // Two separate cycles are both reported.
  const two = findCycles(graph({ a: ['b'], b: ['a'], c: ['d'], d: ['e'], e: ['c'] }));
  assert.deepEqual(two.sort(), [['a', 'b', 'a'], ['c', 'd', 'e', 'c']]);
  // The shortest cycle through every node on one, each once.
  assert.deepEqual(findCycles(graph({ a: ['b', 'x'], b: ['a'], x: ['y'], y: ['a'] })), [['a', 'b', 'a'], ['a', 'x', 'y', 'a']]);
  assert.deepEqual(cyclicGroups(graph({ a: ['b'], b: ['a', 'c'], c: [] })), [['a', 'b']]);
});

test('the import reader sees every form of import and ignores comments', () => {
  const source = `// import { nope } from './commented.ts';
/**
 * import { alsoNope } from './doc-comment.ts';
 */
import { a } from './a.ts';
import type { B } from '../b/b.ts';
import Default, { c } from "./c.ts";
import * as d from './d.ts';
import {
  e,
  type E,
} from './e.ts';
import './side-effect.ts';
export { f } from './f.ts';
export type { G } from './g.ts';
export * from './h.ts';
export * as i from './i.ts';
import { DatabaseSync } from 'node:sqlite';
const lazy = async () => (await import('./lazy.ts')).run;
const text = 'something from elsewhere';
export const value = 1;`;
  assert.deepEqual(importSpecifiers(source).sort(), [
    '../b/b.ts',
    './a.ts',
    './c.ts',
    './d.ts',
    './e.ts',
    './f.ts',
    './g.ts',
    './h.ts',
    './i.ts',
    './lazy.ts',
    './side-effect.ts',
    'node:sqlite',
  ]);
});

test('the rules flag forbidden arrows, imports of http and the database drivers', () => {
  const edge = (fromFolder: string, toFolder: string | null, specifier = './x.ts'): ImportEdge => ({
    from: `src/${fromFolder}/x.ts`,
    to: toFolder ? `src/${toFolder}/x.ts` : specifier,
    fromFolder,
    toFolder,
    specifier,
  });
  const inStorage = (from: string, to: string | null, specifier = './x.ts'): ImportEdge => ({ from, to: to ?? specifier, fromFolder: 'storage', toFolder: to === null ? null : 'storage', specifier });
  assert.deepEqual(forbiddenArrows([edge('root', 'http'), edge('http', 'publication'), edge('publication', 'codec'), inStorage('src/storage/sqlite/database.ts', null, 'node:sqlite'), edge('root', null, 'node:sqlite')]), []);
  assert.equal(forbiddenArrows([edge('publication', 'serving')]).length, 1, "writers never import the api's serving state");
  assert.equal(forbiddenArrows([edge('jobs', 'serving')]).length, 1, "writers never import the api's serving state");
  assert.equal(forbiddenArrows([edge('http', 'storage')]).length, 1, 'http reaches the store through services');
  assert.equal(forbiddenArrows([edge('jobs', 'http')]).length, 1, 'only the root imports http');
  assert.equal(forbiddenArrows([edge('serving', 'http')]).length, 1, 'a folder without a row may not import http either');
  assert.equal(forbiddenArrows([edge('domain', 'text')]).length, 1, 'domain depends on nothing of ours');
  assert.equal(forbiddenArrows([edge('text', 'domain')]).length, 1, 'text depends on nothing of ours');
  assert.equal(forbiddenArrows([edge('search', 'publication')]).length, 1);
  for (const writer of ['publication', 'jobs', 'ingest', 'http']) assert.equal(forbiddenArrows([edge('reads', writer)]).length, 1, `reads never import ${writer}`);
  assert.deepEqual(forbiddenArrows([edge('reads', 'serving'), edge('reads', 'search'), edge('jobs', 'reads'), edge('http', 'reads')]), [], 'reads read snapshots and filters; handlers and routes call them');
  assert.deepEqual(forbiddenArrows([edge('codec', 'domain'), edge('codec', 'text'), edge('codec', 'limits'), edge('serving', 'codec'), edge('jobs', 'codec'), edge('publication', 'codec')]), []);
  assert.equal(forbiddenArrows([edge('codec', 'serving')]).length, 1, 'the formats are below the reader');
  assert.equal(forbiddenArrows([edge('codec', 'jobs')]).length, 1, 'and below the writer');
  assert.equal(forbiddenArrows([edge('codec', 'config')]).length, 1, 'a format is not a setting');
  assert.equal(forbiddenArrows([edge('codec', 'a-folder-added-later')]).length, 1, 'a new folder is forbidden to codec without a new row');
  assert.deepEqual(forbiddenArrows([edge('runtime', 'config'), edge('runtime', 'domain'), edge('health', 'runtime'), edge('jobs', 'runtime')]), []);
  assert.equal(forbiddenArrows([edge('runtime', 'serving')]).length, 1, 'a thread utility knows no one thread');
  assert.equal(forbiddenArrows([edge('runtime', 'codec')]).length, 1);
  assert.equal(forbiddenArrows([edge('health', 'serving')]).length, 1, 'the probe thread runs through runtime/, not serving/');
  assert.equal(forbiddenArrows([edge('search', null, 'node:sqlite')]).length, 1, 'the driver stays in storage');
  assert.deepEqual(forbiddenArrows([inStorage('src/storage/postgres/database.ts', null, 'pg')]), []);
  assert.equal(forbiddenArrows([inStorage('src/storage/shared/x.ts', null, 'pg')]).length, 1, 'the PostgreSQL driver stays in its adapter');
  assert.equal(forbiddenArrows([inStorage('src/storage/postgres/x.ts', null, 'node:sqlite')]).length, 1, 'the SQLite driver stays in its adapter');
  assert.deepEqual(
    forbiddenArrows([
      inStorage('src/storage/sqlite/jobs.ts', 'src/storage/sqlite/database.ts'),
      inStorage('src/storage/sqlite/jobs.ts', 'src/storage/shared/job-rows.ts'),
      inStorage('src/storage/postgres/jobs.ts', 'src/storage/shared/job-rows.ts'),
      inStorage(OPEN_STORAGE_FILE, 'src/storage/sqlite/sqlite-storage.ts'),
      inStorage(OPEN_STORAGE_FILE, 'src/storage/postgres/postgres-storage.ts'),
    ]),
    [],
  );
  assert.equal(forbiddenArrows([inStorage('src/storage/postgres/jobs.ts', 'src/storage/sqlite/jobs.ts')]).length, 1, 'one adapter never imports the other');
  assert.equal(forbiddenArrows([inStorage('src/storage/sqlite/generations.ts', 'src/storage/postgres/generation-reads.ts')]).length, 1);
  assert.equal(forbiddenArrows([inStorage('src/storage/shared/usage.ts', 'src/storage/sqlite/database.ts')]).length, 1, 'what the adapters share imports neither');
  assert.equal(forbiddenArrows([edge('publication', null, 'pg')]).length, 1, 'the PostgreSQL driver stays in storage');
  assert.equal(forbiddenArrows([edge('root', null, 'pg')]).length, 1, 'the root opens PostgreSQL through storage/open-storage.ts');
  const toStorage = (from: string, to: string): ImportEdge => ({ from, to, fromFolder: from.split('/')[1], toFolder: 'storage', specifier: `../${to.slice(4)}` });
  assert.deepEqual(forbiddenArrows([toStorage('src/publication/x.ts', 'src/storage/port.ts'), toStorage('src/health/probe-thread.ts', 'src/storage/open-storage.ts')]), []);
  assert.equal(forbiddenArrows([toStorage('src/publication/x.ts', 'src/storage/sqlite/jobs.ts')]).length, 1, 'a service sees the port, never an adapter file');
  assert.equal(forbiddenArrows([{ from: PORT_FILE, to: 'src/storage/sqlite/database.ts', fromFolder: 'storage', toFolder: 'storage', specifier: './sqlite/database.ts' }]).length, 1, 'the port names no driver type');
  assert.equal(forbiddenArrows([{ from: PORT_FILE, to: 'node:sqlite', fromFolder: 'storage', toFolder: null, specifier: 'node:sqlite' }]).length, 1);
});

test('every folder of src/ has a row in the rules table', () => {
  const folders = readdirSync(SRC, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  assert.ok(folders.includes('domain') && folders.includes('http'), 'src/ was read');
  // The other way round is fine: a row for a folder that does not exist yet is tolerated.
  assert.deepEqual(folders.filter((folder) => !(folder in FORBIDDEN)), [], 'add the new folder to FORBIDDEN with what it must not import');
});

test('the layout table of docs/architecture.md says what the rules table says, row by row', () => {
  const documented = documentedRules(readFileSync(ARCHITECTURE_PAGE, 'utf8'));
  assert.ok(documented.size > 10, 'the table of the page was read');
  const folders = [...new Set([...Object.keys(FORBIDDEN), ...documented.keys()])].sort();
  const differences = folders.filter((folder) => ruleText(FORBIDDEN[folder]) !== ruleText(documented.get(folder))).map((folder) => `${folder}: test ${ruleText(FORBIDDEN[folder])}; page ${ruleText(documented.get(folder))}`);
  assert.deepEqual(differences, [], 'update docs/architecture.md "Layout" with the rules table (or the other way round)');
  // The reader itself: each form of row.
  const sample = documentedRules('| `a`, `b` | anything of ours |\n| `c` | anything but `a` |\n| `d` | `a`, `c` (a reason naming `x`) |\n| Folder | Must not import |');
  assert.deepEqual([...sample.keys()], ['a', 'b', 'c', 'd']);
  assert.deepEqual([ruleText(sample.get('a')), ruleText(sample.get('c')), ruleText(sample.get('d'))], [ALL, 'only: a', 'not: a, c']);
});

test('no folder-level import cycle under src/', () => {
  const edges = readEdges();
  assert.ok(edges.length > 100, 'the imports of src/ were read');
  const graph = folderGraph(edges);
  const cycles = findCycles(graph);
  // Each arrow of a reported cycle once, with the imports that make it: break one arrow per cycle.
  const arrows = [...new Set(cycles.flatMap((cycle) => cycle.slice(0, -1).map((from, position) => `${from} -> ${cycle[position + 1]}`)))].sort();
  const report = [
    ...cyclicGroups(graph).map((group) => `folders on one or more cycles: ${group.join(', ')}`),
    ...cycles.map((cycle) => `cycle: ${cycle.join(' -> ')}`),
    'arrows on those cycles:',
    ...arrows.flatMap((arrow) => {
      const [from, to] = arrow.split(' -> ');
      return [`  ${arrow}:`, ...evidence(edges, from, to)];
    }),
  ];
  assert.deepEqual(cycles, [], `folder-level import cycles:\n${report.join('\n')}`);
});

test('no file-level import cycle under src/', () => {
  const edges = readEdges();
  const graph = fileGraph(edges);
  assert.ok(graph.get(`src${sep}api.ts`)?.has(`src${sep}config.ts`), 'the imports between files were read');
  const cycles = findCycles(graph);
  assert.deepEqual(cycles.map((cycle) => cycle.join(' -> ')), [], 'files that import each other, directly or around a cycle: break one import of each');
});

test('no forbidden import arrow under src/ (DESIGN.md "Architecture")', () => {
  const edges = readEdges();
  const offences = forbiddenArrows(edges);
  assert.deepEqual(offences, [], `forbidden arrows:\n${offences.join('\n')}`);
});
