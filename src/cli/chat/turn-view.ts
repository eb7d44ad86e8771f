/**
 * One turn on screen: a spinner while the model thinks and while tools run, the answer as it
 * streams (rendered when complete), each tool call and its result as they happen, retries, and at
 * the end the turn's token counts or what went wrong.
 */
import { agentProgressLine } from '../agent-lines.js';
import { unwrapAgentEvent } from '../output/agent-records.js';
import { oneLine } from './sanitize.js';
import { AbortedError } from '../../core/errors.js';
import type { RunnerEvent, RunResult } from '../../core/events.js';
import type { ToolCallBlock } from '../../core/types.js';
import { formatSeconds } from '../activity.js';
import { describeFailure } from '../exit-codes.js';
import { AnswerStream } from './answer-stream.js';
import type { Display } from './display.js';
import type { MarkdownRenderer } from './markdown.js';
import type { ShowOptions, StatusIndicator } from './status-line.js';
import {
  runningLabel,
  toolCallLine,
  toolResultLines,
  type CallProgress,
  type ToolOrigin,
} from './tool-lines.js';
import { formatCount, UsageTotals } from './usage.js';
import type { ContextUsage } from '../../context/context-budget.js';
import { compactionNotice, toolCallingNotice, toolModeNotice, toolSearchNotice } from '../output/text.js';
import type { ToolMode } from '../../context/tool-catalog.js';
import { contextLine } from './listings.js';
import { definedProperties } from '../../util/defined-properties.js';

export interface TextSink {
  write(text: string): void;
}

/** A line shown once and again only when it changes (the tool-search line), shared by the turns. */
export interface ShownLine {
  text: string | undefined;
  /** The tool-calling line last shown (prompted or none), said again only when it changes. */
  calling?: string | undefined;
}

export interface TurnViewOptions {
  /** The answer, tool activity and the usage line. */
  readonly stdout: TextSink;
  /** Errors and retries. */
  readonly stderr: TextSink;
  readonly display: Display;
  readonly status: StatusIndicator;
  /** The markdown renderer once loaded (undefined before, or on a plain display). */
  readonly renderer: () => MarkdownRenderer | undefined;
  /** exposed name → server and tool, for tool lines and the spinner. */
  readonly origins: ReadonlyMap<string, ToolOrigin>;
  /** Session totals, which this turn adds to. */
  readonly usage: UsageTotals;
  /** Context use after the turn (the runner's), shown dimmed with the token line. */
  readonly contextUsage?: () => ContextUsage | undefined;
  readonly debug: boolean;
  /** The tool-search line last shown; a turn whose mode says otherwise shows its own. */
  readonly toolSearchShown?: ShownLine;
  /** The clock, for leaving question time out of a tool's duration. Default `Date.now`. */
  readonly now?: () => number;
}

/** The spinner is away while the user is asked something; about a tool call, if `toolCallId`. */
interface Suspension {
  readonly since: number;
  toolCallId: string | undefined;
}

export class TurnView {
  readonly #options: TurnViewOptions;
  readonly #answer: AnswerStream;
  readonly #running: ToolCallBlock[] = [];
  readonly #turnUsage = new UsageTotals();
  #label = 'thinking';
  #suspension: Suspension | undefined;
  /** Time the user took to answer questions about a call (its approval), by call id. */
  readonly #answeringMs = new Map<string, number>();
  /** The last progress each running call reported, by call id. */
  readonly #progress = new Map<string, CallProgress>();
  /** Characters of reasoning the model streamed in this step (the status line counts them). */
  #reasoning = 0;

