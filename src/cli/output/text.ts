/**
 * `--output-format text` (the default): the answer streams to stdout; tool activity, retries and
 * notes go to stderr. Under `--quiet`, stdout gets the final answer alone, once it is complete, and
 * stderr gets errors only.
 */
import { oneLine } from '../chat/sanitize.js';
import type { RunResult, RunnerEvent } from '../../core/events.js';
import type { ToolMode } from '../../context/tool-catalog.js';
import type { ToolCalling } from '../../core/tool-calling/calling-mode.js';
import { TOOL_SEARCH_NAME } from '../../context/tool-search.js';
import { describeToolCall, describeToolResult, type ToolOrigin } from '../activity.js';
import { describeError, type ExitCodeValue } from '../exit-codes.js';
import { agentProgressLine } from '../agent-lines.js';
import { notice, type CliIO } from '../io.js';
import type { KnownDetails, Reporter, RunContext } from './reporter-contract.js';

/** Streams text to stdout and keeps lines tidy between steps and at the end. */
export class AnswerWriter {
  readonly #io: CliIO;
  #atLineStart = true;

  constructor(io: CliIO) {
    this.#io = io;
  }

  write(text: string): void {
    if (text === '') return;
    this.#io.stdout.write(text);
    this.#atLineStart = text.endsWith('\n');
  }

  /** Ends the current line if text was left without a newline. */
  breakLine(): void {
    if (!this.#atLineStart) this.write('\n');
  }

  finish(): void {
    this.breakLine();
  }
}

/** The note shown on stderr when a model call is tried again (in every output format). */
export function retryNotice(event: Extract<RunnerEvent, { type: 'retry' }>): string {
  return `${oneLine(event.error.message)} — retrying in ${(event.delayMs / 1000).toFixed(1)}s (retry ${event.attempt})`;
}

/** The line that tells the user a compaction happened. */
export function compactionNotice(
  event: Omit<Extract<RunnerEvent, { type: 'compaction' }>, 'startedAt'>,
): string {
  const why =
    event.reason === 'threshold'
      ? 'the context was nearly full'
      : event.reason === 'context-length'
        ? 'the model refused the request as too long'
        : 'asked for';
  return (
    `compacted the conversation (${why}): ${event.replacedMessages} older messages summarized, ` +
    `about ${formatTokens(event.tokensBefore)} → ${formatTokens(event.tokensAfter)} tokens`
  );
}

/**
 * The one line that says tools are called by prompt (and why, and how to turn it off) or not at
 * all (issue 41); the chat and `-p` show it on stderr once, and again only when it changes.
 */
export function toolCallingNotice(calling: Exclude<ToolCalling, { kind: 'native' }>): string {
  switch (calling.kind) {
    case 'none':
      return 'tool calling off (toolCalling "none"): a plain conversation, the model gets no tools and no call is run';
    case 'prompt': {
      const why =
        calling.reason === 'configured'
          ? 'toolCalling is "prompt"'
          : calling.reason === 'model-lacks-tools'
            ? `${calling.model} has no native tool calling${calling.detail === undefined ? '' : ` (${calling.detail})`}`
            : `the server refused tools for ${calling.model} (${calling.detail ?? 'no details'})`;
      return (
        `prompted tool calling on: ${why}, so the tools are described in the prompt and each answer is held ` +
        'to a call or a reply; --tool-calling native or none turns it off'
      );
    }
    default: {
      const unexpected: never = calling;
      throw new TypeError(`unknown tool calling ${JSON.stringify(unexpected)}`);
    }
  }
}

/**
 * The one line that says the model gets the tool search instead of every definition, why, and how
 * to turn it off: shown by the chat's banner and `/tools`, and on stderr by `-p` (issue 26).
 */
export function toolSearchNotice(mode: Extract<ToolMode, { kind: 'search' }>): string {
  switch (mode.reason) {
    case 'window-share':
      return (
        `tool search on: ${mode.total} tool definitions (about ${formatTokens(mode.toolTokens)} tokens) pass ` +
        `${Math.round(mode.share * 100)}% of the ${formatTokens(mode.window.tokens)} window; --tool-search never turns it off`
      );
    case 'vendor-limit':
      return (
        `tool search on: ${mode.total} tools pass the vendor's limit of ${mode.vendorLimit ?? '?'} a request; ` +
        '--tool-search never turns it off (the vendor then refuses the request)'
      );
    case 'always':
      return `tool search on: toolSearch is "always" (${mode.total} tools); --tool-search auto turns it on only when needed`;
    default: {
      const unexpected: never = mode.reason;
      throw new TypeError(`unknown tool search reason ${String(unexpected)}`);
    }
  }
}

/** The line that says which tool definitions the model gets (the search one is shown without `--debug`). */
export function toolModeNotice(mode: ToolMode): string {
  switch (mode.kind) {
    case 'all':
      return `tools: all ${mode.tools} definitions are sent at each step`;
    case 'search':
      return `${toolSearchNotice(mode)} (the model gets ${TOOL_SEARCH_NAME} and the ${mode.loaded} tools it loaded)`;
    default: {
      const unexpected: never = mode;
      throw new TypeError(`unknown tool mode ${JSON.stringify(unexpected)}`);
    }
  }
}

/** `1234` → `1.2k`, `56789` → `57k`. */
export function formatTokens(tokens: number): string {
  if (tokens < 1000) return String(tokens);
  if (tokens < 10_000) return `${(tokens / 1000).toFixed(1)}k`;
  if (tokens < 1_000_000) return `${Math.round(tokens / 1000)}k`;
  return `${(tokens / 1_000_000).toFixed(1)}M`;
}

/**
 * Shows a run's events as they happen: text to stdout, everything else to stderr. `origins` (exposed
 * name → server and tool) adds the real name to a tool line whose exposed name was shortened;
 * the tool search is always said, and `debug` adds the line for every definition sent.
 */
export function reportEvent(
  event: RunnerEvent,
  io: CliIO,
  output: AnswerWriter,
  origins: ReadonlyMap<string, ToolOrigin> = new Map(),
  debug = false,
): void {
  switch (event.type) {
    case 'text-delta':
      output.write(event.text);
      return;
    case 'tool-call':
      output.breakLine();
      io.stderr.write(`${describeToolCall(event.call, origins.get(event.call.name))}\n`);
      return;
    case 'tool-result':
      io.stderr.write(`${describeToolResult(event.record)}\n`);
      return;
    case 'retry':
      notice(io, retryNotice(event));
      return;
    case 'compaction':
      notice(io, compactionNotice(event));
      return;
    case 'step-finish':
      output.breakLine();
      return;
    case 'tool-mode':
      if (debug) notice(io, toolModeNotice(event.mode));
      else if (event.mode.kind === 'search') notice(io, toolSearchNotice(event.mode));
      // The Runner says it at a run's start and when it changes: once for `-p`.
      if (event.calling !== undefined) notice(io, toolCallingNotice(event.calling));
      return;
    case 'agent-event': {
      const line = agentProgressLine(event);
      if (line !== undefined) io.stderr.write(`${line}\n`);
      return;
    }
    case 'reasoning-delta': // -p prints the answer only: reasoning goes to stream-json and ACP
    case 'step-start':
    case 'tool-call-delta':
    case 'done':
      return;
    default: {
      const unexpected: never = event;
      throw new TypeError(`unknown event ${JSON.stringify(unexpected)}`);
    }
  }
}

export class TextReporter implements Reporter {
  readonly #io: CliIO;
  readonly #quiet: boolean;
  readonly #debug: boolean;
  readonly #output: AnswerWriter;
  /** `--output-schema`: stdout gets the validated JSON alone, at the end. */
  readonly #structured: boolean;
  #origins: ReadonlyMap<string, ToolOrigin> = new Map();

