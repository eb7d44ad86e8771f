/**
 * The trace context of a request, carried to the server in `params._meta` (`traceparent`,
 * `tracestate`, `baggage`: the keys the 2026-07-28 revision reserves for W3C Trace Context, SEP-414).
 * Added where every request leaves, the transport's `send`, so both protocol generations, every
 * method (`initialize`, `tools/list`, `tools/call`, tasks…) and every transport carry it.
 */
import type { Transport } from '@modelcontextprotocol/client';

/** The W3C carrier of the context a request is sent in; `undefined` or empty: nothing to carry. */
export type TraceContextSource = () => Readonly<Record<string, string>> | undefined;

/** The only carrier keys passed on: nothing else of a propagator's output goes to a server. */
const TRACE_KEYS = ['traceparent', 'tracestate', 'baggage'] as const;

/** Makes `transport.send` add the current trace context to every request's `params._meta`. */
export function carryTraceContext(transport: Transport, source: TraceContextSource): void {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => send(withTraceContext(message, source()), options);
}

/** The message with the carrier's keys in `params._meta` (requests only; keys already there stay). */
export function withTraceContext<Message extends object>(
  message: Message,
  carrier: Readonly<Record<string, string>> | undefined,
): Message {
  if (carrier === undefined || !('method' in message) || !('id' in message)) return message;
  const trace: Record<string, string> = {};
  for (const key of TRACE_KEYS) {
    const value = carrier[key];
    if (value !== undefined && value !== '') trace[key] = value;
  }
  if (Object.keys(trace).length === 0) return message;
  const params = 'params' in message && isRecord(message.params) ? message.params : {};
  const meta = isRecord(params._meta) ? params._meta : {};
  return { ...message, params: { ...params, _meta: { ...trace, ...meta } } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
