/**
 * W3C Trace Context in and out: the `traceparent` / `tracestate` of a span for MCP requests
 * (`params._meta`) and child processes (`TRACEPARENT`), and the parent a run joins from our own
 * environment. Written here rather than taken from `@opentelemetry/core`'s propagator: the library
 * depends on the API only, and a program may have registered no propagator (or another one) while
 * the MCP revision asks for exactly these two W3C fields.
 */
import {
  context,
  createTraceState,
  trace,
  TraceFlags,
  type Context,
  type SpanContext,
} from '@opentelemetry/api';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The W3C fields of a span context (`{}` for an invalid one). */
export function traceCarrier(spanContext: SpanContext | undefined): Record<string, string> {
  if (spanContext === undefined || !trace.isSpanContextValid(spanContext)) return {};
  const flags = (spanContext.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, '0');
  const traceparent = `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
  const tracestate = spanContext.traceState?.serialize();
  return tracestate === undefined || tracestate === '' ? { traceparent } : { traceparent, tracestate };
}

/** The carrier of the active context (the span running now). */
export function activeTraceCarrier(): Record<string, string> {
  return traceCarrier(trace.getSpanContext(context.active()));
}

/** The same, as environment variables for a child process (`TRACEPARENT`, `TRACESTATE`). */
export function activeTraceEnvironment(): Record<string, string> {
  const { traceparent, tracestate } = activeTraceCarrier();
  if (traceparent === undefined) return {};
  return tracestate === undefined
    ? { TRACEPARENT: traceparent }
    : { TRACEPARENT: traceparent, TRACESTATE: tracestate };
}

/** A remote span context from a `traceparent` value (and `tracestate`), or undefined if malformed. */
export function parseTraceParent(traceparent: string, tracestate?: string): SpanContext | undefined {
  const match = TRACEPARENT.exec(traceparent.trim().toLowerCase());
  if (match === null) return undefined;
  const [, traceId = '', spanId = '', flags = '00'] = match;
  const spanContext: SpanContext = {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & TraceFlags.SAMPLED,
    isRemote: true,
    ...(tracestate === undefined || tracestate === '' ? {} : { traceState: createTraceState(tracestate) }),
  };
  return trace.isSpanContextValid(spanContext) ? spanContext : undefined;
}

/**
 * The context a run starts in: the active one when it has a span (a program's, a parent run's),
 * else the trace named by `TRACEPARENT` in our environment (a CI job, a parent agent), else the
 * active one (a new trace).
 */
export function runParentContext(env: Readonly<Record<string, string | undefined>>): Context {
  const active = context.active();
  if (trace.getSpanContext(active) !== undefined) return active;
  const traceparent = env.TRACEPARENT;
  const remote = traceparent === undefined ? undefined : parseTraceParent(traceparent, env.TRACESTATE);
  return remote === undefined ? active : trace.setSpanContext(active, remote);
}
