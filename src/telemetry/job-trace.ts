/**
 * One trace per job (docs/telemetry.md, "Batches and workers").
 *
 * - A batch job is the root of a trace of its own: a `batch_job` span over all its attempts, each
 *   attempt's `invoke_agent` (and the servers started for the job) under it. A batch started inside
 *   a trace (the program's span, `TRACEPARENT`) links each job's root to it rather than putting
 *   thousands of jobs in one trace.
 * - A worker job's trace is rooted in DBOS's own workflow span (DBOS traces through the global
 *   provider, ours). DBOS starts that span before our code runs and without a parent, so a job
 *   resumed by another process would start a second trace: {@link jobWorkflowTraces} gives the
 *   span of every execution of one job the same parent, derived from the job's key and the
 *   database, so all of them (and the steps and runs under them) are one trace.
 */
import { createHash } from 'node:crypto';
import {
  context,
  INVALID_SPAN_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Context,
  type Link,
  type Span,
  type SpanContext,
  type SpanOptions,
  type Tracer,
  type TracerOptions,
  type TracerProvider,
} from '@opentelemetry/api';
import { packageVersion } from '../util/version.js';
import { errorType } from './run-telemetry.js';
import * as names from './semconv.js';
import { runParentContext } from './trace-context.js';

const SCOPE = 'mcphost';

/** The span that is the root of a batch job's trace. */
export const BATCH_JOB_SPAN = 'batch_job';

/** The spans of a batch's jobs: one root span per job, over all its attempts. */
export class BatchJobSpans {
  readonly #tracer: Tracer;
  readonly #links: Link[];
  readonly #open = new Map<string, { span: Span; context: Context; attempts: number; failure: unknown }>();

  /** `env`: where `TRACEPARENT` may name the trace the batch was started in (a link, not a parent). */
  constructor(env: Readonly<Record<string, string | undefined>>) {
    this.#tracer = trace.getTracer(SCOPE, packageVersion());
    const started = trace.getSpanContext(runParentContext(env));
    this.#links = started === undefined ? [] : [{ context: started }];
  }

