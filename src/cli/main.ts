/**
 * The CLI's entry: parse flags, assemble the runner, run one prompt or the chat, and turn every
 * failure into one line on stderr and an exit code. Nothing here calls process.exit: bin does.
 */
import { resolve } from 'node:path';
import type { PoolLogEntry } from '../mcp/pool.js';
import { optional } from '../optional.js';
import { parseArguments, type CliOptions } from './args.js';
import { AbortedError } from '../errors.js';
import { describeError, ExitCode, exitCodeOf, signalExitCode, type ExitCodeValue } from './exit-codes.js';
import { notice, type CliIO } from './io.js';

/** Where termination signals come from (the process, in production). */
export interface SignalSource {
  on(signal: NodeJS.Signals, listener: () => void): unknown;
  off(signal: NodeJS.Signals, listener: () => void): unknown;
}

const HANDLED_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export async function main(
  argv: readonly string[],
  io: CliIO,
  signals: SignalSource,
  version: string,
): Promise<ExitCodeValue> {
  let debug = argv.includes('--debug');
  try {
    const parsed = await parseArguments(argv, version);
    if (parsed.kind === 'print') {
      io.stdout.write(`${parsed.text}\n`);
      return ExitCode.ok;
    }
    debug = parsed.options.debug;
    return await runWithSignals(parsed.options, io, signals);
  } catch (error) {
    io.stderr.write(`${describeError(error, debug)}\n`);
    return exitCodeOf(error);
  }
}

async function runWithSignals(options: CliOptions, io: CliIO, signals: SignalSource): Promise<ExitCodeValue> {
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  const listeners = HANDLED_SIGNALS.map((signal) => {
    const listener = () => {
      received ??= signal;
      controller.abort();
    };
    signals.on(signal, listener);
    return [signal, listener] as const;
  });
  try {
    return await run(options, io, controller.signal);
  } catch (error) {
    // Shells expect 128 + the signal's number from a program a signal stopped.
    if (received !== undefined && error instanceof AbortedError) {
      notice(io, `stopped by ${received}`);
      return signalExitCode(received);
    }
    throw error;
  } finally {
    for (const [signal, listener] of listeners) signals.off(signal, listener);
  }
}

async function run(options: CliOptions, io: CliIO, signal: AbortSignal): Promise<ExitCodeValue> {
  // Imported here, not at the top: `mcphost --help` must not load the SDKs.
  const { assembleRunner } = await import('../setup/create-runner.js');
  const { readSystemPrompt } = await import('../setup/system-prompt.js');
  const systemPrompt = await readSystemPrompt(options.systemPrompt, io.cwd);
  const { runner, config, modelString } = await assembleRunner({
    env: io.env,
    homeDir: io.homeDir,
    onServerLog: (entry) => reportServerLog(entry, io, options.debug),
    onWarning: (message) => notice(io, message),
    ...optional('model', options.model),
    ...optional(
      'configPath',
      options.configPath === undefined ? undefined : resolve(io.cwd, options.configPath),
    ),
    ...optional('systemPrompt', systemPrompt),
    ...optional('maxSteps', options.maxSteps),
    ...optional('providerUrl', options.providerUrl),
    ...optional('providerApiKey', options.providerApiKey),
    settings: {
      ...optional('maxTokens', options.maxTokens),
      ...optional('temperature', options.temperature),
      ...optional('topP', options.topP),
      ...optional('topK', options.topK),
      ...optional('stopSequences', options.stopSequences),
    },
  });
  try {
    if (config.path === undefined) {
      notice(
        io,
        `no config file in ${io.homeDir} (.mcp.json, .mcphost.json|yml|yaml): running without MCP servers`,
      );
    }
    if (options.prompt !== undefined) {
      const { runOneShot } = await import('./one-shot.js');
      return await runOneShot(runner, options.prompt, io, signal);
    }
    const { runInteractive } = await import('./interactive.js');
    const terminal = (io.stdin as { isTTY?: boolean }).isTTY === true;
    return await runInteractive(runner, io, { modelString, debug: options.debug, terminal, signal });
  } finally {
    await runner.close();
  }
}

function reportServerLog(entry: PoolLogEntry, io: CliIO, debug: boolean): void {
  if (entry.level === 'warn') notice(io, entry.message);
  else if (debug) io.stderr.write(`[${entry.server}] ${entry.message}\n`);
}
