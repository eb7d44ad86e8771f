/**
 * Names the workers and the `jobs` commands agree on in the database: the workflow, the
 * application, the text stream, and the queue of each model. Changing one strands the jobs enqueued
 * under the old name, so they are constants here.
 */

/** The DBOS application every mcphost worker and client belongs to (scopes workflows and queues). */
export const APPLICATION_NAME = 'mcphost';

/** The registered name of the one workflow: a job. */
export const JOB_WORKFLOW_NAME = 'mcphostJob';

/** The DBOS stream a job's model text is written to as it arrives (`jobs status --follow`). */
export const TEXT_STREAM = 'text';

/** Queues are named after the model, so one model's concurrency and rate limits hold everywhere. */
export function queueNameForModel(model: string): string {
  return `model:${model}`;
}

/** The model of a queue named by {@link queueNameForModel}, or `undefined` for another queue. */
export function modelOfQueue(queueName: string): string | undefined {
  return queueName.startsWith('model:') ? queueName.slice('model:'.length) : undefined;
}
