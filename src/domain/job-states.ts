// Job states and operations exactly as SPEC.md names them, plus which of them are terminal.
// Pure data; the queue and the worker apply the transitions.

export const JOB_STATES = [
  'pending',
  'started',
  'processing',
  'completed',
  'superseded',
  'failed',
  'partial_failed',
  'retrying',
] as const;
export type JobState = (typeof JOB_STATES)[number];


export const JOB_OPERATIONS = ['embed', 'metadata_update', 'metadata_backfill'] as const;
export type JobOperation = (typeof JOB_OPERATIONS)[number];


export const SUPERSEDED_REASONS = ['newer_upload', 'replacement_overtaken'] as const;
export type SupersededReason = (typeof SUPERSEDED_REASONS)[number];

export const CLASSIFICATION_STATUSES = ['pending', 'completed', 'failed', 'disabled'] as const;
export type ClassificationStatus = (typeof CLASSIFICATION_STATUSES)[number];

export const READINESS_STATES = ['not_started', 'backfilling', 'blocked', 'ready'] as const;
export type ReadinessState = (typeof READINESS_STATES)[number];
