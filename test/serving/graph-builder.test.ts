// HNSW graphs built in graph processes through the graph cache in the data directory: a graph of the same
// codes is mapped again rather than rebuilt (another api process, or this one after a restart), a damaged
// file is rebuilt rather than mapped, one process builds while the others wait on its lock, a lock of a dead
// process is taken over, the cache keeps to its budget, a bad input or shutdown fails the build legibly, and
// a builder whose event loop is busy (an api process under load) still hands its codes over at once.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { GraphBuilder } from '../../src/serving/graphs/graph-builder.ts';
import { graphKey, partialPaths, storeGraph } from '../../src/serving/graphs/graph-cache.ts';
import { writeAnnGraph } from '../../src/serving/graphs/ann-index.ts';
import { groupOfRows } from '../../src/serving/graphs/distinct-rows.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';

const DIMENSIONS = 32;
const ROWS = 1500;

/** Row-major int8 codes of `rows` random rows (deterministic per seed). */
function randomCodes(rows: number, seed: number): Int8Array {
  let state = seed;
  const codes = new Int8Array(rows * DIMENSIONS);
  for (let i = 0; i < codes.length; i++) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    codes[i] = (state >>> 16) % 255 - 127;
  }
  return codes;
}

function rowVector(codes: Int8Array, row: number): Float32Array {
  const vector = Float32Array.from(codes.subarray(row * DIMENSIONS, (row + 1) * DIMENSIONS));
  const norm = Math.hypot(...vector);
  return vector.map((value) => value / norm);
}

function graphFiles(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.endsWith('.usearch')).sort();
}

const inode = (path: string) => statSync(path).ino;

test('a graph is built once per set of codes: another builder maps the cached file; a damaged file is rebuilt', async () => {
  const data = tempDataDir();
  const dir = join(data, 'graphs');
  const codes = randomCodes(ROWS, 7);
  const first = new GraphBuilder({ dir, budgetBytes: 1 << 30 });
  const second = new GraphBuilder({ dir, budgetBytes: 1 << 30 });
  try {
    const graph = await first.graphOf(codes, DIMENSIONS);
    assert.equal(graph.nodes, ROWS);
    for (const row of [0, 321, ROWS - 1]) assert.equal(graph.nearestGroups(rowVector(codes, row), 5)[0], row, `row ${row} is its own nearest`);
    const [file] = graphFiles(dir);
    assert.ok(file.startsWith(`${graphKey(codes, DIMENSIONS)}.`), 'named by what it indexes');
    const built = inode(join(dir, file));

    // Another api process (or this one restarted) with the same codes maps the same file.
    const again = await second.graphOf(codes, DIMENSIONS);
    assert.equal(again.nodes, ROWS);
    assert.deepEqual(graphFiles(dir), [file]);
    assert.equal(inode(join(dir, file)), built, 'the cached file was reused, not rewritten');

    // Other codes get their own graph.
    const other = randomCodes(ROWS, 8);
    await second.graphOf(other, DIMENSIONS);
    assert.equal(graphFiles(dir).length, 2);

    // A damaged file no longer matches the digest in its name: it is removed and the graph rebuilt.
    const fd = openSync(join(dir, file), 'r+');
    writeSync(fd, Buffer.alloc(64, 0xff), 0, 64, 4096);
    closeSync(fd);
    const rebuilt = await first.graphOf(codes, DIMENSIONS);
    assert.equal(rebuilt.nodes, ROWS);
    assert.equal(rebuilt.nearestGroups(rowVector(codes, 42), 1)[0], 42);
    const now = graphFiles(dir).find((name) => name.startsWith(`${graphKey(codes, DIMENSIONS)}.`))!;
    assert.notEqual(inode(join(dir, now)), built, 'a new file was written');
  } finally {
    first.close();
    second.close();
    removeDir(data);
  }
});

