// A graceful stop answers every request already received: the real supervisor and its api and worker
// processes, SIGTERM while requests are in flight. A request is known to be received when its api process
// has read its headers: it asked for `Expect: 100-continue` and the process answered "100 Continue". Its body
// is sent only once the stop has begun (new connections are refused), so it is being answered during the drain.
// A request that comes later on a connection with a request in flight is answered in full as well. One that
// arrives on an idle keep-alive connection after the stop began may still meet a closed connection (HTTP's
// keep-alive race, which clients retry): the stop closes idle connections, and no request was received on it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { baseEnv, KEYS, removeDir, spawnServer, tempDataDir } from '../helpers/server.ts';
import { seedVersions } from '../helpers/seed.ts';
import { until } from '../helpers/processes.ts';

const CORPUS_TEXT = readFileSync(new URL('../../../shared/corpus/txt/tika_testMARKDOWN.md', import.meta.url), 'utf8');

interface HeldRequest {
  /** Resolves once the api process has read the headers and asked for the body. */
  received: Promise<void>;
  /** Sends the body; resolves with the whole answer. */
  finish(): Promise<{ status: number; json: any }>;
}

/** A POST whose body waits until `finish`: its headers are sent at once, with `Expect: 100-continue`. */
function heldPost(url: string, path: string, body: unknown): HeldRequest {
  const bytes = Buffer.from(JSON.stringify(body));
  const target = new URL(path, url);
  let req!: ClientRequest;
  const answer = new Promise<{ status: number; json: any }>((resolve, reject) => {
    req = request(target, {
      method: 'POST',
      agent: false,
      headers: { 'X-API-Key': KEYS.alpha, 'Content-Type': 'application/json', 'Content-Length': String(bytes.length), Expect: '100-continue' },
    });
    req.on('response', (response: IncomingMessage) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, json: JSON.parse(text) }));
      response.on('error', reject);
    });
    req.on('error', reject);
  });
  const received = new Promise<void>((resolve) => req.once('continue', () => resolve()));
  req.flushHeaders();
  return {
    received,
    finish() {
      req.end(bytes);
      return answer;
    },
  };
}

/** Whether a new TCP connection to the service's port is refused. */
function refused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  json: any;
}

/** The HTTP/1.1 answers in `bytes`, in order (each has a Content-Length; interim 1xx answers are skipped). */
function rawAnswers(bytes: Buffer): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let at = 0;
  while (at < bytes.length) {
    const end = bytes.indexOf('\r\n\r\n', at);
    assert.ok(end >= 0, `an answer cut short: ${bytes.subarray(at).toString()}`);
    const [statusLine, ...lines] = bytes.subarray(at, end).toString('latin1').split('\r\n');
    const status = Number(statusLine.split(' ')[1]);
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    const length = Number(headers['content-length'] ?? 0);
    const body = bytes.subarray(end + 4, end + 4 + length).toString('utf8');
    at = end + 4 + length;
    if (status >= 200) answers.push({ status, headers, json: body ? JSON.parse(body) : null });
  }
  return answers;
}

/** Resolves once `socket` has received something that contains `marker`. */
function receivedOn(socket: Socket, received: () => Buffer, marker: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const look = () => {
      if (!received().includes(marker)) return;
      socket.off('data', look);
      resolve();
    };
    socket.on('data', look);
    socket.once('error', reject);
    look();
  });
}

test('SIGTERM: a request that comes on a connection already open after the stop began is answered in full too, and the connection then closes', async () => {
  const dataDir = tempDataDir();
  await seedVersions(dataDir, 'client-alpha', 'guide', [{ versionId: 'v1', text: CORPUS_TEXT }]);
  const server = await spawnServer(baseEnv(dataDir, { API_PROCESSES: '1', WORKER_PROCESSES: '0' }));
  const { hostname, port } = new URL(server.url);
  const socket = connect({ host: hostname, port: Number(port) });
  let received = Buffer.alloc(0);
  socket.on('data', (chunk) => (received = Buffer.concat([received, chunk])));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  try {
    const body = (query: string) => JSON.stringify({ query, scope: 'content', limit: 5 });
    const head = (bytes: number, expect: boolean) =>
      `POST /search HTTP/1.1\r\nHost: ${hostname}\r\nX-API-Key: ${KEYS.alpha}\r\nContent-Type: application/json\r\nContent-Length: ${bytes}\r\n${expect ? 'Expect: 100-continue\r\n' : ''}\r\n`;
    const first = body('bold italic quote');
    const second = body('struck text inline code');
    socket.write(head(Buffer.byteLength(first), true));
    await receivedOn(socket, () => received, '100 Continue');
    process.kill(-server.child.pid!, 'SIGTERM');
    await until('new connections to be refused', () => refused(server.url));
    // The first request's body and, on the same connection, a second request: it arrives during the drain.
    socket.write(first + head(Buffer.byteLength(second), false) + second);
    await closed;
    const answers = rawAnswers(received);
    assert.deepEqual(answers.map((answer) => answer.status), [200, 200], JSON.stringify(answers.map((answer) => answer.json?.error ?? answer.json?.meta?.query)));
    for (const answer of answers) assert.deepEqual(answer.json.results.map((row: any) => row.document_version.document_id), ['guide']);
    assert.equal(answers[1].headers.connection, 'close', 'the drain tells the client not to send more on it');
    assert.equal(await server.exited, 0);
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : error}\nsupervisor output:\n${server.stdout()}\n${server.stderr()}`, { cause: error });
  } finally {
    socket.destroy();
    await server.crash();
    removeDir(dataDir);
  }
});

test('SIGTERM: a search and an upload already received get their full answers; new connections are refused once the stop began', async () => {
  const dataDir = tempDataDir();
  await seedVersions(dataDir, 'client-alpha', 'guide', [{ versionId: 'v1', text: CORPUS_TEXT }]);
  const server = await spawnServer(baseEnv(dataDir, { API_PROCESSES: '1', WORKER_PROCESSES: '1' }));
  try {
    const search = heldPost(server.url, '/search', { query: 'bold italic quote', scope: 'content', limit: 5 });
    const upload = heldPost(server.url, '/embed', { document_id: 'late-letter', text: CORPUS_TEXT });
    await Promise.all([search.received, upload.received]);
    // To the whole process group, as a service manager or a shell stops a service: each api and worker process
    // gets the signal and then the supervisor's relay of it (a second SIGTERM in the middle of its drain).
    process.kill(-server.child.pid!, 'SIGTERM');
    await until('new connections to be refused', () => refused(server.url));
    const [searched, uploaded] = await Promise.all([search.finish(), upload.finish()]);
    assert.equal(searched.status, 200, JSON.stringify(searched.json));
    assert.deepEqual(searched.json.results.map((row: any) => row.document_version.document_id), ['guide']);
    assert.ok(searched.json.results[0].content_evidence.items.length > 0, 'the answer carries its evidence');
    assert.equal(uploaded.status, 202, JSON.stringify(uploaded.json));
    assert.equal(typeof uploaded.json.job_id, 'string');
    assert.equal(await server.exited, 0, 'the drain ends and the supervisor exits 0');
  } catch (error) {
    // What the processes said while they stopped (a crash, a failed shutdown) is the lead when this fails.
    throw new Error(`${error instanceof Error ? error.message : error}\nsupervisor output:\n${server.stdout()}\n${server.stderr()}`, { cause: error });
  } finally {
    await server.crash();
    removeDir(dataDir);
  }
});