  /** Runs one attempt of a job inside the job's span, started with the first attempt. */
  withinAttempt<T>(job: { readonly key: string; readonly line: number }, work: () => Promise<T>): Promise<T> {
    let open = this.#open.get(job.key);
    if (open === undefined) {
      // A root: the batch's own context (a program's span) would make every job one trace.
      const span = this.#tracer.startSpan(
        BATCH_JOB_SPAN,
        {
          kind: SpanKind.INTERNAL,
          root: true,
          links: this.#links,
          attributes: { [names.ATTR_MCPHOST_JOB_ID]: job.key, [ATTR_MCPHOST_JOB_LINE]: job.line },
        },
        context.active(),
      );
      open = { span, context: trace.setSpan(context.active(), span), attempts: 0, failure: undefined };
      this.#open.set(job.key, open);
    }
    open.attempts += 1;
    return context.with(open.context, work);
  }

  /** How the latest attempt of a job ended: the job's span says the last one's failure. */
  attemptEnded(key: string, failure: unknown): void {
    const open = this.#open.get(key);
    if (open !== undefined) open.failure = failure;
  }

  /** The job ended (or was stopped): its span ends, with the attempts it took. */
  jobEnded(key: string, stopped: boolean): void {
    const open = this.#open.get(key);
    if (open === undefined) return;
    this.#open.delete(key);
    open.span.setAttribute(ATTR_MCPHOST_JOB_ATTEMPTS, open.attempts);
    if (stopped) {
      open.span.setAttribute(names.ATTR_ERROR_TYPE, 'stopped');
      open.span.setStatus({ code: SpanStatusCode.ERROR, message: 'the batch was stopped' });
    } else if (open.failure !== undefined) {
      open.span.setAttribute(names.ATTR_ERROR_TYPE, errorType(open.failure));
      open.span.setStatus({ code: SpanStatusCode.ERROR });
    }
    open.span.end();
  }

  /** Ends the spans of jobs still open (a batch left early). */
  endAll(): void {
    for (const key of [...this.#open.keys()]) this.jobEnded(key, true);
  }
}

/** Ours: the job's line in its file. */
export const ATTR_MCPHOST_JOB_LINE = 'mcphost.job.line';
/** Ours: the attempts a batch job took. */
export const ATTR_MCPHOST_JOB_ATTEMPTS = 'mcphost.job.attempts';

/** DBOS's tracer name (`trace.getTracer('dbos-tracer')` in @dbos-inc/dbos-sdk's telemetry/traces). */
const DBOS_TRACER = 'dbos-tracer';
/** The tracer of DBOS's check at launch that a context manager works: one `probe` span, a trace of its own. */
const DBOS_PROBE_TRACER = 'otel-bootstrap-check';
/** The attribute DBOS puts the workflow id in, in its legacy and its semconv formats. */
const WORKFLOW_ID_ATTRIBUTES = ['operationUUID', 'dbos.operation.workflow_id'] as const;

export interface JobWorkflowTracesOptions {
  /** The registered name of the job workflow (src/jobs/workers/names.ts). */
  readonly workflowName: string;
  /**
   * What tells this jobs database from another (two databases may hold jobs of one key): part of
   * the derived trace id, so that two deployments exporting to one back end do not share traces.
   */
  readonly databaseIdentity: string;
}

/**
 * The provider to register for a worker: `provider` itself, except that DBOS's span of a job
 * workflow (one per execution: the first, and each resume after a crash) gets the job's parent —
 * the same trace id and parent span id in every process that runs the job. That parent names no
 * exported span: it is the job's, and the workflow spans are its children.
 */
export function jobWorkflowTraces(
  provider: TracerProvider,
  options: JobWorkflowTracesOptions,
): TracerProvider {
  return {
    getTracer(name: string, version?: string, tracerOptions?: TracerOptions): Tracer {
      // The probe's span is still put in a context and found there (what DBOS checks), but it is
      // not recorded.
      if (name === DBOS_PROBE_TRACER) return new UnrecordedTracer();
      const tracer = provider.getTracer(name, version, tracerOptions);
      return name === DBOS_TRACER ? new JobWorkflowTracer(tracer, options) : tracer;
    },
  };
}

/** The parent of every workflow span of one job: a trace id and span id derived from its key. */
export function jobParentContext(workflowId: string, databaseIdentity: string): SpanContext {
  const digest = createHash('sha256').update(`mcphost job\n${databaseIdentity}\n${workflowId}`).digest('hex');
  return {
    traceId: digest.slice(0, 32),
    spanId: digest.slice(32, 48),
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  };
}

class JobWorkflowTracer implements Tracer {
  readonly #inner: Tracer;
  readonly #options: JobWorkflowTracesOptions;

  constructor(inner: Tracer, options: JobWorkflowTracesOptions) {
    this.#inner = inner;
    this.#options = options;
  }

  startSpan(name: string, options?: SpanOptions, parent?: Context): Span {
    const active = parent ?? context.active();
    const workflowId = name === this.#options.workflowName ? workflowIdOf(options) : undefined;
    // A workflow started inside a span (a child workflow) keeps its parent.
    if (workflowId === undefined || trace.getSpanContext(active) !== undefined) {
      return this.#inner.startSpan(name, options, parent);
    }
    const jobParent = jobParentContext(workflowId, this.#options.databaseIdentity);
    return this.#inner.startSpan(name, options, trace.setSpanContext(active, jobParent));
  }

  // DBOS starts its spans with startSpan only; this one is passed on as it is.
  startActiveSpan: Tracer['startActiveSpan'] = (...args: unknown[]) =>
    (this.#inner.startActiveSpan as (...values: unknown[]) => unknown)(...args) as never;
}

/** Spans that are not recorded (the API's own no-op tracer is not exported). */
class UnrecordedTracer implements Tracer {
  startSpan(): Span {
    return trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
  }

  startActiveSpan: Tracer['startActiveSpan'] = (...args: unknown[]) => {
    const work = args.at(-1) as (span: Span) => unknown;
    const span = this.startSpan();
    return context.with(trace.setSpan(context.active(), span), work, undefined, span) as never;
  };
}

function workflowIdOf(options: SpanOptions | undefined): string | undefined {
  for (const key of WORKFLOW_ID_ATTRIBUTES) {
    const value = options?.attributes?.[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}