test('a build waits on the lock of a live builder and takes over the lock of a dead one', async () => {
  const data = tempDataDir();
  const dir = join(data, 'graphs');
  mkdirSync(dir, { recursive: true });
  const codes = randomCodes(ROWS, 11);
  const key = graphKey(codes, DIMENSIONS);
  const builder = new GraphBuilder({ dir, budgetBytes: 1 << 30 });
  try {
    // This test process holds the lock: the graph process must not build, only wait for this one's graph.
    writeFileSync(join(dir, `${key}.lock`), String(process.pid));
    const waiting = builder.graphOf(codes, DIMENSIONS);
    const partial = partialPaths(dir, key);
    assert.equal(writeAnnGraph(codes, DIMENSIONS, partial.graph), true); // random rows: each its own group
    writeFileSync(partial.groups, new Uint8Array(groupOfRows(codes, DIMENSIONS).buffer));
    const ours = storeGraph(dir, key, partial).graph;
    const stored = inode(ours);
    rmSync(join(dir, `${key}.lock`));
    const graph = await waiting;
    assert.equal(graph.nodes, ROWS);
    assert.deepEqual(graphFiles(dir).map((name) => join(dir, name)), [ours]);
    assert.equal(inode(ours), stored, 'the waiting process mapped this graph instead of building its own');

    // A lock whose holder is gone is taken over.
    const other = randomCodes(ROWS, 12);
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(join(dir, `${graphKey(other, DIMENSIONS)}.lock`), dead.stdout);
    assert.equal((await builder.graphOf(other, DIMENSIONS)).nodes, ROWS);
    assert.ok(!readdirSync(dir).some((name) => name.endsWith('.lock')), 'locks are released');
  } finally {
    builder.close();
    removeDir(data);
  }
});

test('the cache keeps to its budget, least recently used first, and a bad input or a shutdown fails the build', async () => {
  const data = tempDataDir();
  const dir = join(data, 'graphs');
  const codes = [randomCodes(ROWS, 21), randomCodes(ROWS, 22), randomCodes(ROWS, 23)];
  const builder = new GraphBuilder({ dir, budgetBytes: 1 });
  try {
    for (const set of codes) await builder.graphOf(set, DIMENSIONS);
    // Each new graph leaves only itself under a one-byte budget.
    assert.deepEqual(graphFiles(dir).map((name) => name.split('.')[0]), [graphKey(codes[2], DIMENSIONS)]);

    await assert.rejects(builder.graphOf(new Int8Array(DIMENSIONS + 1), DIMENSIONS), /are not rows of 32 dimensions/);
    // Closed before its process started (its codes still being written), a build fails as closed...
    const early = builder.graphOf(randomCodes(20_000, 24), DIMENSIONS);
    const closing = new GraphBuilder({ dir, budgetBytes: 1 });
    const beforeSpawn = closing.graphOf(randomCodes(20_000, 25), DIMENSIONS);
    closing.close();
    await assert.rejects(beforeSpawn, /graph builder is closed/);
    // ...and closed while its process runs, by that process's end.
    while (builder.building === 0) await new Promise((resolve) => setImmediate(resolve));
    builder.close();
    await assert.rejects(early, /graph process ended with SIGTERM/);
    await assert.rejects(builder.graphOf(codes[0], DIMENSIONS), /closed/);
  } finally {
    builder.close();
    removeDir(data);
  }
});

test('identical rows share one vector of the graph, and a proposed group stands for all its rows', async () => {
  const data = tempDataDir();
  const distinct = randomCodes(300, 31);
  // Rows 0..899: the 300 distinct rows three times over, interleaved, as copies of a chunk sit in a segment.
  const codes = new Int8Array(900 * DIMENSIONS);
  for (let row = 0; row < 900; row++) codes.set(distinct.subarray((row % 300) * DIMENSIONS, ((row % 300) + 1) * DIMENSIONS), row * DIMENSIONS);
  const builder = new GraphBuilder({ dir: join(data, 'graphs'), budgetBytes: 1 << 30 });
  try {
    const graph = await builder.graphOf(codes, DIMENSIONS);
    assert.equal(graph.nodes, 300, 'one vector per distinct row');
    const [group] = graph.nearestGroups(rowVector(codes, 642), 1);
    const { starts, members } = graph.groups;
    assert.deepEqual([...members.subarray(starts[group], starts[group + 1])], [42, 342, 642], 'the group of row 642 holds its copies');
  } finally {
    builder.close();
    removeDir(data);
  }
});