  constructor(options: TurnViewOptions) {
    this.#options = options;
    this.#answer = new AnswerStream(
      {
        write: (text) => options.stdout.write(text),
        columns: () => options.display.columns(),
        rows: () => options.display.rows(),
      },
      options.display.rich,
      options.renderer,
    );
  }

  start(): void {
    this.#options.usage.addTurn();
    // The spinner keeps its label between turns: the clock must start again all the same.
    this.#showStatus('thinking', { restartClock: true });
  }

  onEvent(event: RunnerEvent): void {
    switch (event.type) {
      case 'step-start':
        this.#reasoning = 0;
        if (event.step > 1) this.#showStatus('thinking');
        return;
      case 'reasoning-delta':
        // Reasoning stays off the screen: it runs to thousands of words, and printed (even dimmed)
        // it would bury the answer in the scrollback. The status line says the model is thinking,
        // and how much, which is what a person waiting needs; an editor (ACP) gets the text itself.
        this.#reasoning += event.text.length;
        if (this.#answer.empty) {
          this.#showStatus(`thinking · ${formatCount(this.#reasoning)} characters of reasoning`, {
            keepClock: true,
          });
        }
        return;
      case 'text-delta':
        this.#options.status.hide();
        this.#answer.write(event.text);
        return;
      case 'tool-call':
        this.#endAnswer('render');
        this.#running.push(event.call);
        this.#print(
          `${toolCallLine(event.call, this.#options.origins.get(event.call.name), this.#style, this.#columns)}\n`,
        );
        this.#showStatus(this.#runningLabel());
        return;
      case 'tool-result': {
        const index = this.#running.findIndex((call) => call.id === event.record.call.id);
        if (index !== -1) this.#running.splice(index, 1);
        this.#progress.delete(event.record.call.id);
        // The call's time is the tool's: the time its approval question was on screen is left out.
        const answering = this.#answeringMs.get(event.record.call.id) ?? 0;
        const record = { ...event.record, durationMs: Math.max(0, event.record.durationMs - answering) };
        this.#print(`${toolResultLines(record, this.#style, this.#columns)}\n`);
        this.#showStatus(this.#running.length > 0 ? this.#runningLabel() : 'thinking');
        return;
      }
      case 'retry': {
        this.#endAnswer('raw');
        const wait = formatSeconds(event.delayMs);
        const line = `${oneLine(event.error.message)} — retrying in ${wait} (retry ${event.attempt})`;
        this.#print(`${this.#style.yellow(`⟳ ${line}`)}\n`, 'stderr');
        this.#showStatus(`waiting ${wait} to retry`);
        return;
      }
      case 'step-finish':
        this.#endAnswer('render');
        this.#options.usage.addModelCall(event.usage);
        this.#turnUsage.addModelCall(event.usage);
        return;
      case 'compaction':
        this.#print(`${this.#style.dim(`⟲ ${compactionNotice(event)}`)}\n`);
        this.#showStatus('thinking');
        return;
      case 'tool-mode':
        this.#showToolMode(event.mode);
        this.#showToolCalling(event.calling);
        return;
      case 'agent-event': {
        // A child's calls, indented under the agent call that runs it; its tokens count in /usage.
        const { event: child } = unwrapAgentEvent(event);
        if (child.type === 'step-finish') this.#options.usage.addModelCall(child.usage);
        const line = agentProgressLine(event, {
          call: (call) =>
            toolCallLine(call, this.#options.origins.get(call.name), this.#style, this.#columns),
          result: (record) => toolResultLines(record, this.#style, this.#columns).trimStart(),
          dim: (text) => this.#style.dim(text),
        });
        if (line !== undefined) {
          this.#endAnswer('render');
          this.#print(`${line}\n`);
          this.#showStatus(this.#running.length > 0 ? this.#runningLabel() : 'thinking');
        }
        return;
      }
      case 'tool-call-delta': // the call is shown whole, at its `tool-call` event
      case 'done':
        return;
      default: {
        const unexpected: never = event;
        throw new TypeError(`unknown runner event ${JSON.stringify(unexpected)}`);
      }
    }
  }

  /**
   * Takes the spinner off the screen and ends any answer line, to ask the user something; about
   * the tool call `toolCallId` (its approval), whose duration then leaves that time out.
   */
  suspend(toolCallId?: string): void {
    if (this.#suspension === undefined) this.#suspension = { since: this.#now(), toolCallId };
    else this.#suspension.toolCallId ??= toolCallId;
    this.#options.status.hide();
    this.#endAnswer('render');
  }

  /** Brings the spinner back after {@link suspend}. */
  resume(): void {
    const suspension = this.#suspension;
    this.#suspension = undefined;
    if (suspension?.toolCallId === undefined) {
      this.#showStatus(this.#label);
      return;
    }
    const { toolCallId } = suspension;
    const answering = (this.#answeringMs.get(toolCallId) ?? 0) + (this.#now() - suspension.since);
    this.#answeringMs.set(toolCallId, answering);
    // The tool starts once approved: its clock on the spinner too.
    this.#showStatus(this.#label, { restartClock: true });
  }

  /**
   * A running call reported progress (`notifications/progress`): the spinner says how far it is,
   * its clock going on. Reports for calls not running (late, or of another turn) are ignored.
   */
  progress(report: { readonly toolCallId?: string } & CallProgress): void {
    const id = report.toolCallId;
    if (id === undefined || !this.#running.some((call) => call.id === id)) return;
    this.#progress.set(id, {
      progress: report.progress,
      ...definedProperties({ total: report.total, message: report.message }),
    });
    this.#showStatus(this.#runningLabel(), { keepClock: true });
  }

  /** The terminal was resized while the answer streams. */
  terminalResized(): void {
    this.#answer.terminalResized();
  }

  /** The turn ended with an answer. */
  succeeded(result: RunResult): void {
    this.#close('render');
    if (result.stopReason === 'length') {
      this.#print(`${this.#style.yellow('(the answer was cut at the token limit: raise --max-tokens)')}\n`);
    } else if (result.stopReason === 'content-filter') {
      this.#print(`${this.#style.yellow("(the provider's content filter stopped the answer)")}\n`);
    }
    this.#printUsage();
  }

  /** The turn failed or was cancelled; the chat goes on. */
  failed(error: unknown): void {
    this.#close('raw');
    if (error instanceof AbortedError) {
      this.#print(`${this.#style.yellow('⏹ cancelled')}\n`);
    } else {
      const message = describeFailure(error, this.#options.debug);
      this.#print(`${this.#style.red(`✗ ${message}`)}\n`, 'stderr');
    }
    this.#printUsage();
  }

  get #style() {
    return this.#options.display.style;
  }

  get #columns(): number {
    return this.#options.display.columns();
  }

  /**
   * The tool-search line, when the search is on and the line differs from the one last shown (the
   * banner's, usually): every turn starts with a tool-mode event, and repeating it would be noise.
   * `--debug` also shows the line for every definition sent, each turn.
   */
  #showToolMode(mode: ToolMode): void {
    const shown = this.#options.toolSearchShown ?? { text: undefined };
    const line = mode.kind === 'search' ? toolSearchNotice(mode) : undefined;
    const changed = line !== shown.text;
    shown.text = line;
    if (this.#options.debug) {
      this.#print(`${this.#style.dim(toolModeNotice(mode))}\n`, 'stderr');
    } else if (line !== undefined && changed) {
      this.#print(`${this.#style.yellow(line)}\n`, 'stderr');
    }
  }

  #showToolCalling(calling: Extract<RunnerEvent, { type: 'tool-mode' }>['calling']): void {
    const shown = this.#options.toolSearchShown ?? { text: undefined };
    const line = calling === undefined ? undefined : toolCallingNotice(calling);
    if (line === undefined || line === shown.calling) return;
    shown.calling = line;
    this.#print(`${this.#style.yellow(line)}\n`, 'stderr');
  }

  #close(end: 'render' | 'raw'): void {
    this.#options.status.hide();
    this.#running.length = 0;
    this.#progress.clear();
    this.#answer.finish(end);
  }

  #printUsage(): void {
    const usage = this.#turnUsage;
    const context = this.#options.contextUsage?.();
    const parts = usage.reported
      ? [`${formatCount(usage.inputTokens)} tokens in · ${formatCount(usage.outputTokens)} out`]
      : [];
    if (context !== undefined) parts.push(contextLine(context));
    if (parts.length === 0) return;
    this.#print(`${this.#style.dim(parts.join(' · '))}\n`);
  }

  #endAnswer(end: 'render' | 'raw'): void {
    if (!this.#answer.empty) this.#answer.finish(end);
  }

  #showStatus(label: string, options?: ShowOptions): void {
    this.#label = label;
    if (this.#suspension === undefined) this.#options.status.show(label, options);
  }

  #runningLabel(): string {
    return runningLabel(this.#running, this.#options.origins, this.#progress);
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  /** Writes whole lines, with the spinner out of the way (callers show it again if needed). */
  #print(text: string, stream: 'stdout' | 'stderr' = 'stdout'): void {
    this.#options.status.hide();
    this.#endAnswer('raw');
    this.#options[stream].write(text);
  }
}
