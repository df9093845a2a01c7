// POST /embed (DESIGN.md): multipart with `file` or JSON with `text`; answers 202 with the pending job.
// Only form fields of the contract are accepted; the file is read into memory up to MAX_UPLOAD_BYTES.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../services.ts';
import { RequestValidationError, schemaCompiler } from '../validation.ts';
import { validateUploadFields } from '../../ingest/upload-service.ts';
import { ServiceError } from '../../domain/service-error.ts';

export const UPLOAD_FORM_FIELDS = ['document_id', 'version_id', 'metadata', 'filename'] as const;

export const TEXT_UPLOAD_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['document_id', 'text'],
  properties: {
    document_id: { type: 'string', minLength: 1 },
    version_id: { type: ['string', 'null'] },
    text: { type: 'string', minLength: 1, pattern: '\\S' },
    filename: { type: 'string' },
    metadata: { type: 'object' },
  },
} as const;

const validateTextUpload = schemaCompiler({ schema: TEXT_UPLOAD_SCHEMA, httpPart: 'body', method: 'POST', url: '/embed' });

async function readMultipart(request: FastifyRequest): Promise<{ fields: Record<string, string>; file: Buffer | null; fileName: string | null }> {
  const fields: Record<string, string> = {};
  let file: Buffer | null = null;
  let fileName: string | null = null;
  const extras: string[] = [];
  for await (const part of request.parts()) {
    if (part.type === 'file') {
      if (part.fieldname !== 'file' || file !== null) {
        extras.push(part.fieldname);
        await part.toBuffer().catch(() => undefined);
        continue;
      }
      file = await part.toBuffer();
      fileName = part.filename || null;
    } else if ((UPLOAD_FORM_FIELDS as readonly string[]).includes(part.fieldname)) {
      fields[part.fieldname] = String(part.value);
    } else {
      extras.push(part.fieldname);
    }
  }
  if (extras.length > 0) {
    throw new RequestValidationError(extras.map((name) => ({ type: 'extra_forbidden', loc: ['body', name], msg: 'Extra inputs are not permitted', input: null })));
  }
  return { fields, file, fileName };
}

export function registerUploadRoutes(app: FastifyInstance, services: Services): void {
  app.post('/embed', { schema: { tags: ['documents'], description: 'Upload a file (multipart/form-data) or plain text (application/json).' } }, async (request, reply) => {
    const clientId = request.clientId!;
    if (request.isMultipart()) {
      const { fields, file, fileName } = await readMultipart(request);
      if (!file) {
        throw new RequestValidationError([{ type: 'missing', loc: ['body', 'file'], msg: 'Field required', input: null }]);
      }
      const upload = validateUploadFields({
        documentId: fields.document_id,
        versionId: fields.version_id,
        filename: fields.filename ?? fileName ?? undefined,
        metadata: fields.metadata,
      });
      const accepted = await services.uploads.acceptFile(clientId, { ...upload, filename: upload.filename ?? 'upload' }, file);
      return reply.code(202).send(accepted);
    }
    const contentType = request.headers['content-type'] ?? '';
    if (!contentType.startsWith('application/json')) throw new ServiceError('unsupported_media_type', 'Use multipart/form-data or application/json');
    const checked = validateTextUpload(request.body) as { error?: Error };
    if (checked.error) throw checked.error;
    const body = request.body as { document_id: string; version_id?: string | null; text: string; filename?: string; metadata?: unknown };
    const upload = validateUploadFields({ documentId: body.document_id, versionId: body.version_id, filename: body.filename, metadata: body.metadata });
    return reply.code(202).send(await services.uploads.acceptText(clientId, upload, body.text));
  });
}
