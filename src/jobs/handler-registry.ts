// The job handlers a worker runs, one per operation (JOB_OPERATIONS, SPEC.md's job operations), registered at
// start-up. A worker composed without a handler for some operation, or with two for one, refuses to start: it
// would otherwise claim a job it cannot run and fail it, or run it with whichever handler was registered last.

import { JOB_OPERATIONS } from '../domain/job-states.ts';
import type { JobOperation } from '../domain/job-states.ts';
import type { JobHandler, JobHandlers } from '../domain/jobs.ts';

/** A worker's handlers do not cover each operation exactly once: the process does not start. */
export class JobHandlerRegistryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JobHandlerRegistryError';
  }
}

type Registered = { -readonly [O in JobOperation]?: JobHandler<O> };

function coversEvery(registered: Registered): registered is JobHandlers {
  return JOB_OPERATIONS.every((operation) => registered[operation] !== undefined);
}

export class JobHandlerRegistry {
  private readonly registered: Registered = {};

  /** Adds the handler of one operation; a second handler for it is refused at once. */
  register<O extends JobOperation>(operation: O, handler: JobHandler<O>): this {
    if (this.registered[operation] !== undefined) throw new JobHandlerRegistryError(`Two handlers were registered for ${operation} jobs`);
    // TypeScript cannot index the mapped type with a generic key for writing; the key and handler agree by `O`.
    Object.assign(this.registered, { [operation]: handler });
    return this;
  }

  /** Every operation's handler, for the worker; refused, naming them, when some operation has none. */
  handlers(): JobHandlers {
    const registered = this.registered;
    if (!coversEvery(registered)) {
      const missing = JOB_OPERATIONS.filter((operation) => registered[operation] === undefined);
      throw new JobHandlerRegistryError(`No handler was registered for ${missing.join(', ')} jobs`);
    }
    return { ...registered };
  }
}
