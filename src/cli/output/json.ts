/**
 * `--output-format json` (one {@link JsonResult} at the end) and `stream-json` (one
 * {@link StreamEvent} per line as things happen, the same JsonResult last). stdout holds JSON only;
 * notes (retries included) and the one-line error stay on stderr, for the humans reading a CI log.
 */
import { jsonAgentEvent } from './agent-records.js';
import type { OfferingsChange } from '../../mcp/offerings-changes.js';
import type { ToolProgress } from '../../mcp/server-connection.js';
import type { RunResult, RunnerEvent } from '../../core/events.js';
import { describeError, ExitCode, type ExitCodeValue } from '../exit-codes.js';
import { notice, type CliIO } from '../io.js';
import {
  failureStopReason,
  jsonError,
  jsonToolCall,
  jsonToolCallRequest,
  RunTracker,
  type ToolAddress,
} from './records.js';
import type { KnownDetails, Reporter, RunContext } from './reporter-contract.js';
import {
  compactionNotice,
  retryNotice,
  toolCallingNotice,
  toolModeNotice,
  toolSearchNotice,
} from './text.js';
import type { JsonResult, JsonServer, StreamEvent } from './schema.js';
import { definedProperties } from '../../util/defined-properties.js';

interface JsonReporterOptions {
  readonly quiet: boolean;
  readonly debug: boolean;
  readonly now: () => number;
}

