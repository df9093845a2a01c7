// GET /admin/clients/{client_id}/export and POST /admin/clients/{client_id}/import (DESIGN.md "Backup,
// restore, export, import"), operator key only (the /admin/ prefix, access.ts). The export streams NDJSON
// line by line as the store is read; the import reads its whole body (up to MAX_IMPORT_BYTES), checks every
// line, and only then queues anything: a bad line is a 422 naming it, and nothing is queued.

import type { FastifyInstance } from 'fastify';
import { Readable } from 'node:stream';
import type { Services } from '../services.ts';
import { parseJsonText } from '../json-body.ts';
import { RequestValidationError } from '../validation.ts';
import type { ValidationDetail } from '../validation.ts';
import { ServiceError } from '../../domain/service-error.ts';
import { headerProblems, versionProblems } from '../../domain/client-export.ts';
import type { ExportedVersion } from '../../domain/client-export.ts';
import { versionKey } from '../../domain/identity.ts';

export const EXPORT_MEDIA_TYPE = 'application/x-ndjson';
/**
 * The largest import body: an export of a Client of a few thousand documents (a line holds a version's whole
 * text, so a 50 MiB upload exports to about as much). Read into memory whole: every line is checked first.
 */
export const MAX_IMPORT_BYTES = 512 * 1024 * 1024;
/** Problems reported at most in one 422 (the count of the rest is said): a broken file does not answer megabytes. */
export const MAX_REPORTED_LINE_PROBLEMS = 100;

const CLIENT_PARAMS = {
  type: 'object',
  required: ['client_id'],
  properties: { client_id: { type: 'string', minLength: 1, description: 'The Client, as API_KEY_CLIENTS names it.' } },
} as const;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Every version line of an import body, checked whole; throws the 422 naming each bad line. */
export function importedVersions(body: Buffer, maxChunks: number): ExportedVersion[] {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new RequestValidationError([{ type: 'json_invalid', loc: ['body'], msg: 'The import is not valid UTF-8', input: null }]);
  }
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const problems: ValidationDetail[] = [];
  const versions: ExportedVersion[] = [];
  const seen = new Map<string, number>();
  for (const [at, raw] of lines.entries()) {
    const number = at + 1;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const parsed = parseJsonText(line, ['body', `line ${number}`]);
    if (!parsed.ok) {
      problems.push(...parsed.details.map((detail) => ({ ...detail, msg: `line ${number}: ${detail.msg}` })));
      continue;
    }
    if (number === 1) {
      problems.push(...headerProblems(parsed.value));
      continue;
    }
    const found = versionProblems(parsed.value, number, maxChunks);
    if (found.length > 0) {
      problems.push(...found);
      continue;
    }
    const version = parsed.value as ExportedVersion;
    const key = JSON.stringify([version.document_id, versionKey(version.version_id)]);
    const earlier = seen.get(key);
    if (earlier !== undefined) problems.push({ type: 'value_error', loc: ['body', `line ${number}`, 'version_id'], msg: `line ${number}: the version of line ${earlier} again`, input: version.version_id });
    else seen.set(key, number);
    versions.push(version);
  }
  if (lines.length === 0) problems.push({ type: 'missing', loc: ['body', 'line 1'], msg: 'line 1: the import is empty (it starts with the hds-export/1 header line)', input: null });
  if (problems.length > MAX_REPORTED_LINE_PROBLEMS) {
    const more = problems.length - MAX_REPORTED_LINE_PROBLEMS;
    problems.length = MAX_REPORTED_LINE_PROBLEMS;
    problems.push({ type: 'value_error', loc: ['body'], msg: `${more} more problems are not listed`, input: null });
  }
  if (problems.length > 0) throw new RequestValidationError(problems);
  return versions;
}

export function registerClientTransferRoutes(app: FastifyInstance, services: Services): void {
  // The import's body is read as bytes by this scope's own parser: the app's parsers read JSON and text.
  void app.register(async (scope) => {
    scope.addContentTypeParser(EXPORT_MEDIA_TYPE, { parseAs: 'buffer', bodyLimit: MAX_IMPORT_BYTES }, (_request, body, done) => done(null, body));

    scope.get<{ Params: { client_id: string } }>('/admin/clients/:client_id/export', { schema: { tags: ['admin'], params: CLIENT_PARAMS } }, async (request, reply) => {
      const clientId = request.params.client_id;
      await services.transfer.assertKnown(clientId);
      const lines = services.transfer.exportLines(clientId);
      // The first line is taken before the answer starts (the service has read the first page of versions by then):
      // a store that cannot be read is still answered with its error envelope. A failure later aborts the
      // response: its chunked encoding never ends, so the reader sees the transfer fail rather than a shorter
      // export (hds admin export then removes what it wrote).
      const first = await lines.next();
      async function* body() {
        if (!first.done) yield `${first.value}\n`;
        for await (const line of lines) yield `${line}\n`;
      }
      reply.header('Content-Type', EXPORT_MEDIA_TYPE);
      reply.header('Content-Disposition', `attachment; filename="${encodeURIComponent(clientId)}.ndjson"`);
      return reply.send(Readable.from(body()));
    });

    scope.post<{ Params: { client_id: string }; Body: Buffer }>(
      '/admin/clients/:client_id/import',
      { bodyLimit: MAX_IMPORT_BYTES, schema: { tags: ['admin'], params: CLIENT_PARAMS } },
      async (request, reply) => {
        const type = request.headers['content-type']?.split(';')[0].trim().toLowerCase();
        if (type !== EXPORT_MEDIA_TYPE || !Buffer.isBuffer(request.body)) throw new ServiceError('unsupported_media_type', `An import is ${EXPORT_MEDIA_TYPE} (an export of GET /admin/clients/{client_id}/export)`);
        const clientId = request.params.client_id;
        await services.transfer.assertKnown(clientId);
        const versions = importedVersions(request.body, services.config.documentMaxChunks);
        return reply.code(202).send(await services.transfer.importVersions(clientId, versions));
      },
    );
  });
}
