/**
 * One trace per job, with the real OpenTelemetry SDK in memory: the worker's provider gives every
 * execution of a job workflow (two processes: two providers) the same parent, other jobs and other
 * databases other traces, and leaves DBOS's steps and launch probe as they should be; a batch job's
 * span is a root linked to the trace the batch ran in, over every attempt.
 */
import { context, trace, type Span, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchJobSpans, jobParentContext, jobWorkflowTraces } from '../../src/telemetry/job-trace.js';

const exporter = new InMemorySpanExporter();
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(() => {
  trace.disable();
  context.disable();
});

/** A worker process's provider, as the CLI registers it. */
function workerTracer(databaseIdentity: string, name = 'dbos-tracer'): Tracer {
  const sdk = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return jobWorkflowTraces(sdk, { workflowName: 'mcphostJob', databaseIdentity }).getTracer(name);
}

/** DBOS's workflow span, as dbos-executor starts it (no parent, the workflow id as an attribute). */
function workflowSpan(tracer: Tracer, workflowId: string): Span {
  return tracer.startSpan('mcphostJob', {
    attributes: { operationUUID: workflowId, operationType: 'workflow' },
  });
}

describe('jobWorkflowTraces', () => {
  it('puts every execution of one job in one trace, under the job parent, and other jobs elsewhere', () => {
    exporter.reset();
    const first = workflowSpan(workerTracer('cluster/jobs'), 'job-1');
    const resumed = workflowSpan(workerTracer('cluster/jobs'), 'job-1');
    const other = workflowSpan(workerTracer('cluster/jobs'), 'job-2');
    const elsewhere = workflowSpan(workerTracer('another-cluster/jobs'), 'job-1');
    const parent = jobParentContext('job-1', 'cluster/jobs');
    for (const span of [first, resumed]) {
      expect(span.spanContext().traceId).toBe(parent.traceId);
    }
    expect(first.spanContext().spanId).not.toBe(resumed.spanContext().spanId);
    expect(other.spanContext().traceId).not.toBe(parent.traceId);
    expect(elsewhere.spanContext().traceId).not.toBe(parent.traceId);
    for (const span of [first, resumed, other, elsewhere]) span.end();
    const ended = exporter.getFinishedSpans();
    expect(ended.slice(0, 2).map((span) => span.parentSpanContext?.spanId)).toEqual([
      parent.spanId,
      parent.spanId,
    ]);
  });

  it("leaves DBOS's steps under the active span, and does not record its launch probe", () => {
    exporter.reset();
    const tracer = workerTracer('cluster/jobs');
    const workflow = workflowSpan(tracer, 'job-1');
    const step = context.with(trace.setSpan(context.active(), workflow), () =>
      tracer.startSpan('model-call', { attributes: { operationUUID: 'job-1', operationType: 'step' } }),
    );
    expect(step.spanContext().traceId).toBe(workflow.spanContext().traceId);
    step.end();
    workflow.end();
    const probe = workerTracer('cluster/jobs', 'otel-bootstrap-check').startSpan('probe');
    // DBOS's check that a context manager works still finds the probe in its context.
    expect(context.with(trace.setSpan(context.active(), probe), () => trace.getSpan(context.active()))).toBe(
      probe,
    );
    probe.end();
    expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(['model-call', 'mcphostJob']);
    expect(exporter.getFinishedSpans()[0]?.parentSpanContext?.spanId).toBe(workflow.spanContext().spanId);
  });
});

describe('BatchJobSpans', () => {
  it('roots each job in a span of its own over every attempt, linked to the trace the batch ran in', async () => {
    exporter.reset();
    const sdk = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    trace.setGlobalTracerProvider(sdk);
    const program = sdk.getTracer('program').startSpan('the program');
    const seen: string[] = [];
    await context.with(trace.setSpan(context.active(), program), async () => {
      const spans = new BatchJobSpans({});
      for (const attempt of [1, 2]) {
        await spans.withinAttempt({ key: 'job-a', line: 1 }, () => {
          seen.push(trace.getActiveSpan()?.spanContext().spanId ?? '');
          spans.attemptEnded('job-a', attempt === 1 ? new Error('first try') : undefined);
          return Promise.resolve();
        });
      }
      await spans.withinAttempt({ key: 'job-b', line: 2 }, () => Promise.resolve());
      spans.attemptEnded('job-b', Object.assign(new Error('no'), { name: 'ConfigError' }));
      spans.jobEnded('job-a', false);
      spans.endAll();
    });
    program.end();
    const [jobA, jobB] = exporter.getFinishedSpans().filter((span) => span.name === 'batch_job');
    expect(jobA?.attributes).toMatchObject({
      'mcphost.job.id': 'job-a',
      'mcphost.job.line': 1,
      'mcphost.job.attempts': 2,
    });
    // Both attempts ran in the job's span; the second succeeded, so the job did.
    expect(seen).toEqual([jobA?.spanContext().spanId, jobA?.spanContext().spanId]);
    expect(jobA?.status.code).toBe(0);
    expect(jobA?.parentSpanContext).toBeUndefined();
    expect(jobA?.spanContext().traceId).not.toBe(program.spanContext().traceId);
    expect(jobA?.links.map((link) => link.context.spanId)).toEqual([program.spanContext().spanId]);
    expect(jobB?.spanContext().traceId).not.toBe(jobA?.spanContext().traceId);
    // A job the batch's end cut short says so.
    expect(jobB?.attributes['error.type']).toBe('stopped');
    expect(jobB?.status.code).toBe(2);
  });
});
