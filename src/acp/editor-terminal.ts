/**
 * The built-in `bash` server's commands in an editor session whose client offers `terminal`: each
 * runs in a terminal of the editor (`terminal/create`), which the editor shows inside the tool
 * call (`onCreated` embeds it), until it exits, its time is up, or the call is cancelled
 * (`terminal/kill`); then its output is read and the terminal released.
 */
import type { AgentContext, TerminalExitStatus } from '@agentclientprotocol/sdk';
import type { CommandTerminal, TerminalCommand } from '../builtin/host.js';
import type { ShellOutcome } from '../builtin/shell-command.js';
import { messageOf } from '../core/errors.js';

export interface EditorTerminalParts {
  readonly client: AgentContext;
  readonly sessionId: string;
  /** A terminal runs `command`: the session embeds it in that tool call. */
  readonly onCreated: (command: string, terminalId: string) => void;
}

type Ending =
  | { readonly kind: 'exited'; readonly status: TerminalExitStatus }
  | { readonly kind: 'timed-out' }
  | { readonly kind: 'cancelled' };

export function editorTerminal(parts: EditorTerminalParts): CommandTerminal {
  const { client, sessionId } = parts;
  return {
    run: async (command: TerminalCommand): Promise<ShellOutcome> => {
      if (command.signal.aborted) return { kind: 'cancelled', output: '', cut: false };
      let terminalId: string;
      try {
        // bash -c, as the server's own launch runs it: pipes, && and globs mean what the model meant.
        ({ terminalId } = await client.request('terminal/create', {
          sessionId,
          command: 'bash',
          args: ['-c', command.command],
          cwd: command.cwd,
          outputByteLimit: command.maxOutputBytes,
        }));
      } catch (error) {
        return { kind: 'not-started', reason: `the editor's terminal did not start it: ${messageOf(error)}` };
      }
      parts.onCreated(command.command, terminalId);
      try {
        const ending = await waitForEnd(client, sessionId, terminalId, command);
        if (ending.kind !== 'exited') {
          await client.request('terminal/kill', { sessionId, terminalId }).catch(() => undefined);
        }
        const { output, truncated } = await client.request('terminal/output', { sessionId, terminalId });
        const cut = truncated;
        switch (ending.kind) {
          case 'exited': {
            const { exitCode, signal } = ending.status;
            if (signal !== undefined && signal !== null) return { kind: 'signalled', signal, output, cut };
            if (exitCode !== undefined && exitCode !== null)
              return { kind: 'exited', code: exitCode, output, cut };
            // Neither: not a success the model should trust.
            return {
              kind: 'signalled',
              signal: 'an unknown cause (the editor gave no exit code)',
              output,
              cut,
            };
          }
          case 'timed-out':
            return { kind: 'timed-out', timeoutMs: command.timeoutMs, output, cut };
          case 'cancelled':
            return { kind: 'cancelled', output, cut };
          default: {
            const unexpected: never = ending;
            throw new TypeError(`unknown ending ${JSON.stringify(unexpected)}`);
          }
        }
      } finally {
        // The editor keeps showing a released terminal's output in the tool call (the spec says so).
        await client.request('terminal/release', { sessionId, terminalId }).catch(() => undefined);
      }
    },
  };
}

/** The command's exit, or its timeout, or the call's cancel, whichever comes first. */
async function waitForEnd(
  client: AgentContext,
  sessionId: string,
  terminalId: string,
  command: TerminalCommand,
): Promise<Ending> {
  const stop = new AbortController();
  const timedOut = new Promise<Ending>((resolve) => {
    const timer = setTimeout(() => resolve({ kind: 'timed-out' }), command.timeoutMs);
    stop.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
  });
  const cancelled = new Promise<Ending>((resolve) => {
    const onAbort = (): void => resolve({ kind: 'cancelled' });
    command.signal.addEventListener('abort', onAbort, { once: true });
    stop.signal.addEventListener('abort', () => command.signal.removeEventListener('abort', onAbort), {
      once: true,
    });
  });
  const exited = client
    .request('terminal/wait_for_exit', { sessionId, terminalId })
    .then((status): Ending => ({ kind: 'exited', status }));
  try {
    return await Promise.race([exited, timedOut, cancelled]);
  } finally {
    stop.abort();
    // The wait is answered once the kill ends the command; nothing waits for it then.
    exited.catch(() => undefined);
  }
}