test('the codes reach the graph process whole while the api process is busy: the graph is built with its event loop blocked', async () => {
  const data = tempDataDir();
  const dir = join(data, 'graphs');
  // 4 MiB of codes (64 pipe buffers), of 200 distinct rows so that the build itself is quick.
  const distinct = randomCodes(200, 41);
  const rows = (4 << 20) / DIMENSIONS;
  const codes = new Int8Array(rows * DIMENSIONS);
  for (let row = 0; row < rows; row++) codes.set(distinct.subarray((row % 200) * DIMENSIONS, ((row % 200) + 1) * DIMENSIONS), row * DIMENSIONS);
  const builder = new GraphBuilder({ dir, budgetBytes: 1 << 30 });
  try {
    const building = builder.graphOf(codes, DIMENSIONS);
    while (builder.building === 0) await new Promise((resolve) => setImmediate(resolve));
    // From here this thread never yields until the graph is in the cache: nothing it would have to pump can be
    // what the graph process waits for.
    const deadline = Date.now() + 60_000;
    while (!(existsSync(dir) && readdirSync(dir).some((name) => name.endsWith('.usearch'))) && Date.now() < deadline) {
      // busy, as an event loop answering searches back to back
    }
    assert.equal(graphFiles(dir).length, 1, 'the graph was built while this thread never yielded');
    assert.equal((await building).nodes, 200);
  } finally {
    builder.close();
    removeDir(data);
  }
});

test('a graph records the generations of each Client holding it: forgetting one removes the graph with its codes, and a graph no Client holds goes at start-up', async () => {
  const data = tempDataDir();
  const dir = join(data, 'graphs');
  const builder = new GraphBuilder({ dir, budgetBytes: 1 << 30 });
  try {
    const purged = randomCodes(ROWS, 11);
    const kept = randomCodes(ROWS, 12);
    await builder.graphOf(purged, DIMENSIONS, { clientId: 'c', generations: [4, 5] });
    await builder.graphOf(kept, DIMENSIONS, { clientId: 'c', generations: [6] });
    const ofKey = (codes: Int8Array) => readdirSync(dir).filter((name) => name.startsWith(`${graphKey(codes, DIMENSIONS)}.`) && !name.endsWith('.lock')).sort();
    assert.equal(ofKey(purged).length, 3, 'graph, groups and holder');
    assert.ok(builder.holds('c'));
    assert.equal(builder.holds('other'), false);

    assert.equal(builder.forget('c', (generation) => generation === 5), 1);
    assert.deepEqual(ofKey(purged), [], 'no file of the graph over the purged rows is left');
    assert.deepEqual(readdirSync(dir).filter((name) => !name.endsWith('.lock')).sort(), ofKey(kept), 'the other graph keeps its files');
    assert.equal(builder.forget('other', () => true), 0, 'another Client\'s forgetting touches nothing of this one');

    // A graph without a holder (built before holders were recorded) cannot be shown free of purged rows.
    await builder.graphOf(randomCodes(ROWS, 13), DIMENSIONS);
    assert.equal(graphFiles(dir).length, 2);
    assert.equal(builder.removeUnheld(), 1);
    assert.deepEqual(graphFiles(dir).map((name) => name.split('.')[0]), [graphKey(kept, DIMENSIONS)]);
  } finally {
    builder.close();
    removeDir(data);
  }
});
