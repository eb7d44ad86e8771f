/**
 * The OpenTelemetry listener of a Runner (`RunnerOptions.observer`): spans and metrics made from
 * the run's events, in the GenAI conventions — one `invoke_agent` span per run, a `chat {model}`
 * span per model call attempt (a retried call shows each attempt, the failed ones with
 * `error.type`), an `execute_tool {tool}` span per tool call carrying the MCP client attributes.
 * The run and each tool host call execute inside their span's context, so what they start (MCP
 * requests and their `traceparent`, hooks, a child Runner) nests under them. Uses the global
 * tracer and meter: the program's (or the CLI's) providers; this module registers none.
 */
import {
  context,
  metrics,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { RunnerEvent } from '../core/events.js';
import type { ObservedRun, RunObservation, RunObserver } from '../core/run-observer.js';
import { ProviderError } from '../core/errors.js';
import type { ToolCallBlock } from '../core/types.js';
import type { TraceContextSource } from '../mcp/trace-meta.js';
import { packageVersion } from '../util/version.js';
import { createInstruments, type Instruments } from './instruments.js';
import { captureText } from './content.js';
import { redactText } from '../safety/redact.js';
import * as names from './semconv.js';
import { activeTraceCarrier, activeTraceEnvironment, runParentContext } from './trace-context.js';
import { ToolSpans, type ToolLocation } from './tool-spans.js';
import { serverAttributes } from './server-address.js';
import { serverStartSpans } from './server-spans.js';
import type { ServerStartObserver } from '../mcp/start-observer.js';
import type { GuardActivityObserver } from '../safety/guard/activity.js';
import { guardSpans } from './guard-spans.js';

export type { ToolLocation } from './tool-spans.js';

/** What the listener needs to know besides the run's events. */
export interface TelemetryOptions {
  /** Our environment: `TRACEPARENT` there is the parent of a run that has none. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where a tool name leads (its server, transport, protocol revision), for the MCP attributes. */
  readonly locateTool?: (exposedName: string) => ToolLocation | undefined;
  /** The saved conversation's id (`gen_ai.conversation.id`), when there is one. */
  readonly conversationId?: () => string | undefined;
  /** Record prompts, answers and tool arguments/results (redacted). Default false. */
  readonly captureContent?: boolean;
  /** The batch or worker job this runner works for (`mcphost.job.id` on every run). */
  readonly jobId?: string;
  /** `gen_ai.agent.name` (a named agent); the span is then `invoke_agent {name}`. */
  readonly agentName?: string;
}

/** The listener, and the trace context for MCP requests and child processes. */
export interface Telemetry {
  readonly observer: RunObserver;
  /** The active span's `traceparent`/`tracestate`, for `params._meta` (McpPoolOptions.traceContext). */
  readonly traceContext: TraceContextSource;
  /** The same as `TRACEPARENT`/`TRACESTATE`, for hook commands. */
  readonly traceEnvironment: () => Readonly<Record<string, string>>;
  /** The `initialize` and `sign_in` spans of the pool's servers (McpPoolOptions.startObserver). */
  readonly serverStarts: ServerStartObserver;
  /** Child spans of `execute_tool` for approval waits, hook runs and the screen (the guard's). */
  readonly guardActivities: GuardActivityObserver;
}

const SCOPE = 'mcphost';

export function createTelemetry(options: TelemetryOptions): Telemetry {
  const tracer = trace.getTracer(SCOPE, packageVersion());
  const instruments = createInstruments(metrics.getMeter(SCOPE, packageVersion()));
  return {
    observer: { startRun: (run) => new RunSpans(tracer, instruments, options, run) },
    traceContext: activeTraceCarrier,
    traceEnvironment: activeTraceEnvironment,
    serverStarts: serverStartSpans(tracer, instruments, options.env),
    guardActivities: guardSpans(tracer),
  };
}

/** The spans of one run. */
class RunSpans implements RunObservation {
  readonly #tracer: Tracer;
  readonly #instruments: Instruments;
  readonly #options: TelemetryOptions;
  readonly #run: ObservedRun;
  readonly #span: Span;
  readonly #context: Context;
  readonly #tools: ToolSpans;
  #chat: { span: Span; attempt: number; started: number; attributes: Attributes } | undefined;

  constructor(tracer: Tracer, instruments: Instruments, options: TelemetryOptions, run: ObservedRun) {
    this.#tracer = tracer;
    this.#instruments = instruments;
    this.#options = options;
    this.#run = run;
    const provider = run.provider();
    const conversationId = options.conversationId?.();
    this.#span = tracer.startSpan(
      options.agentName === undefined ? 'invoke_agent' : `invoke_agent ${options.agentName}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          [names.ATTR_GEN_AI_OPERATION_NAME]: 'invoke_agent',
          [names.ATTR_GEN_AI_PROVIDER_NAME]: names.genAiProviderName(provider.name),
          [names.ATTR_GEN_AI_REQUEST_MODEL]: provider.model,
          ...(conversationId === undefined ? {} : { [names.ATTR_GEN_AI_CONVERSATION_ID]: conversationId }),
          ...(options.agentName === undefined ? {} : { [names.ATTR_GEN_AI_AGENT_NAME]: options.agentName }),
          ...(options.jobId === undefined ? {} : { [names.ATTR_MCPHOST_JOB_ID]: options.jobId }),
        },
      },
      runParentContext(options.env),
    );
    this.#context = trace.setSpan(runParentContext(options.env), this.#span);
    this.#tools = new ToolSpans(tracer, instruments, this.#context, options);
  }

  within<T>(work: () => Promise<T>): Promise<T> {
    return context.with(this.#context, work);
  }

  withinToolCall<T>(call: ToolCallBlock, work: () => Promise<T>): Promise<T> {
    return context.with(this.#tools.contextOf(call.id) ?? this.#context, work);
  }

  event(event: RunnerEvent): void {
    switch (event.type) {
      case 'step-start':
        this.#startChat(1, Date.now());
        return;
      case 'retry':
        // The failed attempt ends here; the next one starts when the wait is over.
        this.#endChat(errorType(event.error));
        this.#startChat(event.attempt + 1, Date.now() + event.delayMs);
        return;
      case 'step-finish': {
        const chat = this.#chat;
        if (chat === undefined) return;
        chat.span.setAttribute(names.ATTR_GEN_AI_RESPONSE_FINISH_REASONS, [
          finishReasonName(event.finishReason),
        ]);
        if (event.usage !== undefined) {
          chat.span.setAttributes({
            [names.ATTR_GEN_AI_USAGE_INPUT_TOKENS]: event.usage.inputTokens,
            [names.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: event.usage.outputTokens,
            ...definedNumbers({
              [names.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: event.usage.cacheReadInputTokens,
              [names.ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS]: event.usage.cacheCreationInputTokens,
            }),
          });
          const tokens = this.#instruments.tokenUsage;
          tokens.record(event.usage.inputTokens, {
            ...chat.attributes,
            [names.ATTR_GEN_AI_TOKEN_TYPE]: 'input',
          });
          tokens.record(event.usage.outputTokens, {
            ...chat.attributes,
            [names.ATTR_GEN_AI_TOKEN_TYPE]: 'output',
          });
        }
        this.#endChat(undefined);
        return;
      }
      case 'tool-call':
        this.#tools.start(event.call);
        return;
      case 'tool-result':
        this.#tools.end(event.record);
        return;
      case 'compaction':
        // The event comes when the compaction is over: the span is made then, from its start.
        this.#tracer
          .startSpan(
            'compaction',
            {
              kind: SpanKind.INTERNAL,
              startTime: event.startedAt,
              attributes: {
                'mcphost.compaction.reason': event.reason,
                'mcphost.compaction.replaced_messages': event.replacedMessages,
                'mcphost.compaction.tokens_before': event.tokensBefore,
                'mcphost.compaction.tokens_after': event.tokensAfter,
              },
            },
            this.#context,
          )
          .end(Math.max(Date.now(), event.startedAt));
        return;
      case 'tool-mode':
        if (event.mode.kind === 'search') {
          this.#span.addEvent('tool_search', { 'mcphost.tool_search.reason': event.mode.reason });
        }
        return;
      case 'done':
        this.#span.setAttributes({
          [names.ATTR_GEN_AI_USAGE_INPUT_TOKENS]: event.result.usage.inputTokens,
          [names.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: event.result.usage.outputTokens,
        });
        if (this.#options.captureContent === true) {
          this.#span.setAttribute(names.ATTR_GEN_AI_OUTPUT_MESSAGES, captureText(event.result.text));
        }
        return;
      case 'text-delta':
      case 'reasoning-delta':
      case 'tool-call-delta':
        return;
      case 'agent-event':
        // A subagent's run has spans of its own: its Runner has this listener too and runs inside
        // the agent call's execute_tool span, so its invoke_agent span nests there.
        return;
      default: {
        const unexpected: never = event;
        return unexpected;
      }
    }
  }

  end(outcome: Parameters<RunObservation['end']>[0]): void {
    if (outcome.kind === 'failed') {
      const type = errorType(outcome.error);
      this.#endChat(type);
      this.#tools.endAll(type);
      this.#span.setAttribute(names.ATTR_ERROR_TYPE, type);
      this.#span.setStatus({ code: SpanStatusCode.ERROR, message: redactText(messageOf(outcome.error)) });
    }
    this.#span.end();
  }

  #startChat(attempt: number, started: number): void {
    const provider = this.#run.provider();
    const settings = this.#run.settings();
    const attributes: Attributes = {
      [names.ATTR_GEN_AI_OPERATION_NAME]: 'chat',
      [names.ATTR_GEN_AI_PROVIDER_NAME]: names.genAiProviderName(provider.name),
      [names.ATTR_GEN_AI_REQUEST_MODEL]: provider.model,
      // The conventions put these on the span and the duration metric alike.
      ...serverAttributes(provider.baseUrl),
    };
    this.#chat = {
      attempt,
      started,
      attributes,
      span: this.#tracer.startSpan(
        `chat ${provider.model}`,
        {
          kind: SpanKind.CLIENT,
          startTime: started,
          attributes: {
            ...attributes,
            [names.ATTR_MCPHOST_ATTEMPT]: attempt,
            ...definedNumbers({
              [names.ATTR_GEN_AI_REQUEST_MAX_TOKENS]: settings.maxTokens,
              [names.ATTR_GEN_AI_REQUEST_TEMPERATURE]: settings.temperature,
              [names.ATTR_GEN_AI_REQUEST_TOP_P]: settings.topP,
              [names.ATTR_GEN_AI_REQUEST_TOP_K]: settings.topK,
            }),
            ...(settings.stopSequences === undefined
              ? {}
              : { [names.ATTR_GEN_AI_REQUEST_STOP_SEQUENCES]: [...settings.stopSequences] }),
          },
        },
        this.#context,
      ),
    };
  }

  #endChat(failure: string | undefined): void {
    const chat = this.#chat;
    if (chat === undefined) return;
    this.#chat = undefined;
    if (failure !== undefined) {
      chat.span.setAttribute(names.ATTR_ERROR_TYPE, failure);
      chat.span.setStatus({ code: SpanStatusCode.ERROR });
    }
    const ended = Date.now();
    chat.span.end(Math.max(ended, chat.started));
    this.#instruments.operationDuration.record(Math.max(0, ended - chat.started) / 1000, {
      ...chat.attributes,
      ...(failure === undefined ? {} : { [names.ATTR_ERROR_TYPE]: failure }),
    });
  }
}

/** `error.type`: the HTTP status of a vendor's refusal, else the error's class. */
export function errorType(error: unknown): string {
  if (error instanceof ProviderError && error.status !== undefined) return String(error.status);
  if (error instanceof Error) return error.name;
  return '_OTHER';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The conventions' finish reasons (`tool_calls`, `content_filter`). */
function finishReasonName(reason: string): string {
  return reason.replace('-', '_');
}

function definedNumbers(values: Record<string, number | undefined>): Record<string, number> {
  const result: Record<string, number> = {};
  for (const [key, value] of Object.entries(values)) if (value !== undefined) result[key] = value;
  return result;
}
