// Entry point of `npm start`: the supervisor. It starts API_PROCESSES api processes sharing PORT and
// WORKER_PROCESSES worker processes (node:cluster), restarts a crashed one with backoff, relays "a job is
// waiting" from api processes to workers, and drains them all on SIGTERM/SIGINT. It holds no state of its own.

import cluster from 'node:cluster';
import type { Worker as ClusterChild } from 'node:cluster';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AggregatorRegistry, PrometheusContentType } from 'prom-client';
import { loadConfigOrExit } from './process-runner.ts';
import { createLogLines } from './log-lines.ts';
import type { LogLines } from './log-lines.ts';
import type { SupervisorMessage } from './supervisor-link.ts';
import type { Config } from './config.ts';
import { PROCESS_INDEX_VARIABLE, roleEnvironment, roleExecArgv } from './process-settings.ts';
import type { ProcessRole as Role } from './process-settings.ts';
import { CONNECTION_COUNT_INTERVAL_MS, connectionsToShed } from './runtime/connection-shares.ts';

/** Restart backoff after a crash: doubles from the first delay up to the cap, reset after a stable run. */
export const RESTART_BACKOFF_FIRST_MS = 250;
export const RESTART_BACKOFF_MAX_MS = 10_000;
/** A child that ran this long before crashing is restarted at once (the crash was not a start-up loop). */
export const STABLE_RUN_MS = 30_000;
/** How long shutdown waits for children to drain before killing them. */
export const DRAIN_TIMEOUT_MS = 30_000;

const ENTRY: Record<Role, string> = {
  api: fileURLToPath(new URL('./api.ts', import.meta.url)),
  worker: fileURLToPath(new URL('./worker.ts', import.meta.url)),
};

interface Slot {
  role: Role;
  index: number;
  child: ClusterChild | null;
  startedAt: number;
  failures: number;
  ready: boolean;
  /** An api process's last count of its active connections (null until it reports, and once used). */
  activeConnections: number | null;
}

/**
 * Node's compile cache for the processes started here (type-stripped and compiled modules, by content): a
 * process starts in about half the time once its modules are cached. NODE_COMPILE_CACHE, when set, wins.
 */
export const COMPILE_CACHE_DIR = 'compile-cache';

/** The supervisor's label on its log lines (api and worker processes carry api-0, worker-0, ...). */
const SUPERVISOR_LABEL = 'supervisor';

