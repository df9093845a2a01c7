// The storage port: what services may ask of the durable store, Promise-based so that a network store
// (PostgreSQL) fits behind it as well as the embedded SQLite adapter. Services import these types only.

import type { ClientStore } from './client-store.ts';
import type { JobStore } from './job-store.ts';
import type { ControlStore } from './control-store.ts';

/** Public methods of an adapter class, as an interface another adapter can implement. */
type PortOf<T> = { [K in keyof T]: T[K] };

export type ClientStorePort = PortOf<ClientStore>;
export type JobStorePort = PortOf<JobStore>;
export type ControlStorePort = PortOf<ControlStore>;

export interface StoragePort {
  readonly jobs: JobStorePort;
  readonly control: ControlStorePort;
  /** The Client's store (opened on first use; no I/O is needed to name it). */
  client(clientId: string): ClientStorePort;
  /** Lets go of what the process holds open for the Client (its connection); the next use opens it again. */
  releaseClient(clientId: string): void;
  knownClientIds(): Promise<string[]>;
  saveUpload(name: string, bytes: Uint8Array): Promise<void>;
  readUpload(name: string): Promise<Buffer | null>;
  deleteUpload(name: string): Promise<void>;
  sweepUploads(liveNames: Set<string>): Promise<number>;
  probe(): Promise<void>;
  provisionedClients(): Promise<number>;
  laneSchemas(): Promise<{ engineVersion: string; schemas: string[] }>;
  close(): void;
}
