/**
 * What a job workflow is started with and what it returns. The input is recorded in the database
 * and readable by anyone with access to it, so it holds no secret: API keys come from each
 * worker's own environment and config (docs/workers.md, "Secrets").
 */
import type { BatchJob } from '../../batch/job.js';
import type { BatchResult } from '../../batch/result.js';

/** The workflow's one argument. */
export interface JobInput {
  /** The job's key (its `id`, else `line:<n>:<hash>`): also the workflow id. */
  readonly key: string;
  /** The job's line in the file it was submitted from. */
  readonly line?: number;
  /** The job as parsed from its line; `model` is resolved (the queue is the model's). */
  readonly job: BatchJob & { readonly model: string };
}

/** What a finished job workflow returns: the batch's result shape, so both engines report alike. */
export type JobOutput = BatchResult;
