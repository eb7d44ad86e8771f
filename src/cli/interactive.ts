/**
 * The chat: read a line, run it, show the answer and tool activity, repeat. History is kept across
 * turns. Ctrl-C stops a turn; at an empty prompt, Ctrl-C twice or Ctrl-D leaves.
 */
import { createInterface } from 'node:readline';
import { AbortedError } from '../errors.js';
import type { McpRunner } from '../setup/create-runner.js';
import { isCommand, runCommand } from './commands.js';
import { describeError, ExitCode, type ExitCodeValue } from './exit-codes.js';
import type { CliIO } from './io.js';
import { AnswerWriter, reportEvent } from './one-shot.js';

export interface ChatOptions {
  readonly modelString: string;
  readonly debug: boolean;
  readonly terminal: boolean;
  /** Aborted on SIGTERM/SIGHUP: the chat ends (and so do the servers). */
  readonly signal: AbortSignal;
}

export async function runInteractive(
  runner: McpRunner,
  io: CliIO,
  options: ChatOptions,
): Promise<ExitCodeValue> {
  const lines = createInterface({ input: io.stdin, output: io.stdout, terminal: options.terminal });
  let turn: AbortController | undefined;
  let interruptedAtPrompt = false;
  lines.on('SIGINT', () => {
    if (turn !== undefined) {
      turn.abort();
      return;
    }
    if (interruptedAtPrompt || lines.line === '') {
      if (interruptedAtPrompt) {
        lines.close();
        return;
      }
      interruptedAtPrompt = true;
      io.stdout.write('\n(Ctrl-C again or Ctrl-D to quit)\n');
    }
    lines.write('', { ctrl: true, name: 'u' });
    lines.prompt();
  });

  options.signal.addEventListener('abort', () => {
    turn?.abort();
    lines.close();
  });

  const toolCount = (await runner.pool.describeTools()).length;
  const serverCount = runner.servers.filter((server) => server.state === 'ready').length;
  io.stdout.write(
    `mcphost — ${options.modelString}, ${toolCount} tools from ${serverCount} servers. /help for commands, Ctrl-D to quit.\n`,
  );
  lines.setPrompt(`${options.modelString}> `);
  lines.prompt();
  for await (const line of lines) {
    interruptedAtPrompt = false;
    const input = line.trim();
    if (input !== '' && isCommand(input)) {
      const outcome = await runCommand(input, runner);
      if (outcome.kind === 'quit') break;
      io.stdout.write(`${outcome.text}\n`);
    } else if (input !== '') {
      turn = new AbortController();
      await runTurn(runner, input, io, turn.signal, options.debug);
      turn = undefined;
    }
    lines.prompt();
  }
  lines.close();
  return ExitCode.ok;
}

async function runTurn(
  runner: McpRunner,
  input: string,
  io: CliIO,
  signal: AbortSignal,
  debug: boolean,
): Promise<void> {
  const output = new AnswerWriter(io);
  try {
    const result = await runner.run(input, { signal, onEvent: (event) => reportEvent(event, io, output) });
    output.finish();
    if (result.stopReason === 'length') io.stdout.write('(the answer was cut at the token limit)\n');
  } catch (error) {
    output.finish();
    // A failed turn is shown and the chat goes on.
    io.stderr.write(error instanceof AbortedError ? '(cancelled)\n' : `${describeError(error, debug)}\n`);
  }
}
