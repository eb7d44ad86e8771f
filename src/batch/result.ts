/**
 * The result of one batch job: what `runBatch` yields and what `mcphost batch` appends to its
 * results file, one JSON line per job. Pure types and a reader (no I/O), shared with the workers.
 */
import * as z from 'zod';
import type { Usage } from '../core/types.js';

/** How a job ended. `failed` covers every error that ended the job after its last attempt. */
export type BatchJobStatus = 'ok' | 'failed';

/** One tool call of a job (its arguments and output stay out of the results file: they may be big). */
export interface BatchToolCall {
  /** The name the model called (`server__tool`). */
  readonly name: string;
  readonly isError: boolean;
  readonly durationMs: number;
  /**
   * For a call that failed: the first line of what the model was told (at most
   * {@link TOOL_ERROR_CHARS} characters), so the file says why a call was refused (a budget, an
   * approval rule) or failed, without the whole output.
   */
  readonly error?: string;
}

/** The most characters of a failed tool call's message kept in its result. */
export const TOOL_ERROR_CHARS = 300;

/** Why a job failed: the error's class name (`ProviderError`, `MaxStepsError`…) and its message. */
export interface BatchJobError {
  readonly kind: string;
  readonly message: string;
  /** Whether the batch would try this error again (see docs/batch.md, "Retries"). */
  readonly retryable: boolean;
}

export interface BatchResult {
  /** The job's key: its `id`, else `line:<n>:<hash>`. A second run skips keys it finds here. */
  readonly key: string;
  /** The job's `id`, when it has one. */
  readonly id?: string;
  /** The job's line in the jobs file (absent for jobs handed to `runBatch` as objects). */
  readonly line?: number;
  readonly status: BatchJobStatus;
  /** The final answer's text (absent when the job failed). */
  readonly answer?: string;
  /** The parsed answer, when the job had an `outputSchema`. */
  readonly structured?: unknown;
  readonly toolCalls: readonly BatchToolCall[];
  /** Tokens over every attempt of the job. */
  readonly usage: Usage;
  /** Wall time from the job's first attempt to its end, in milliseconds. */
  readonly durationMs: number;
  /** Attempts made (1 when the first one settled it). */
  readonly attempts: number;
  readonly error?: BatchJobError;
}

const resultSchema = z.looseObject({
  key: z.string().min(1),
  status: z.enum(['ok', 'failed']),
});

/**
 * Reads a results file's text: the keys of jobs already done and their statuses. A line that is
 * not a complete result (the torn last line of a crash, or junk) is skipped; a later line for the
 * same key wins (a failed job retried by a later run).
 */
export function readResultKeys(text: string): Map<string, BatchJobStatus> {
  const keys = new Map<string, BatchJobStatus>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const parsed = resultSchema.safeParse(value);
    if (parsed.success) keys.set(parsed.data.key, parsed.data.status);
  }
  return keys;
}
