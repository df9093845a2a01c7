// What the api process asks of the health probe thread and what it answers: plain data across threads.

import type { AuthorityRecord } from '../storage/port.ts';

export type ProbeName = 'stateStore' | 'authority' | 'laneSchemas' | 'provisionedClients';

export type ProbeRequest = { id: number; probe: ProbeName };

export type ProbeReply =
  | { id: number; probe: 'stateStore' }
  | { id: number; probe: 'authority'; authority: AuthorityRecord }
  | { id: number; probe: 'laneSchemas'; laneSchemas: { engineVersion: string; schemas: string[] } }
  | { id: number; probe: 'provisionedClients'; provisioned: number };
