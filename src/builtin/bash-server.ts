/**
 * The `bash` built-in server: one tool, `run_command`. Each command runs in its own process group
 * with a timeout and an output cap (see shell-command.ts), in the minimal environment every stdio
 * server gets (no API keys). It asks for approval by default: createRunner adds an approval rule
 * for it (see `requiresApproval` in options.ts).
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { resolve } from 'node:path';
import * as z from 'zod';
import type { BashOptions } from './options.js';
import type { CommandTerminal } from './host.js';
import type { SandboxSettings } from '../safety/sandbox-settings.js';
import { describeShellOutcome, endGroup, runShellCommand, signalGroup } from './shell-command.js';
import { definedProperties } from '../util/defined-properties.js';

/** A command still running after this long is ended, unless configured. */
export const DEFAULT_BASH_TIMEOUT_MS = 120_000;
/** Output kept (stdout and stderr together), unless configured. */
export const DEFAULT_BASH_MAX_OUTPUT_BYTES = 30_000;
/** Between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 1_000;

/** Where the server runs. */
export interface BashServerContext {
  readonly options: BashOptions;
  /** The default working folder, and the base of a relative `cwd` option. */
  readonly cwd: string;
  /** The commands' environment (already reduced to the minimal one). */
  readonly env: Readonly<Record<string, string>>;
  /**
   * Where commands run instead of a process group of ours (an editor's terminal). Not used for a
   * server with a sandbox: only our own launch can put a command in one.
   */
  readonly terminal?: CommandTerminal;
}

/** Ends every command still running: called when the server closes. */
export type EndRunningCommands = () => Promise<void>;

/** Registers `run_command` on `server`. */
export function registerBashTools(server: McpServer, context: BashServerContext): EndRunningCommands {
  const timeoutMs = context.options.timeoutMs ?? DEFAULT_BASH_TIMEOUT_MS;
  const maxOutputBytes = context.options.maxOutputBytes ?? DEFAULT_BASH_MAX_OUTPUT_BYTES;
  const cwd = resolve(context.cwd, context.options.cwd ?? '.');
  const { sandbox } = context.options;
  const running = new Set<number>();
  // Commands run in process groups of their own, so they would outlive an mcphost that exits
  // without closing its servers (process.exit on a signal): an exit hook can only kill, at once.
  const killAll = (): void => {
    for (const id of running) signalGroup(id, 'SIGKILL');
  };
  process.on('exit', killAll);

  server.registerTool(
    'run_command',
    {
      description: `Run a shell command (bash -c) in ${cwd}.${sandboxNote(sandbox, cwd)} Output (stdout and stderr together) is cut at ${maxOutputBytes} bytes; the command is ended after ${timeoutMs / 1000} s. Background jobs end with the command. Each call starts a fresh shell: cd and variables do not carry over.`,
      inputSchema: z.object({ command: z.string().min(1).describe('The command line') }),
      annotations: { destructiveHint: true, openWorldHint: true },
    },
    async ({ command }, context_) => {
      if (context.terminal !== undefined && sandbox === undefined) {
        const outcome = await context.terminal.run({
          command,
          cwd,
          timeoutMs,
          maxOutputBytes,
          signal: context_.mcpReq.signal,
        });
        const { text, isError } = describeShellOutcome(outcome, maxOutputBytes, 'the start was dropped');
        return { content: [{ type: 'text', text }], ...(isError ? { isError } : {}) };
      }
      let group: number | undefined;
      const outcome = await runShellCommand({
        command,
        cwd,
        env: withTraceParent(context.env, context_.mcpReq._meta),
        timeoutMs,
        maxOutputBytes,
        killGraceMs: KILL_GRACE_MS,
        signal: context_.mcpReq.signal,
        ...definedProperties({ sandbox }),
        onGroup: (id) => {
          if (group !== undefined) running.delete(group);
          group = id;
          if (id !== undefined) running.add(id);
        },
      });
      const { text, isError } = describeShellOutcome(outcome, maxOutputBytes);
      return { content: [{ type: 'text', text }], ...(isError ? { isError } : {}) };
    },
  );

  return async () => {
    process.off('exit', killAll);
    await Promise.all([...running].map((id) => endGroup(id, KILL_GRACE_MS)));
  };
}

/**
 * The command joins the trace of the call that runs it: the request's `traceparent` and
 * `tracestate` (`params._meta`, SEP-414) become `TRACEPARENT` / `TRACESTATE`, the names
 * OpenTelemetry's environment-variable carriers read. Nothing else of `_meta` is passed on.
 */
function withTraceParent(
  env: Readonly<Record<string, string>>,
  meta: Readonly<Record<string, unknown>> | undefined,
): Readonly<Record<string, string>> {
  const traceparent = meta?.traceparent;
  if (typeof traceparent !== 'string') return env;
  const tracestate = meta?.tracestate;
  return {
    ...env,
    TRACEPARENT: traceparent,
    ...(typeof tracestate === 'string' ? { TRACESTATE: tracestate } : {}),
  };
}

/** What the model is told of the sandbox, so that it does not try what cannot work. */
function sandboxNote(sandbox: SandboxSettings | undefined, cwd: string): string {
  if (sandbox === undefined) return '';
  const writable = [cwd, ...(sandbox.writable ?? [])].join(', ');
  const network = sandbox.network === true ? '' : ' There is no network.';
  return ` Commands run in a sandbox: only ${writable} and a private /tmp (emptied after each command) are writable.${network}`;
}
