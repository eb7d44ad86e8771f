/**
 * Hooks: user commands run at four points of a session, in the format of the Go mcphost (itself
 * modelled on Claude Code's), and enforced — a hook that blocks really stops what it blocks.
 *
 * - `PreToolUse`, before a tool call (after the approval policy's deny rules): may block it, approve
 *   it (no question asked), or ask the user.
 * - `PostToolUse`, after a tool call: may withhold its result from the model.
 * - `UserPromptSubmit`, before a prompt goes to the model: may refuse it.
 * - `Stop`, when the model has answered (or the run failed): told, cannot change anything.
 *
 * A hook gets the event as JSON on stdin (snake_case fields, as the Go mcphost sends them). It
 * blocks by exiting with code 2 (stderr is the reason), or by printing `{"decision": "block",
 * "reason": "…"}` (Claude Code's `{"continue": false}` and `hookSpecificOutput.permissionDecision`
 * are understood too). Any other failure — another exit code, a timeout, output that is not JSON —
 * is reported as a warning and does not block, as in both hosts.
 */
import * as z from 'zod';
import { childEnvironment, type ParentEnvironment } from '../mcp/environment.js';
import type { HookProcessResult } from './hook-process.js';
import { definedProperties } from '../util/defined-properties.js';

/** The events hooks can be attached to. */
export const HOOK_EVENTS = ['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'Stop'] as const;
/**
 * One of {@link HOOK_EVENTS}: `PreToolUse` (before a tool call; may block, approve or ask),
 * `PostToolUse` (after one; may withhold its result), `UserPromptSubmit` (before a prompt goes to
 * the model; may refuse it), `Stop` (the model has answered or the run failed; told only).
 */
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** How long a hook may run unless its `timeout` says otherwise (the Go mcphost's default). */
export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60;
/** The longest `timeout` accepted (the Go mcphost's limit). */
export const MAX_HOOK_TIMEOUT_SECONDS = 600;

/** One command to run. */
export interface HookCommand {
  /** Run with `sh -c`. */
  readonly command: string;
  /** Seconds; default {@link DEFAULT_HOOK_TIMEOUT_SECONDS}. */
  readonly timeoutSeconds?: number;
}

/** Commands to run for the tools a matcher selects. */
export interface HookMatcherGroup {
  /**
   * For `PreToolUse` / `PostToolUse`: which tools (exposed names). Absent, empty or `*`: every
   * tool. Otherwise the exact name, or a regular expression found anywhere in the name (as the Go
   * mcphost tests it): `write` matches `filesystem__write_file`; `^memory__` only memory's tools.
   * Ignored for the other events.
   */
  readonly matcher?: string;
  readonly hooks: readonly HookCommand[];
}

/** Every configured hook, by event. */
export type HooksConfig = { readonly [Event in HookEvent]?: readonly HookMatcherGroup[] };

/** A matcher as a test of tool names: every tool, the exact name, or a regular expression in it. */
function compileHookMatcher(matcher: string | undefined): (toolName: string) => boolean {
  if (matcher === undefined || matcher === '' || matcher === '*') return () => true;
  let pattern: RegExp | undefined;
  try {
    pattern = new RegExp(matcher);
  } catch {
    // Config validation rejects bad patterns; should one get through, it matches only itself.
  }
  return (toolName) => toolName === matcher || pattern?.test(toolName) === true;
}

/** True when `matcher` selects the tool named `toolName`. */
export function hookMatcherMatches(matcher: string | undefined, toolName: string): boolean {
  return compileHookMatcher(matcher)(toolName);
}

/** What the hooks of one event decided together. */
export type HookVerdict =
  /** No hook ran, or none had an opinion. */
  | { readonly kind: 'none' }
  /** At least one hook blocked; `reason` holds every blocking hook's reason. */
  | { readonly kind: 'block'; readonly reason: string }
  /** A PreToolUse hook asks for the user's approval. */
  | { readonly kind: 'ask'; readonly reason?: string }
  /** A PreToolUse hook approved the call: it runs without asking. */
  | { readonly kind: 'approve'; readonly reason?: string };

/** Facts about the session every hook input carries. */
export interface HookSessionContext {
  readonly sessionId: string;
  /** `provider:model`. */
  readonly model: string;
  /** True in the chat, false for `-p` and the library. */
  readonly interactive: boolean;
  /** Where hooks run, and the `cwd` they are told. */
  readonly cwd: string;
}

export interface HookRunnerOptions {
  readonly config: HooksConfig;
  readonly context: HookSessionContext;
  /** Our environment; hooks get a minimal part of it (as servers do), never API keys. */
  readonly env: ParentEnvironment;
  /** Receives hook failures that do not block (a crash, a timeout, unreadable output). */
  readonly onWarning?: (message: string) => void;
  /** The shell; default `sh`. */
  readonly shell?: string;
  /** The clock, for the `timestamp` field. */
  readonly now?: () => number;
  /**
   * The trace context a hook joins, as environment variables (`TRACEPARENT`, `TRACESTATE`),
   * read when the hook starts. Default: none.
   */
  readonly traceEnvironment?: () => Readonly<Record<string, string>>;
}

/** What a hook may print on stdout (unknown fields are ignored). */
const hookOutputSchema = z.looseObject({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  decision: z.string().optional(),
  reason: z.string().optional(),
  hookSpecificOutput: z
    .looseObject({
      permissionDecision: z.enum(['allow', 'deny', 'ask']).optional(),
      permissionDecisionReason: z.string().optional(),
    })
    .optional(),
});

/** Runs the configured hooks of an event and combines their answers. */
export class HookRunner {
  readonly #options: HookRunnerOptions;
  readonly #closing = new AbortController();
  /** Matchers compiled once: they are tested on every tool call. */
  readonly #matchers = new Map<string, (toolName: string) => boolean>();

  constructor(options: HookRunnerOptions) {
    this.#options = options;
  }

  /** True when some hook is configured for `event` (callers skip building inputs otherwise). */
  has(event: HookEvent): boolean {
    return (this.#options.config[event] ?? []).some((group) => group.hooks.length > 0);
  }

  /**
   * Runs every hook of `event` that matches `toolName` (all tools for events without a matcher),
   * in parallel, each with `fields` added to the common input. Never rejects.
   */
  async run(
    event: HookEvent,
    fields: Readonly<Record<string, unknown>>,
    options: { readonly toolName?: string; readonly signal?: AbortSignal } = {},
  ): Promise<HookVerdict> {
    const commands = this.#commandsFor(event, options.toolName);
    if (commands.length === 0) return { kind: 'none' };
    const { context } = this.#options;
    const input = JSON.stringify({
      session_id: context.sessionId,
      transcript_path: '',
      cwd: context.cwd,
      hook_event_name: event,
      timestamp: Math.floor((this.#options.now ?? Date.now)() / 1000),
      model: context.model,
      interactive: context.interactive,
      ...fields,
    });
    const signal =
      options.signal === undefined
        ? this.#closing.signal
        : AbortSignal.any([this.#closing.signal, options.signal]);
    const env = childEnvironment(this.#options.env, {
      env: {
        ...this.#options.traceEnvironment?.(),
        MCPHOST_PROJECT_DIR: context.cwd,
        MCPHOST_HOOK_EVENT: event,
      },
      inheritEnv: false,
    });
    const answers = await Promise.all(
      commands.map(async (hook) => {
        const timeoutSeconds = hook.timeoutSeconds ?? DEFAULT_HOOK_TIMEOUT_SECONDS;
        // Loaded when a hook first runs: a run without hooks never loads child_process for them.
        const { runHookProcess } = await import('./hook-process.js');
        const result = await runHookProcess({
          command: hook.command,
          input,
          timeoutMs: timeoutSeconds * 1000,
          cwd: context.cwd,
          env,
          signal,
          shell: this.#options.shell,
        });
        return this.#interpret(event, hook, timeoutSeconds, result);
      }),
    );
    return combine(answers);
  }

  /** Stops every hook still running. */
  close(): void {
    this.#closing.abort();
  }

  #matches(matcher: string | undefined, toolName: string): boolean {
    const key = matcher ?? '';
    let test = this.#matchers.get(key);
    if (test === undefined) {
      test = compileHookMatcher(matcher);
      this.#matchers.set(key, test);
    }
    return test(toolName);
  }

  #commandsFor(event: HookEvent, toolName: string | undefined): HookCommand[] {
    const usesMatcher = event === 'PreToolUse' || event === 'PostToolUse';
    const seen = new Set<string>();
    const commands: HookCommand[] = [];
    for (const group of this.#options.config[event] ?? []) {
      if (usesMatcher && !this.#matches(group.matcher, toolName ?? '')) continue;
      for (const hook of group.hooks) {
        // The same command configured twice (home and project files) runs once, as in Claude Code.
        if (seen.has(hook.command)) continue;
        seen.add(hook.command);
        commands.push(hook);
      }
    }
    return commands;
  }

  #interpret(
    event: HookEvent,
    hook: HookCommand,
    timeoutSeconds: number,
    result: HookProcessResult,
  ): HookVerdict {
    const name = `${event} hook \`${shorten(hook.command)}\``;
    const warn = (message: string) => this.#options.onWarning?.(`${name} ${message}`);
    switch (result.kind) {
      case 'failed-to-start':
        warn(`could not be started: ${result.error.message}`);
        return { kind: 'none' };
      case 'cancelled':
        return { kind: 'none' };
      case 'timed-out':
        warn(`did not finish within ${timeoutSeconds}s and was stopped; it did not block anything`);
        return { kind: 'none' };
      case 'exited':
        if (result.code === 2) {
          return { kind: 'block', reason: result.stderr.trim() || `blocked by the ${name} (exit code 2)` };
        }
        if (result.code !== 0) {
          const how =
            result.code === null
              ? `was killed by ${result.signal ?? 'a signal'}`
              : `failed with exit code ${result.code}`;
          const detail = firstLine(result.stderr);
          warn(`${how}${detail === '' ? '' : `: ${detail}`}; it did not block anything`);
          return { kind: 'none' };
        }
        return this.#readOutput(result.stdout, name, warn);
      default: {
        const unexpected: never = result;
        throw new TypeError(`unknown hook result ${JSON.stringify(unexpected)}`);
      }
    }
  }

  #readOutput(stdout: string, name: string, warn: (message: string) => void): HookVerdict {
    const text = stdout.trim();
    // Plain text on stdout is a hook talking to itself (a log line); only a JSON object decides.
    if (!text.startsWith('{')) return { kind: 'none' };
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      warn(
        `printed something that is not valid JSON; it did not block anything: ${shorten(firstLine(text))}`,
      );
      return { kind: 'none' };
    }
    const output = hookOutputSchema.safeParse(parsed);
    if (!output.success) {
      warn('printed JSON of an unexpected shape; it did not block anything');
      return { kind: 'none' };
    }
    const { decision, reason, hookSpecificOutput } = output.data;
    const permission = hookSpecificOutput?.permissionDecision;
    const permissionReason = hookSpecificOutput?.permissionDecisionReason ?? reason;
    if (output.data.continue === false) {
      return { kind: 'block', reason: output.data.stopReason ?? reason ?? `stopped by the ${name}` };
    }
    if (decision === 'block' || permission === 'deny') {
      return { kind: 'block', reason: permissionReason ?? `blocked by the ${name}` };
    }
    if (permission === 'ask') return { kind: 'ask', ...definedProperties({ reason: permissionReason }) };
    if (decision === 'approve' || permission === 'allow') {
      return { kind: 'approve', ...definedProperties({ reason: permissionReason }) };
    }
    return { kind: 'none' };
  }
}

/** Block beats ask beats approve beats nothing; every blocking hook's reason is kept. */
function combine(answers: readonly HookVerdict[]): HookVerdict {
  const blocks = answers.filter((answer) => answer.kind === 'block');
  if (blocks.length > 0) return { kind: 'block', reason: blocks.map((answer) => answer.reason).join('; ') };
  return (
    answers.find((answer) => answer.kind === 'ask') ??
    answers.find((answer) => answer.kind === 'approve') ?? { kind: 'none' }
  );
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0]?.trim() ?? '';
}

function shorten(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ');
  return oneLine.length <= 80 ? oneLine : `${oneLine.slice(0, 79)}…`;
}