function supervise(config: Config, log: LogLines): void {
  const slots: Slot[] = [
    ...Array.from({ length: config.apiProcesses }, (_, index): Slot => ({ role: 'api', index, child: null, startedAt: 0, failures: 0, ready: false, activeConnections: null })),
    ...Array.from({ length: config.workerProcesses }, (_, index): Slot => ({ role: 'worker', index, child: null, startedAt: 0, failures: 0, ready: false, activeConnections: null })),
  ];
  const compileCache = process.env.NODE_COMPILE_CACHE || join(config.dataDir, COMPILE_CACHE_DIR);
  let stopping = false;
  let url: string | null = null;
  let announcedListening = false;
  let announcedReady = false;
  // Gathers every process's metrics registry on request of the api process that serves /metrics. prom-client (and
  // the tracing API it requires, about 80 modules) loads at the first request: until then the supervisor only forks
  // and relays, and a service start costs a little less CPU.
  let registry: Promise<AggregatorRegistry<PrometheusContentType>> | null = null;
  const clusterMetrics = async (): Promise<string> => {
    registry ??= import('prom-client').then(({ AggregatorRegistry }) => new AggregatorRegistry());
    return (await registry).clusterMetrics();
  };

  const apiSlots = () => slots.filter((slot) => slot.role === 'api');
  const announce = () => {
    if (!announcedListening && url && apiSlots().every((slot) => slot.child && slot.startedAt > 0)) {
      // Each api process reports its own listening; the first URL is everybody's (they share the port).
      announcedListening = true;
      log.announce(`listening on ${url}`, { event: 'listening', url });
    }
    if (!announcedReady && url && apiSlots().every((slot) => slot.ready)) {
      announcedReady = true;
      log.announce(`ready on ${url} (${config.apiProcesses} api, ${config.workerProcesses} worker processes)`, { event: 'ready', url, api_processes: config.apiProcesses, worker_processes: config.workerProcesses });
    }
  };

  const start = (slot: Slot) => {
    cluster.setupPrimary({ exec: ENTRY[slot.role], silent: false, execArgv: [...process.execArgv, ...roleExecArgv(slot.role, config)] });
    // Node's compile cache travels in the child's environment too: its children (graph and parse processes) inherit it.
    const child = cluster.fork({ HDS_PROCESS_ROLE: slot.role, [PROCESS_INDEX_VARIABLE]: String(slot.index), ...roleEnvironment(slot.role, config), NODE_COMPILE_CACHE: compileCache });
    slot.child = child;
    slot.ready = false;
    slot.activeConnections = null;
    slot.startedAt = Date.now();
    child.on('message', (message: SupervisorMessage) => {
      if (message?.type === 'metrics-request') {
        clusterMetrics().then(
          (text) => child.isConnected() && child.send({ type: 'metrics-response', id: message.id, text }),
          () => child.isConnected() && child.send({ type: 'metrics-response', id: message.id, text: null }),
        );
      } else if (message?.type === 'listening' && message.url) {
        url ??= message.url;
        announce();
      } else if (message?.type === 'ready') {
        slot.ready = true;
        announce();
      } else if (message?.type === 'connections') {
        slot.activeConnections = message.active;
      } else if (message?.type === 'wake') {
        for (const other of slots) if (other.role === 'worker' && other.child?.isConnected()) other.child.send({ type: 'wake' });
      }
    });
    child.on('exit', (code, signal) => {
      slot.child = null;
      if (stopping) return;
      const ranFor = Date.now() - slot.startedAt;
      slot.failures = ranFor >= STABLE_RUN_MS ? 0 : slot.failures + 1;
      const delay = slot.failures === 0 ? 0 : Math.min(RESTART_BACKOFF_MAX_MS, RESTART_BACKOFF_FIRST_MS * 2 ** (slot.failures - 1));
      log.write('warn', `${slot.role} process ${slot.index} (pid ${child.process.pid}) exited (${signal ?? code}); restarting in ${delay} ms`, {
        event: 'process_exit',
        role: slot.role,
        index: slot.index,
        child_pid: child.process.pid,
        exit_code: code,
        signal,
        restart_in_ms: delay,
      });
      setTimeout(() => {
        if (!stopping) start(slot);
      }, delay);
    });
  };

  for (const slot of slots) start(slot);

  // Keep-alive connections stay spread over the ready api processes: one over its share sheds the excess.
  setInterval(() => {
    const counted = apiSlots().filter((slot) => slot.ready && slot.child?.isConnected() && slot.activeConnections !== null);
    if (stopping || counted.length < 2) return;
    const shed = connectionsToShed(counted.map((slot) => slot.activeConnections!));
    counted.forEach((slot, index) => {
      slot.activeConnections = null;
      if (shed[index] > 0) slot.child!.send({ type: 'shed', count: shed[index] });
    });
  }, CONNECTION_COUNT_INTERVAL_MS).unref();

  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    const draining = slots.filter((slot) => slot.child).length;
    log.write('info', `${signal} received: draining ${draining} processes`, { event: 'draining', signal, processes: draining });
    const running = slots.flatMap((slot) => (slot.child ? [slot.child] : []));
    const exited = Promise.all(running.map((child) => new Promise<void>((resolve) => (child.isDead() ? resolve() : child.once('exit', () => resolve())))));
    for (const child of running) child.process.kill('SIGTERM');
    const timer = setTimeout(() => {
      for (const child of running) if (!child.isDead()) child.process.kill('SIGKILL');
    }, DRAIN_TIMEOUT_MS);
    exited.then(() => {
      clearTimeout(timer);
      process.exit(0);
    });
  };
  // Not once: a second signal during the drain (a group's and then a shell's, say) is ignored like the
  // children ignore it, instead of ending the supervisor before its processes have drained.
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

const config = loadConfigOrExit();
supervise(config, createLogLines(config.logLevel, SUPERVISOR_LABEL));
