/**
 * Each tool call of a job as a DBOS step. A step that finished is not run again when the workflow
 * is replayed; a step a crash interrupted is (steps are at-least-once), so every call carries an
 * idempotency key in its `_meta` that a tool can use to do its work once (docs/workers.md).
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import type { ToolCallBlock, ToolHost, ToolResultBlock, ToolSpec } from '../../core/types.js';

/** The `_meta` field that carries the key. */
export const IDEMPOTENCY_KEY_FIELD = 'mcphost/idempotencyKey';

/** `jobId:step:call`: the job, the DBOS step number of the call, and the model's id for the call. */
export function idempotencyKey(jobId: string, step: number, callId: string): string {
  return `${jobId}:${step}:${callId}`;
}

/** A tool host whose every call is one recorded DBOS step; use it inside a job workflow only. */
export class RecordedToolHost implements ToolHost {
  readonly #inner: ToolHost;
  readonly #jobId: string;

  constructor(inner: ToolHost, jobId: string) {
    this.#inner = inner;
    this.#jobId = jobId;
  }

  tools(): Promise<readonly ToolSpec[]> {
    return this.#inner.tools();
  }

  call(call: ToolCallBlock, signal?: AbortSignal): Promise<ToolResultBlock> {
    return DBOS.runStep(
      () => {
        // The step's own number, the same when a replay runs the step again after a crash.
        const key = idempotencyKey(this.#jobId, DBOS.stepID ?? 0, call.id);
        return this.#inner.call({ ...call, meta: { ...call.meta, [IDEMPOTENCY_KEY_FIELD]: key } }, signal);
      },
      { name: `tool:${call.name}` },
    );
  }
}