/** What both JSON formats share: the tracker, what is known, and the final object. */
class JsonOutcome {
  readonly tracker = new RunTracker();
  directory: ReadonlyMap<string, ToolAddress> = new Map();
  known: KnownDetails = {};
  /** The servers as the run started with them, once started. */
  servers: readonly JsonServer[] | undefined;
  readonly #startedAt: number;
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
    this.#startedAt = now();
  }

  result(exitCode: ExitCodeValue, outcome: { result: RunResult } | { error: unknown }): JsonResult {
    const summary = this.tracker.summary(this.directory, 'result' in outcome ? outcome.result : undefined);
    const failure = 'error' in outcome ? outcome.error : undefined;
    return {
      type: 'result',
      ok: exitCode === ExitCode.ok,
      exitCode,
      text: summary.text,
      ...('result' in outcome && 'structured' in outcome.result
        ? { structured: outcome.result.structured }
        : {}),
      stopReason: 'result' in outcome ? outcome.result.stopReason : failureStopReason(failure),
      steps: summary.steps,
      toolCalls: summary.toolCalls,
      usage: summary.usage,
      ...(this.tracker.agents.runs.length === 0 ? {} : { agents: this.tracker.agents.runs }),
      ...definedProperties({ model: this.known.model }),
      durationMs: Math.max(0, Math.round(this.#now() - this.#startedAt)),
      ...definedProperties({ sessionFile: this.known.sessionFile, servers: this.servers }),
      ...('error' in outcome ? { error: jsonError(failure) } : {}),
    };
  }
}

function jsonServers(servers: RunContext['servers']): readonly JsonServer[] {
  return servers.map((server) => ({
    name: server.name,
    state: server.state,
    tools: server.toolCount,
    ...definedProperties({ error: server.lastError }),
    ...(server.state === 'failed' && server.stderrTail.length > 0 ? { stderr: server.stderrTail } : {}),
  }));
}

function directoryOf(context: RunContext): ReadonlyMap<string, ToolAddress> {
  return new Map(context.tools.map((tool) => [tool.exposedName, { server: tool.server, tool: tool.tool }]));
}

/** One JSON value on one line: easy for `jq`, and for tools that read line by line. */
function writeJson(io: CliIO, value: JsonResult | StreamEvent): void {
  io.stdout.write(`${JSON.stringify(value)}\n`);
}

/** `--output-format json`: one object, on one line, when the command ends. */
export class JsonReporter implements Reporter {
  protected readonly io: CliIO;
  protected readonly options: JsonReporterOptions;
  protected readonly outcome: JsonOutcome;

  constructor(io: CliIO, options: JsonReporterOptions) {
    this.io = io;
    this.options = options;
    this.outcome = new JsonOutcome(options.now);
  }

  identify(details: KnownDetails): void {
    this.outcome.known = { ...this.outcome.known, ...details };
  }

  start(context: RunContext): void {
    this.identify({ model: context.model });
    this.outcome.directory = directoryOf(context);
    this.outcome.servers = jsonServers(context.servers);
  }

  event(event: RunnerEvent): void {
    this.outcome.tracker.observe(event);
    if (event.type === 'retry') this.note(retryNotice(event));
    if (event.type === 'compaction') this.note(compactionNotice(event));
    if (event.type === 'tool-mode') {
      if (this.options.debug) this.note(toolModeNotice(event.mode));
      else if (event.mode.kind === 'search') this.note(toolSearchNotice(event.mode));
      if (event.calling !== undefined) this.note(toolCallingNotice(event.calling));
    }
  }

  note(message: string | readonly string[]): void {
    if (!this.options.quiet) notice(this.io, message);
  }

  succeed(result: RunResult): void {
    writeJson(this.io, this.outcome.result(ExitCode.ok, { result }));
  }

  fail(error: unknown, exitCode: ExitCodeValue): void {
    this.io.stderr.write(`${describeError(error, this.options.debug)}\n`);
    this.announceFailure(error);
    writeJson(this.io, this.outcome.result(exitCode, { error }));
  }

  /** What goes out before the result object of a failure: nothing here, an `error` event when streaming. */
  protected announceFailure(_error: unknown): void {
    // The result object carries the error.
  }
}

/** `--output-format stream-json`: one compact JSON object per line, as the run goes. */
export class StreamJsonReporter extends JsonReporter {
  override start(context: RunContext): void {
    super.start(context);
    const { sessionFile } = this.outcome.known;
    writeJson(this.io, {
      type: 'start',
      model: context.model,
      servers: this.outcome.servers ?? [],
      tools: context.tools.length,
      ...definedProperties({ sessionFile }),
    });
  }

  override event(event: RunnerEvent): void {
    super.event(event);
    const { tracker, directory } = this.outcome;
    switch (event.type) {
      case 'text-delta':
        writeJson(this.io, { type: 'text-delta', step: tracker.step, text: event.text });
        return;
      case 'reasoning-delta':
        writeJson(this.io, { type: 'reasoning-delta', step: tracker.step, text: event.text });
        return;
      case 'tool-call':
        writeJson(this.io, {
          type: 'tool-call',
          step: tracker.step,
          ...jsonToolCallRequest(event.call, directory),
        });
        return;
      case 'tool-result':
        writeJson(this.io, {
          type: 'tool-result',
          step: tracker.step,
          ...jsonToolCall(event.record, directory),
        });
        return;
      case 'retry':
        writeJson(this.io, {
          type: 'retry',
          attempt: event.attempt,
          delayMs: Math.round(event.delayMs),
          error: jsonError(event.error),
        });
        return;
      case 'compaction':
        writeJson(this.io, {
          type: 'compaction',
          reason: event.reason,
          replacedMessages: event.replacedMessages,
          tokensBefore: event.tokensBefore,
          tokensAfter: event.tokensAfter,
          summary: event.summary,
        });
        return;
      case 'tool-mode':
        if (event.mode.kind === 'search') {
          const { mode } = event;
          writeJson(this.io, {
            type: 'tool-search',
            step: tracker.step,
            reason: mode.reason,
            tools: mode.total,
            toolTokens: mode.toolTokens,
            budgetTokens: mode.budgetTokens,
            windowTokens: mode.window.tokens,
            ...definedProperties({ vendorLimit: mode.vendorLimit }),
            message: toolSearchNotice(mode),
          });
        }
        return;
      case 'agent-event': {
        const line = jsonAgentEvent(event);
        if (line !== undefined) writeJson(this.io, line);
        return;
      }
      case 'step-start':
      case 'step-finish':
      case 'tool-call-delta': // the whole call is the `tool-call` line
      case 'done':
        return;
      default: {
        const unexpected: never = event;
        throw new TypeError(`unknown event ${JSON.stringify(unexpected)}`);
      }
    }
  }

  progress(report: ToolProgress): void {
    writeJson(this.io, {
      type: 'progress',
      step: this.outcome.tracker.step,
      ...definedProperties({ id: report.toolCallId }),
      server: report.server,
      tool: report.tool,
      progress: report.progress,
      ...definedProperties({ total: report.total, message: report.message }),
      // A call running as a task: its id and status (the tasks extension).
      ...(report.task === undefined ? {} : { task: { id: report.task.taskId, status: report.task.status } }),
    });
  }

  offeringsChange(change: OfferingsChange): void {
    const step = this.outcome.tracker.step;
    switch (change.type) {
      case 'resource-updated':
        writeJson(this.io, { type: 'resource-updated', step, server: change.server, uri: change.uri });
        return;
      case 'list-changed':
        writeJson(this.io, { type: 'list-changed', step, server: change.server, list: change.list });
        return;
      default: {
        const unexpected: never = change;
        throw new TypeError(`unknown change ${JSON.stringify(unexpected)}`);
      }
    }
  }

  protected override announceFailure(error: unknown): void {
    writeJson(this.io, { type: 'error', error: jsonError(error) });
  }
}
