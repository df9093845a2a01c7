// POST /embed (DESIGN.md): multipart with `file` or JSON with `text`; answers 202 with the pending job.
// Only form fields of the contract are accepted; the file is read into memory up to MAX_UPLOAD_BYTES.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../services.ts';
import { RequestValidationError, schemaCompiler } from '../validation.ts';
import type { ValidationDetail } from '../validation.ts';
import { checkParsedJson, parseJsonText } from '../json-body.ts';
import { validateUploadFields } from '../../ingest/upload-service.ts';
import { ServiceError } from '../../domain/service-error.ts';
import { UPLOAD_RESPONSES } from './response-docs.ts';

export const UPLOAD_FORM_FIELDS = ['document_id', 'version_id', 'metadata', 'filename'] as const;
/** Form fields a request may carry at most (the contract has four); more is a 422, not a 413. */
export const MAX_FORM_FIELDS = 10;
/** Bytes of one form field at most; a longer one is refused (the parser would otherwise truncate it). */
export const MAX_FORM_FIELD_BYTES = 1024 * 1024;

export const TEXT_UPLOAD_SCHEMA = {
  title: 'TextUpload',
  description: 'A document given as plain text.',
  type: 'object',
  additionalProperties: false,
  required: ['document_id', 'text'],
  properties: {
    document_id: { type: 'string', minLength: 1 },
    version_id: { type: ['string', 'null'], description: 'The Document Version to create or replace; defaults to document_id.' },
    text: { type: 'string', minLength: 1, pattern: '\\S', description: 'The document text.' },
    filename: { type: 'string' },
    metadata: { type: 'object', description: 'Custom metadata, stored under metadata.custom (reserved keys are refused).' },
  },
} as const;

/**
 * The request body of POST /embed as /openapi.json declares it (app.ts adds it to the document): the route reads
 * both forms itself, multipart part by part, so they are documented here rather than validated by Fastify.
 */
export const UPLOAD_REQUEST_BODY = {
  required: true,
  content: {
    'multipart/form-data': {
      schema: {
        title: 'FileUpload',
        description: 'A document given as a file, with its fields.',
        type: 'object',
        required: ['file', 'document_id'],
        properties: {
          file: { type: 'string', format: 'binary', description: 'The document: PDF, Office (OOXML or legacy), HTML, text, CSV or an image.' },
          document_id: { type: 'string', minLength: 1 },
          version_id: { type: 'string', description: 'Defaults to document_id.' },
          metadata: { type: 'string', description: 'A JSON object as text, stored under metadata.custom.' },
          filename: { type: 'string', description: "Overrides the file part's name (its extension guides format detection)." },
        },
      },
    },
    'application/json': { schema: TEXT_UPLOAD_SCHEMA },
  },
} as const;

const validateTextUpload = schemaCompiler({ schema: TEXT_UPLOAD_SCHEMA, httpPart: 'body', method: 'POST', url: '/embed' });

function invalid(details: ValidationDetail[]): RequestValidationError {
  return new RequestValidationError(details);
}

/**
 * A failure of the multipart parser (@fastify/multipart over busboy) as the 422 it is: the body is
 * malformed (no or a wrong boundary, truncated, not multipart at all) or breaks a form limit. Only an
 * oversize file keeps its 413.
 */
