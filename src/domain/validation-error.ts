// A request that failed validation, with the 422 details SPEC.md defines: {type, loc, msg, input}.
// Services raise it for body rules a schema cannot express; the HTTP layer renders it.

export interface ValidationDetail {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
}

export class RequestValidationError extends Error {
  readonly details: ValidationDetail[];
  constructor(details: ValidationDetail[]) {
    super('Request validation failed');
    this.name = 'RequestValidationError';
    this.details = details;
  }
}
