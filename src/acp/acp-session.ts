/**
 * One editor session: a runner (its own servers: the configured ones and the editor's), the
 * conversation it saves, its approval mode, and the turn in progress. A turn's runner events
 * become `session/update` notifications; its end becomes the prompt's stop reason.
 */
import type {
  ContentBlock,
  PromptResponse,
  SessionConfigOption,
  SessionUpdate,
  StopReason,
} from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import {
  AbortedError,
  ConfigError,
  MaxStepsError,
  messageOf,
  ProviderError,
  TokenBudgetError,
} from '../core/errors.js';
import type { AgentEvent, RunnerEvent, StopReason as RunStopReason } from '../core/events.js';
import type { McpRunner } from '../setup/create-runner.js';
import { knownModels, providerForSwitch, type ModelStart } from '../setup/model-switch.js';
import type { UserContent } from '../core/types.js';
import type { TodoItem } from '../builtin/todo-server.js';
import { DEFAULT_MODE, type SessionModeId } from './modes.js';
import { modelOption } from './model-option.js';
import { planOf } from './plan.js';
import { userContentOf } from './prompt-content.js';
import { toolCallOf, toolResultUpdateOf, type LocateTool } from './tool-updates.js';
import type { ToolCallLinks } from './tool-call-links.js';
import type { UpdateSender } from './update-sender.js';

/** The JSON-RPC error code of a failed model call (the server-error range JSON-RPC leaves to us). */
export const PROVIDER_FAILURE_CODE = -32001;

/** What the session says to the editor besides the answer: retries, servers that failed. */
export interface Notices {
  /** The client said it shows `notice` updates (`clientCapabilities.session.notices`). */
  readonly supported: boolean;
}

export interface AcpSessionParts {
  readonly id: string;
  readonly cwd: string;
  readonly runner: McpRunner;
  readonly sender: UpdateSender;
  readonly notices: Notices;
  readonly log: (line: string) => void;
  /** What the built-in servers did for a call (its terminal, its diff), to show with it. */
  readonly links: ToolCallLinks;
  /** The model the session started with, and what a change of model needs. */
  readonly modelStart: ModelStart;
}

type TurnState =
  { readonly kind: 'idle' } | { readonly kind: 'running'; readonly controller: AbortController };

export class AcpSession {
  readonly #parts: AcpSessionParts;
  #mode: SessionModeId = DEFAULT_MODE;
  #turn: TurnState = { kind: 'idle' };
  #model: string;
  /** Warnings for the editor that came before it could be told (a server that failed to start). */
  readonly #pending: string[] = [];

  constructor(parts: AcpSessionParts) {
    this.#parts = parts;
    this.#model = parts.modelStart.modelString;
  }

  get id(): string {
    return this.#parts.id;
  }

  get cwd(): string {
    return this.#parts.cwd;
  }

  get runner(): McpRunner {
    return this.#parts.runner;
  }

  get mode(): SessionModeId {
    return this.#mode;
  }

  set mode(next: SessionModeId) {
    this.#mode = next;
  }

  get sender(): UpdateSender {
    return this.#parts.sender;
  }

