// The thread the health probes run on (health-probes.ts), with its own store connections: SQLite calls are
// synchronous, so on the event loop a stuck one would hold /health (and every other request) past its
// deadline; here the api process's timer still fires, and the thread can be given up.

import { parentPort, workerData } from 'node:worker_threads';
import { Storage } from '../storage/storage.ts';
import type { ProbeReply, ProbeRequest } from './probe-messages.ts';

/** Client databases the probe thread keeps open: it reads one at a time. */
const PROBE_THREAD_CONNECTIONS = 2;

// It reads only. The authority record is created with the store (control-migrations.ts), never at start-up, so
// one removed by a fault stays reported as missing.
const storage = new Storage((workerData as { dataDir: string }).dataDir, { connectionsMax: PROBE_THREAD_CONNECTIONS });

async function answer(request: ProbeRequest): Promise<ProbeReply> {
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