  constructor(io: CliIO, quiet: boolean, debug: boolean, structured = false) {
    this.#io = io;
    this.#structured = structured;
    this.#quiet = quiet;
    this.#debug = debug;
    this.#output = new AnswerWriter(io);
  }

  identify(_details: KnownDetails): void {
    // Text output names neither the model nor the session file.
  }

  start(context: RunContext): void {
    // Nothing to show (the answer is the output); the tools' real names are kept for tool lines.
    this.#origins = new Map(
      context.tools.map((tool) => [tool.exposedName, { server: tool.server, tool: tool.tool }]),
    );
  }

  event(event: RunnerEvent): void {
    if (this.#quiet || (this.#structured && event.type === 'text-delta')) return;
    reportEvent(event, this.#io, this.#output, this.#origins, this.#debug);
  }

  note(message: string | readonly string[]): void {
    if (!this.#quiet) notice(this.#io, message);
  }

  succeed(result: RunResult): void {
    // Under --quiet nothing was streamed: the final answer is written whole, now that it is known.
    // With --output-schema, the value the Runner validated (an answer in a code fence or a wrapped
    // one comes out plain), whatever was refused before it.
    if (this.#structured && 'structured' in result) this.#output.write(JSON.stringify(result.structured));
    else if (this.#quiet) this.#output.write(result.text);
    this.#output.finish();
    if (result.stopReason === 'length')
      this.note('the answer was cut at the token limit (raise --max-tokens)');
    if (result.stopReason === 'content-filter') this.note("the provider's content filter stopped the answer");
  }

  fail(error: unknown, _exitCode: ExitCodeValue): void {
    this.#output.finish();
    this.#io.stderr.write(`${describeError(error, this.#debug)}\n`);
  }
}