function multipartFailure(error: unknown): Error {
  if (error instanceof RequestValidationError || error instanceof ServiceError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return error as Error;
  switch (code) {
    case 'FST_FILES_LIMIT':
      return invalid([{ type: 'too_many_files', loc: ['body', 'file'], msg: 'Only one file part is allowed', input: null }]);
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return invalid([{ type: 'too_many_fields', loc: ['body'], msg: `At most ${MAX_FORM_FIELDS} form fields and one file part are allowed`, input: null }]);
    case 'FST_PROTO_VIOLATION':
      return invalid([{ type: 'extra_forbidden', loc: ['body'], msg: 'A form field name is not permitted', input: null }]);
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return invalid([{ type: 'json_invalid', loc: ['body'], msg: 'A form field declared as application/json is not valid JSON', input: null }]);
    default: {
      const reason = error instanceof Error && error.message ? `: ${error.message}` : '';
      return invalid([{ type: 'multipart_invalid', loc: ['body'], msg: `Malformed multipart/form-data body${reason}`, input: null }]);
    }
  }
}

/**
 * A form field's value: text, or what the parser decoded itself from a part declared application/json
 * (any field): that value is bounded like a JSON body before anything walks or echoes it.
 */
function fieldValue(name: string, value: unknown): unknown {
  if (typeof value === 'string') return value;
  const problems = checkParsedJson(value, ['body', name]);
  if (problems.length > 0) throw invalid(problems);
  return value;
}

/**
 * The metadata field's JSON text, parsed under the body limits (depth, duplicate keys, well-formed strings).
 * Text that is not JSON at all stays text: validateUploadFields reports it as not a JSON object.
 */
function parseMetadataField(value: unknown): unknown {
  if (typeof value !== 'string' || value === '') return value;
  const parsed = parseJsonText(value, ['body', 'metadata']);
  if (parsed.ok) return parsed.value;
  if (parsed.syntax) return value;
  throw invalid(parsed.details);
}

/** Form fields that name a Document Version: they must arrive exactly as sent. */
const ID_FIELDS: ReadonlySet<string> = new Set(['document_id', 'version_id']);
const REPLACEMENT_CHARACTER = '\uFFFD';

async function readMultipart(request: FastifyRequest): Promise<{ fields: Record<string, unknown>; file: Buffer | null; fileName: string | null }> {
  const fields: Record<string, unknown> = {};
  let file: Buffer | null = null;
  let fileName: string | null = null;
  const extras: string[] = [];
  const problems: ValidationDetail[] = [];
  try {
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
        const name = part.fieldname;
        if (Object.hasOwn(fields, name)) {
          problems.push({ type: 'duplicate_field', loc: ['body', name], msg: 'Each form field may appear once', input: null });
        } else if (part.valueTruncated) {
          problems.push({ type: 'string_too_long', loc: ['body', name], msg: `Form field exceeds ${MAX_FORM_FIELD_BYTES} bytes`, input: null });
          fields[name] = null;
        } else if (typeof part.value === 'string' && ID_FIELDS.has(name) && part.value.includes(REPLACEMENT_CHARACTER)) {
          // The form parser decodes bytes that are not valid UTF-8 to U+FFFD: two different ids would then
          // arrive as one and the second upload would replace the first. An id field must not carry it.
          problems.push({ type: 'string_unicode', loc: ['body', name], msg: 'Input should be valid UTF-8 text (U+FFFD marks undecodable bytes)', input: null });
          fields[name] = null;
        } else {
          fields[name] = fieldValue(name, part.value);
        }
      } else {
        extras.push(part.fieldname);
      }
    }
  } catch (error) {
    throw multipartFailure(error);
  }
  for (const name of extras) problems.push({ type: 'extra_forbidden', loc: ['body', name], msg: 'Extra inputs are not permitted', input: null });
  if (problems.length > 0) throw invalid(problems);
  return { fields, file, fileName };
}

export function registerUploadRoutes(app: FastifyInstance, services: Services): void {
  const schema = { tags: ['documents'], response: UPLOAD_RESPONSES };
  app.post('/embed', { schema }, async (request, reply) => {
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
        metadata: parseMetadataField(fields.metadata),
      });
      const accepted = await services.uploads.acceptFile(clientId, { ...upload, filename: upload.filename ?? 'upload' }, file);
      return reply.code(202).send(accepted);
    }
    // A body without a Content-Type was read as JSON (request-parsing.ts).
    const contentType = request.headers['content-type']?.toLowerCase();
    if (contentType !== undefined && !contentType.startsWith('application/json')) throw new ServiceError('unsupported_media_type', 'Use multipart/form-data or application/json');
    const checked = validateTextUpload(request.body) as { error?: Error };
    if (checked.error) throw checked.error;
    const body = request.body as { document_id: string; version_id?: string | null; text: string; filename?: string; metadata?: unknown };
    const upload = validateUploadFields({ documentId: body.document_id, versionId: body.version_id, filename: body.filename, metadata: body.metadata });
    return reply.code(202).send(await services.uploads.acceptText(clientId, upload, body.text));
  });
}
