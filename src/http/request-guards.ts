// Checks on the framing of a request that come before its parameters are read: the body's Content-Encoding
// and the percent-encoding of the query string. A header or an escape the service would otherwise ignore
// or reinterpret silently is refused instead.

import { ServiceError } from '../domain/service-error.ts';
import type { ValidationDetail } from '../domain/validation-error.ts';

/**
 * Content-Encoding of a request body: only `identity` (or none) is accepted, anything else is a 415.
 * Decoding gzip/deflate was the alternative; it is refused because no client of the contract needs it
 * (uploads are files inside multipart, and compressed files are parsed as files), and because every
 * route's size limit counts the bytes on the wire: a few KiB of gzip can expand to gigabytes, so decoding
 * would need its own expansion guard on every JSON route. Refusing also means a lying header (plain JSON
 * labelled gzip) is never ignored.
 */
export function contentEncodingProblem(headers: Record<string, string | string[] | undefined>): ServiceError | null {
  const header = headers['content-encoding'];
  if (header === undefined) return null;
  const codings = (Array.isArray(header) ? header.join(',') : header)
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '');
  if (codings.every((coding) => coding === 'identity')) return null;
  const hasBody = headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
  if (!hasBody) return null;
  return new ServiceError('unsupported_media_type', `Content-Encoding ${codings.join(', ')} is not supported: send the body uncompressed`);
}

function decodeComponent(text: string): string | null {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/**
 * The query string's pieces whose percent-escapes are malformed or not UTF-8 (for example %zz or
 * %ED%A0%80, a UTF-8-encoded surrogate). The query parser would keep such a piece undecoded, so
 * `version_id=x%ED%A0%80` would silently name the id "x%ED%A0%80". Entries point at ['query', name].
 */
export function queryEncodingProblems(url: string): ValidationDetail[] {
  const mark = url.indexOf('?');
  if (mark === -1) return [];
  const problems: ValidationDetail[] = [];
  for (const piece of url.slice(mark + 1).split('&')) {
    if (!piece.includes('%')) continue;
    const equals = piece.indexOf('=');
    const rawName = equals === -1 ? piece : piece.slice(0, equals);
    const name = decodeComponent(rawName);
    const valueOk = equals === -1 || decodeComponent(piece.slice(equals + 1)) !== null;
    if (name !== null && valueOk) continue;
    problems.push({
      type: 'query_encoding',
      loc: ['query', name ?? rawName],
      msg: 'Query parameters must be percent-encoded UTF-8',
      input: piece.length <= 256 ? piece : null,
    });
    if (problems.length >= 20) break;
  }
  return problems;
}