  /** The session's config options: the model, with the models mcphost knows of. */
  async configOptions(): Promise<SessionConfigOption[]> {
    return [modelOption(this.#model, await knownModels(this.#parts.modelStart, this.#model))];
  }

  /** Another model for the next prompt (`session/set_config_option`); the conversation goes on. */
  async setModel(model: string): Promise<void> {
    if (this.#turn.kind === 'running') {
      throw RequestError.invalidRequest(undefined, 'the model cannot change while a prompt runs');
    }
    let provider: Awaited<ReturnType<typeof providerForSwitch>>;
    try {
      provider = await providerForSwitch(model, this.#parts.modelStart, 'session/set_config_option');
    } catch (error) {
      if (error instanceof ConfigError) throw RequestError.invalidParams({ value: model }, error.message);
      throw requestErrorOf(error);
    }
    const replaced = this.#parts.runner.provider;
    this.#parts.runner.provider = provider;
    this.#model = model;
    // An embedded model holds gigabytes: the one switched away from is released now (as /model does).
    await replaced.close?.();
  }

  /** A warning for the editor, shown at the next prompt (or at once during one). */
  warn(message: string): void {
    this.#parts.log(message);
    if (this.#turn.kind === 'running') this.#notice('warning', message);
    else this.#pending.push(message);
  }

  /** Runs one prompt turn; resolves with its stop reason once every update of it is sent. */
  async prompt(prompt: readonly ContentBlock[]): Promise<PromptResponse> {
    if (this.#turn.kind === 'running') {
      throw RequestError.invalidRequest(undefined, 'a prompt is already running in this session');
    }
    const controller = new AbortController();
    this.#turn = { kind: 'running', controller };
    for (const message of this.#pending.splice(0)) this.#notice('warning', message);
    const locate: LocateTool = (name) => this.#parts.runner.pool.locate(name);
    try {
      const content = await this.#expand(userContentOf(prompt), controller.signal);
      const result = await this.#parts.runner.run(content, {
        signal: controller.signal,
        onEvent: (event) => this.#onEvent(event, locate),
      });
      return { stopReason: stopReasonOf(result.stopReason) };
    } catch (error) {
      // Cancelled: whatever the failure looks like (an aborted stream, a refused tool), it is a cancel.
      if (controller.signal.aborted || error instanceof AbortedError) return { stopReason: 'cancelled' };
      if (error instanceof MaxStepsError) return { stopReason: 'max_turn_requests' };
      // The spec's "the maximum number of tokens": here the session's budget (budgets.maxTokens),
      // named in a notice so the user knows which limit and where to raise it.
      if (error instanceof TokenBudgetError) {
        this.#notice('warning', error.message);
        return { stopReason: 'max_tokens' };
      }
      throw requestErrorOf(error);
    } finally {
      this.#turn = { kind: 'idle' };
      this.#parts.links.clear();
      await this.#parts.sender.flushed();
    }
  }

  /**
   * `/server:prompt ARGS` (a command of `available_commands_update`) and `@server:uri` mentions in
   * the text, filled in as the chat fills them in; text naming no configured server stays as it is.
   */
  async #expand(content: readonly UserContent[], signal: AbortSignal): Promise<UserContent[]> {
    const expanded: UserContent[] = [];
    for (const block of content) {
      if (block.type !== 'text') {
        expanded.push(block);
        continue;
      }
      let turn: Awaited<ReturnType<McpRunner['mcp']['expandUserTurn']>>;
      try {
        turn = await this.#parts.runner.mcp.expandUserTurn(block.text, { signal });
      } catch (error) {
        if (signal.aborted) throw error;
        throw RequestError.invalidParams(undefined, messageOf(error));
      }
      for (const note of turn.notes) this.#parts.log(note);
      expanded.push(...turn.content);
    }
    return expanded;
  }

  /** The servers' MCP prompts, as the editor's slash commands (`/server:prompt`). */
  async announceCommands(): Promise<void> {
    const prompts = await this.#parts.runner.mcp.listPrompts().catch(() => []);
    this.#send({
      sessionUpdate: 'available_commands_update',
      availableCommands: prompts.map((prompt) => ({
        name: `${prompt.server}:${prompt.name}`,
        description: prompt.description ?? prompt.title ?? `the ${prompt.name} prompt of ${prompt.server}`,
        ...(prompt.arguments.length === 0
          ? {}
          : { input: { hint: prompt.arguments.map((argument) => argument.name).join(' ') } }),
      })),
    });
    await this.#parts.sender.flushed();
  }

