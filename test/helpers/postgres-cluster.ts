// A throwaway PostgreSQL cluster for the tests of the PostgreSQL adapter: initdb into a temporary directory,
// a server on a free local port (run as the `postgres` user when the tests run as root: the server refuses
// root), one database per caller, all of it stopped and removed at the end. For tests durability is switched off
// (fsync, synchronous commit): they check behaviour, not crash safety; benchmarks ask for SQLite's level instead.
// Missing binaries fail the caller loudly.

import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The unprivileged role the adapter connects as: not a superuser, so row-level security applies to it. */
export const APP_ROLE = 'app';

export interface PostgresCluster {
  port: number;
  /** A new empty database owned by APP_ROLE, and the URL to reach it as that role. */
  createDatabase(name?: string): Promise<string>;
  /** The URL of a database for the superuser (for checks the application role may not make). */
  superuserUrl(database: string): string;
  /** The server's main process (its postmaster.pid), whose children serve the connections. */
  serverPid(): number;
  /** Starts the server again on its port after it stopped (as an operator would after it went down), waiting until it accepts connections. */
  start(): void;
  stop(): void;
}

/** The bin directory of the newest PostgreSQL server installed (Debian: /usr/lib/postgresql/N/bin), else one on PATH. */
export function serverBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((name) => existsSync(join(root, name, 'bin', 'initdb'))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (versions.length > 0) return join(root, versions[0], 'bin');
  const found = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  if (found.status === 0 && found.stdout.trim()) return join(found.stdout.trim(), '..');
  throw new Error('PostgreSQL server binaries (initdb, pg_ctl) were not found: install the Debian package postgresql (.ci/run does) to run the PostgreSQL adapter tests');
}

const asRoot = process.getuid?.() === 0;

/** Runs a server binary as the postgres user when we are root (the server refuses to run as root). */
function runServerTool(bin: string, args: string[]): void {
  const [command, commandArgs] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  try {
    execFileSync(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
  } catch (error) {
    const failed = error as { stderr?: Buffer; stdout?: Buffer; message: string };
    throw new Error(`${bin} ${args.join(' ')} failed: ${failed.stderr?.toString() || failed.stdout?.toString() || failed.message}`);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

let databases = 0;

/**
 * Creates the database `name` owned by APP_ROLE on the cluster at `port`, synchronously (createdb), unless it
 * exists; returns the URL to reach it as that role. For harnesses whose environment is built synchronously.
 */
export function ensureDatabaseSync(port: number, name: string): string {
  const created = spawnSync(join(serverBinDir(), 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-O', APP_ROLE, name], { encoding: 'utf8', timeout: 60_000 });
  if (created.status !== 0 && !/already exists/.test(created.stderr)) throw new Error(`createdb ${name} failed: ${created.stderr || created.error?.message}`);
  return `postgres://${APP_ROLE}@127.0.0.1:${port}/${name}`;
}

/**
 * `durability`: `off` (tests: no fsync at all) or `like-sqlite` (benchmarks: data files and WAL are synced as in
 * production, but a commit does not wait for its WAL flush, as SQLite's WAL with synchronous=NORMAL does not:
 * a crash of the machine may lose the last commits, never corrupt the database).
 */
export async function startPostgresCluster(options: { durability?: 'off' | 'like-sqlite'; at?: string } = {}): Promise<PostgresCluster> {
  const durability = options.durability === 'like-sqlite' ? '-c synchronous_commit=off' : '-c fsync=off -c synchronous_commit=off -c full_page_writes=off';
  const bin = serverBinDir();
  // `at`: an existing directory for the cluster (data directory, WAL, socket, log), such as a small file system
  // a test mounted; the caller removes it, the cluster only what it put there.
  const dir = options.at ?? mkdtempSync(join(tmpdir(), 'pg-cluster-'));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  runServerTool(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  let port = 0;
  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', stop);
    if (port !== 0) {
      const args = ['-D', data, '-m', 'immediate', '-w', 'stop'];
      const pgCtl = join(bin, 'pg_ctl');
      if (asRoot) spawnSync('runuser', ['-u', 'postgres', '--', pgCtl, ...args], { stdio: 'ignore' });
      else spawnSync(pgCtl, args, { stdio: 'ignore' });
    }
    if (options.at) for (const entry of readdirSync(dir)) rmSync(join(dir, entry), { recursive: true, force: true });
    else rmSync(dir, { recursive: true, force: true });
  };
  // A test process that dies still stops its server.
  process.on('exit', stop);
  const startServer = (): void =>
    runServerTool(join(bin, 'pg_ctl'), [
      '-D', data, '-w', '-t', '60', '-l', join(dir, 'server.log'),
      '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 ${durability} -c max_connections=200`,
      'start',
    ]);
  // A port found free may be taken before the server binds it: try a few.
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      startServer();
      break;
    } catch (error) {
      if (attempt >= 3) {
        port = 0;
        stop();
        throw error;
      }
    }
  }
  const superuserUrl = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  // The driver loads here, not with the module: most test files import this one only for ensureDatabaseSync.
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: superuserUrl('postgres') });
  await admin.connect();
  try {
    await admin.query(`CREATE ROLE ${APP_ROLE} LOGIN NOSUPERUSER NOBYPASSRLS`);
  } finally {
    await admin.end();
  }
  return {
    port,
    superuserUrl,
    async createDatabase(name = `test_${process.pid}_${++databases}`) {
      const client = new pg.Client({ connectionString: superuserUrl('postgres') });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)} OWNER ${APP_ROLE}`);
      } finally {
        await client.end();
      }
      return `postgres://${APP_ROLE}@127.0.0.1:${port}/${name}`;
    },
    serverPid: () => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]),
    start: startServer,
    stop,
  };
}
