/** The `execute_tool {tool}` spans of a run, one per tool call, with the MCP client attributes. */
import {
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { ToolCallRecord } from '../core/events.js';
import type { ToolCallBlock } from '../core/types.js';
import { captureArguments, captureText } from './content.js';
import type { Instruments } from './instruments.js';
import * as names from './semconv.js';

/** Where a tool call goes, as the pool knows it. */
export interface ToolLocation {
  /** The configured server name. */
  readonly server: string;
  readonly transport: 'stdio' | 'http' | 'sse' | 'builtin';
  /** The MCP revision agreed with the server. */
  readonly protocolVersion?: string;
  /** The server's session id (Streamable HTTP), when it gave one. */
  readonly sessionId?: string;
}

export interface ToolSpanOptions {
  readonly locateTool?: (exposedName: string) => ToolLocation | undefined;
  readonly captureContent?: boolean;
}

interface OpenToolSpan {
  readonly span: Span;
  readonly context: Context;
  readonly started: number;
  readonly location: ToolLocation | undefined;
}

export class ToolSpans {
  readonly #open = new Map<string, OpenToolSpan>();
  readonly #tracer: Tracer;
  readonly #instruments: Instruments;
  readonly #parent: Context;
  readonly #options: ToolSpanOptions;

  constructor(tracer: Tracer, instruments: Instruments, parent: Context, options: ToolSpanOptions) {
    this.#tracer = tracer;
    this.#instruments = instruments;
    this.#parent = parent;
    this.#options = options;
  }

  start(call: ToolCallBlock): void {
    const location = this.#options.locateTool?.(call.name);
    const span = this.#tracer.startSpan(
      `execute_tool ${call.name}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          [names.ATTR_GEN_AI_OPERATION_NAME]: 'execute_tool',
          [names.ATTR_GEN_AI_TOOL_NAME]: call.name,
          [names.ATTR_GEN_AI_TOOL_CALL_ID]: call.id,
          [names.ATTR_GEN_AI_TOOL_TYPE]: 'function',
          ...(location === undefined ? {} : mcpAttributes(location)),
          ...(this.#options.captureContent === true
            ? { [names.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: captureArguments(call.input) }
            : {}),
        },
      },
      this.#parent,
    );
    this.#open.set(call.id, {
      span,
      context: trace.setSpan(this.#parent, span),
      started: Date.now(),
      location,
    });
  }

  /** The context a call's host call runs in. */
  contextOf(callId: string): Context | undefined {
    return this.#open.get(callId)?.context;
  }

  end(record: ToolCallRecord): void {
    const open = this.#open.get(record.call.id);
    if (open === undefined) return;
    this.#open.delete(record.call.id);
    const { span, location } = open;
    const { result } = record;
    if (result.isError) {
      span.setAttribute(names.ATTR_ERROR_TYPE, 'tool_error');
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    if (this.#options.captureContent === true) {
      const text = result.content
        .map((block) => (block.type === 'text' ? block.text : `[${block.type}]`))
        .join('\n');
      span.setAttribute(names.ATTR_GEN_AI_TOOL_CALL_RESULT, captureText(text));
    }
    span.end();
    const outcome = result.isError ? 'error' : 'ok';
    const server = location?.server ?? 'host';
    this.#instruments.toolCalls.add(1, { [names.ATTR_MCPHOST_SERVER]: server, 'mcphost.outcome': outcome });
    if (location !== undefined) {
      const attributes: Attributes = {
        ...mcpAttributes(location),
        [names.ATTR_GEN_AI_TOOL_NAME]: record.call.name,
        ...(result.isError ? { [names.ATTR_ERROR_TYPE]: 'tool_error' } : {}),
      };
      this.#instruments.mcpDuration.record(Math.max(0, Date.now() - open.started) / 1000, attributes);
    }
  }

  /** A run that failed: calls still open end with its error. */
  endAll(errorType: string): void {
    for (const { span } of this.#open.values()) {
      span.setAttribute(names.ATTR_ERROR_TYPE, errorType);
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    this.#open.clear();
  }
}

function mcpAttributes(location: ToolLocation): Attributes {
  return {
    [names.ATTR_MCP_METHOD_NAME]: 'tools/call',
    [names.ATTR_MCPHOST_SERVER]: location.server,
    [names.ATTR_NETWORK_TRANSPORT]: networkTransport(location.transport),
    ...(location.protocolVersion === undefined
      ? {}
      : { [names.ATTR_MCP_PROTOCOL_VERSION]: location.protocolVersion }),
    ...(location.sessionId === undefined ? {} : { [names.ATTR_MCP_SESSION_ID]: location.sessionId }),
  };
}

/** `pipe` for stdio (the conventions' value), `tcp` for HTTP; `inproc` for a built-in server. */
export function networkTransport(transport: ToolLocation['transport']): string {
  switch (transport) {
    case 'stdio':
      return 'pipe';
    case 'http':
    case 'sse':
      return 'tcp';
    case 'builtin':
      return 'inproc';
    default: {
      const unexpected: never = transport;
      return String(unexpected);
    }
  }
}
