#!/usr/bin/env node
// The `hds` command (package.json bin; `npm run hds -- ...` in this checkout): search, ingest a folder, list,
// update, delete and restore documents, and the operator commands. See src/cli/program.ts; `hds --help`.

import { runCli } from './cli/program.ts';

process.exitCode = await runCli(process.argv, { stdout: process.stdout, stderr: process.stderr, env: process.env });
