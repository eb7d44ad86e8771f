/**
 * The spans of server starts and sign-ins (McpPoolOptions.startObserver): an `initialize` span
 * (CLIENT, the MCP client conventions) per attempt to open a server's session, covering the spawn
 * or connection, the negotiation and the first tool list, and a `sign_in {server}` span per
 * OAuth sign-in. A start runs inside its span, so its requests carry the span's `traceparent`.
 * Their parent is the context active when they begin: a run's tool call for a restart, else
 * the program's span or the trace named by `TRACEPARENT`, else none (a trace of its own).
 */
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Tracer } from '@opentelemetry/api';
import { isRemoteServer } from '../mcp/definition.js';
import type { ServerStartFacts, ServerStartObserver } from '../mcp/start-observer.js';
import { SignInRequiredError } from '../mcp/auth/errors.js';
import { redactText } from '../safety/redact.js';
import type { Instruments } from './instruments.js';
import * as names from './semconv.js';
import { networkTransport } from './tool-spans.js';
import { runParentContext } from './trace-context.js';
import { serverAttributes } from './server-address.js';

/** The 2026-07-28 revision opens with `server/discover`; earlier ones with `initialize`. */
const DISCOVER_REVISION = '2026-07-28';

export function serverStartSpans(
  tracer: Tracer,
  instruments: Instruments,
  env: Readonly<Record<string, string | undefined>>,
): ServerStartObserver {
  return {
    opening: async (facts, work) => {
      const parent = runParentContext(env);
      const started = Date.now();
      const span = tracer.startSpan(
        'initialize',
        { kind: SpanKind.CLIENT, attributes: startAttributes(facts) },
        parent,
      );
      try {
        const session = await context.with(trace.setSpan(parent, span), work);
        const method =
          (session.protocolVersion ?? '') >= DISCOVER_REVISION ? 'server/discover' : 'initialize';
        if (method !== 'initialize') span.updateName(method);
        const sessionId = session.transport.sessionId;
        const attributes: Attributes = {
          [names.ATTR_MCP_METHOD_NAME]: method,
          [names.ATTR_NETWORK_TRANSPORT]: networkTransport(session.kind),
          ...(session.protocolVersion === undefined
            ? {}
            : { [names.ATTR_MCP_PROTOCOL_VERSION]: session.protocolVersion }),
          ...(sessionId === undefined ? {} : { [names.ATTR_MCP_SESSION_ID]: sessionId }),
          [names.ATTR_MCPHOST_TOOL_COUNT]: session.tools.length,
        };
        span.setAttributes(attributes);
        span.end();
        recordDuration(instruments, facts, started, attributes);
        return session;
      } catch (error) {
        const type = startErrorType(error);
        span.setAttribute(names.ATTR_ERROR_TYPE, type);
        span.setStatus({ code: SpanStatusCode.ERROR, message: redactText(messageOf(error)) });
        span.end();
        recordDuration(instruments, facts, started, { [names.ATTR_ERROR_TYPE]: type });
        throw error;
      }
    },
    signingIn: async (server, work) => {
      const parent = runParentContext(env);
      const span = tracer.startSpan(
        `sign_in ${server}`,
        { kind: SpanKind.INTERNAL, attributes: { [names.ATTR_MCPHOST_SERVER]: server } },
        parent,
      );
      try {
        await context.with(trace.setSpan(parent, span), work);
        span.end();
      } catch (error) {
        span.setAttribute(names.ATTR_ERROR_TYPE, startErrorType(error));
        span.setStatus({ code: SpanStatusCode.ERROR, message: redactText(messageOf(error)) });
        span.end();
        throw error;
      }
    },
  };
}

function startAttributes(facts: ServerStartFacts): Attributes {
  const { definition } = facts;
  return {
    [names.ATTR_MCP_METHOD_NAME]: 'initialize',
    [names.ATTR_MCPHOST_SERVER]: facts.server,
    [names.ATTR_NETWORK_TRANSPORT]: networkTransport(definition.transport),
    [names.ATTR_MCPHOST_RESTART]: facts.restart,
    // A remote server's host and port only: its URL's path or query may hold a key.
    ...(isRemoteServer(definition)
      ? { [names.ATTR_NETWORK_PROTOCOL_NAME]: 'http', ...serverAttributes(definition.url) }
      : {}),
  };
}

function recordDuration(
  instruments: Instruments,
  facts: ServerStartFacts,
  started: number,
  outcome: Attributes,
): void {
  instruments.mcpDuration.record(Math.max(0, Date.now() - started) / 1000, {
    [names.ATTR_MCP_METHOD_NAME]: 'initialize',
    [names.ATTR_MCPHOST_SERVER]: facts.server,
    [names.ATTR_NETWORK_TRANSPORT]: networkTransport(facts.definition.transport),
    ...outcome,
  });
}

/** `error.type` of a failed start: the HTTP status of a refusal that asks for sign-in, else the class. */
function startErrorType(error: unknown): string {
  if (error instanceof SignInRequiredError && error.status !== undefined) return String(error.status);
  if (error instanceof Error) return error.name;
  return '_OTHER';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
