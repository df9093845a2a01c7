// The thread the health probes run on (health-probes.ts), with its own store connections: SQLite calls are
// synchronous, so on the event loop a stuck one would hold /health (and every other request) past its
// deadline; here the api process's timer still fires, and the thread can be given up. With PostgreSQL the
// thread keeps its own small pool, so a probe never waits behind the requests' connections.

import { parentPort, workerData } from 'node:worker_threads';
import { openStorage } from '../storage/open-storage.ts';
import type { StoragePort } from '../storage/port.ts';
import type { StoreSettings } from '../config.ts';
import type { ProbeReply, ProbeRequest } from './probe-messages.ts';

/** Client databases (or PostgreSQL connections) the probe thread keeps open: it reads one at a time. */
const PROBE_THREAD_CONNECTIONS = 2;

const { settings } = workerData as { settings: StoreSettings };
let opening: Promise<StoragePort> | null = null;

/** The thread's store, opened on first use and again after a failed open (a database that was down). */
function store(): Promise<StoragePort> {
  // It reads only. The authority record is created with the store (its migrations), never at start-up, so one
  // removed by a fault stays reported as missing.
  opening ??= openStorage(settings, { connectionsMax: PROBE_THREAD_CONNECTIONS }).catch((error: unknown) => {
    opening = null;
    throw error;
  });
  return opening;
}

async function answer(request: ProbeRequest): Promise<ProbeReply> {
  const storage = await store();
  switch (request.probe) {
    case 'stateStore':
      await storage.probe();
      return { id: request.id, probe: 'stateStore' };
    case 'authority':
      return { id: request.id, probe: 'authority', authority: await storage.authority.authority() };
    case 'laneSchemas':
      return { id: request.id, probe: 'laneSchemas', laneSchemas: await storage.laneSchemas() };
    case 'provisionedClients':
      return { id: request.id, probe: 'provisionedClients', provisioned: await storage.provisionedClients() };
  }
}

parentPort!.on('message', (request: ProbeRequest) => {
  answer(request).then(
    (reply) => parentPort!.postMessage(reply),
    (error: unknown) => parentPort!.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) }),
  );
});