  /** `session/cancel`: the model request and running tool calls are aborted, pending questions dropped. */
  cancel(): void {
    if (this.#turn.kind === 'running')
      this.#turn.controller.abort(new AbortedError('cancelled by the editor'));
  }

  /** The running turn's signal (aborted by session/cancel), if a turn runs. */
  get turnSignal(): AbortSignal | undefined {
    return this.#turn.kind === 'running' ? this.#turn.controller.signal : undefined;
  }

  /** The built-in bash runs a command in the editor's terminal: shown inside its tool call. */
  showTerminal(command: string, terminalId: string): void {
    const toolCallId = this.#parts.links.terminalStarted(command, terminalId);
    if (toolCallId === undefined) return;
    this.#send({
      sessionUpdate: 'tool_call_update',
      toolCallId,
      status: 'in_progress',
      content: [{ type: 'terminal', terminalId }],
    });
  }

  /** The built-in to-do list changed: the editor's plan is the whole list. */
  showPlan(items: readonly TodoItem[]): void {
    this.#send(planOf(items));
  }

  #send(update: SessionUpdate): void {
    this.#parts.sender.send(update);
  }

  /** A notice where the client shows them, else a line of the agent's message. */
  #notice(severity: 'info' | 'warning', text: string): void {
    if (this.#parts.notices.supported) {
      this.#send({ sessionUpdate: 'notice', severity, title: text });
      return;
    }
    this.#send({
      sessionUpdate: 'agent_thought_chunk',
      content: { type: 'text', text: `mcphost: ${text}\n` },
    });
  }

  /**
   * A subagent's tool calls are shown as calls of their own, titled with the agent's name, so the
   * editor sees what the agent does; its text comes back as the agent tool's result. The ids are
   * the parent call's id and the child's, as a child's id is unique only within its own run.
   */
  #onAgentEvent(event: AgentEvent, locate: LocateTool): void {
    const inner = event.event;
    const idOf = (callId: string): string => `${event.toolCallId}/${callId}`;
    switch (inner.type) {
      case 'tool-call': {
        const call = toolCallOf(inner.call, locate);
        this.#send({
          sessionUpdate: 'tool_call',
          ...call,
          toolCallId: idOf(inner.call.id),
          title: `${event.agent}: ${call.title}`,
        });
        return;
      }
      case 'tool-result':
        this.#send({
          sessionUpdate: 'tool_call_update',
          ...toolResultUpdateOf(inner.record.result),
          toolCallId: idOf(inner.record.call.id),
        });
        return;
      case 'agent-event':
        this.#onAgentEvent({ ...inner, toolCallId: idOf(inner.toolCallId) }, locate);
        return;
      case 'text-delta':
      case 'reasoning-delta':
      case 'tool-call-delta':
      case 'retry':
      case 'step-start':
      case 'step-finish':
      case 'compaction':
      case 'tool-mode':
      case 'done':
        return;
      default: {
        const unexpected: never = inner;
        throw new TypeError(`unknown runner event ${JSON.stringify(unexpected)}`);
      }
    }
  }

  #onEvent(event: RunnerEvent, locate: LocateTool): void {
    switch (event.type) {
      case 'text-delta':
        this.#send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: event.text } });
        return;
      case 'reasoning-delta':
        this.#send({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: event.text } });
        return;
      case 'tool-call':
        this.#parts.links.started(event.call, locate(event.call.name)?.server);
        this.#send({ sessionUpdate: 'tool_call', ...toolCallOf(event.call, locate) });
        return;
      case 'tool-result': {
        const { call, result } = event.record;
        const shown = this.#parts.links.finished(call, locate(call.name)?.tool);
        const update = toolResultUpdateOf(result);
        this.#send({
          sessionUpdate: 'tool_call_update',
          ...update,
          content: [...shown, ...(update.content ?? [])],
        });
        return;
      }
      case 'retry':
        // As the chat says it: the vendor's message, the wait, the attempt.
        this.#notice(
          'info',
          `${event.error.message.replace(/\s+/g, ' ')} — retrying in ${(event.delayMs / 1000).toFixed(1)}s (retry ${event.attempt})`,
        );
        return;
      case 'step-finish': {
        const usage = this.#parts.runner.contextUsage;
        if (usage !== undefined) {
          this.#send({ sessionUpdate: 'usage_update', used: usage.tokens, size: usage.window.tokens });
        }
        return;
      }
      case 'compaction':
        this.#notice('info', `the older part of the conversation was summarized (${event.reason})`);
        return;
      case 'agent-event':
        this.#onAgentEvent(event, locate);
        return;
      case 'step-start':
      case 'tool-mode':
      case 'tool-call-delta': // the call is announced whole, at its `tool-call` event
      case 'done':
        return;
      default: {
        const unexpected: never = event;
        throw new TypeError(`unknown runner event ${JSON.stringify(unexpected)}`);
      }
    }
  }
}

function stopReasonOf(reason: RunStopReason): StopReason {
  switch (reason) {
    case 'end':
      return 'end_turn';
    case 'length':
      return 'max_tokens';
    case 'content-filter':
      return 'refusal';
    default: {
      const unexpected: never = reason;
      throw new TypeError(`unknown stop reason ${String(unexpected)}`);
    }
  }
}

/** A failed turn as a JSON-RPC error naming its cause; the session goes on. */
function requestErrorOf(error: unknown): RequestError {
  if (error instanceof RequestError) return error;
  if (error instanceof ProviderError) {
    return new RequestError(PROVIDER_FAILURE_CODE, `${error.provider}: ${error.message}`, {
      provider: error.provider,
      ...(error.status === undefined ? {} : { status: error.status }),
      retryable: error.retryable,
    });
  }
  return RequestError.internalError(
    { error: error instanceof Error ? error.name : 'Error' },
    messageOf(error),
  );
}
