#!/usr/bin/env node
// The `hds` command (package.json bin; `npm run hds -- ...` in this checkout): search, ingest a folder, list,
// update, delete and restore documents, and the operator commands. See src/cli/program.ts; `hds --help`.

import { runCli } from './cli/program.ts';
import { loadEnvFile } from './env-file.ts';
import { ConfigError } from './config.ts';
import { BackupError, backupDataDir, restoreDataDir } from './storage/sqlite/backup.ts';
import type { DeploymentFiles } from './cli/admin-data.ts';

/** `hds admin backup|restore` work on an embedded deployment's files on this machine (storage/sqlite/backup.ts). */
const files: DeploymentFiles = {
  backup: (dataDir, out) => ({ ...backupDataDir(dataDir, out) }),
  restore: (archive, dataDir) => ({ ...restoreDataDir(archive, dataDir) }),
  isRefusal: (error) => error instanceof BackupError && error.usage,
};

// HDS_URL, HDS_API_KEY and the service's own HOST, PORT and keys may sit in the `.env` the service reads.
try {
  loadEnvFile();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(2);
}

process.exitCode = await runCli(process.argv, { stdout: process.stdout, stderr: process.stderr, env: process.env, files });
