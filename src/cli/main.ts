/**
 * The CLI's entry: parse the command line, import the one module the command needs, and turn every
 * failure into one line on stderr and an exit code. Nothing here calls process.exit: bin does.
 */
import { parseArguments, type AuthCommand, type ParsedArguments } from './args.js';
import { ExitCode, exitCodeOf, type ExitCodeValue } from './exit-codes.js';
import type { CliIO } from './io.js';
import type { Reporter } from './output/reporter.js';
import type { SignalSource } from './run-command.js';

export type { SignalSource } from './run-command.js';

export async function main(
  argv: readonly string[],
  io: CliIO,
  signals: SignalSource,
  version: string,
): Promise<ExitCodeValue> {
  let debug = argv.includes('--debug');
  let reporter: Reporter | undefined;
  try {
    const columns = (io.stdout as { columns?: number }).columns ?? 100;
    const parsed: ParsedArguments = parseArguments(argv, version, columns);
    switch (parsed.kind) {
      case 'print':
        io.stdout.write(`${parsed.text}\n`);
        return ExitCode.ok;
      case 'completion': {
        const { completionScript } = await import('./command-line/completion-script.js');
        io.stdout.write(completionScript(parsed.shell));
        return ExitCode.ok;
      }
      case 'mcp': {
        const { runMcpCommand } = await import('./command-line/mcp-commands.js');
        return await runMcpCommand(parsed.command, {
          io,
          ...(parsed.configPath === undefined ? {} : { configPath: parsed.configPath }),
        });
      }
      case 'auth':
        return await runAuth(parsed.command, parsed.configPath, io, signals);
      case 'models': {
        const { runModelsCommand } = await import('./command-line/models-commands.js');
        return await withStopSignal(signals, (signal) => runModelsCommand(parsed.command, { io, signal }));
      }
      case 'agents-list': {
        const { runAgentsList } = await import('./command-line/agents-commands.js');
        return await runAgentsList({
          io,
          ...(parsed.configPath === undefined ? {} : { configPath: parsed.configPath }),
        });
      }
      case 'batch': {
        debug = parsed.options.debug;
        const { runBatchCommand } = await import('./batch/batch-command.js');
        return await runBatchCommand(parsed.batch, parsed.options, io, signals);
      }
      case 'jobs': {
        const { runJobsCommand } = await import('./command-line/jobs-commands.js');
        return await withStopSignal(signals, (signal) => runJobsCommand(parsed.command, { io, signal }));
      }
      case 'worker': {
        const { runWorkerCommand } = await import('./command-line/worker-command.js');
        return await withStopSignal(signals, (signal) => runWorkerCommand(parsed.command, { io, signal }));
      }
      case 'acp': {
        debug = parsed.options.debug;
        const { runAcpCommand } = await import('./acp-command.js');
        return await runAcpCommand(parsed.options, io, signals, version);
      }
      case 'run': {
        const { options } = parsed;
        debug = options.debug;
        // The one import after parsing: the runner, the chat and the reporters come with it.
        const { runWithSignals, createReporter } = await import('./run-command.js');
        reporter = createReporter(
          {
            format: options.outputFormat,
            quiet: options.quiet,
            debug,
            ...(options.outputSchema === undefined ? {} : { structured: true }),
          },
          io,
        );
        return await runWithSignals(options, io, signals, reporter);
      }
    }
  } catch (error) {
    const code = exitCodeOf(error);
    // Bad flags never made a reporter; a script that asked for JSON still gets JSON.
    const { createReporter, outputFormatOfArgv } = await import('./output/reporter.js');
    reporter ??= createReporter({ format: outputFormatOfArgv(argv), quiet: false, debug }, io);
    reporter.fail(error, code);
    return code;
  }
}

const AUTH_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** Runs `work` with a signal that Ctrl-C (or SIGTERM, SIGHUP) aborts. */
async function withStopSignal<T>(
  signals: SignalSource,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const stop = (): void => {
    controller.abort();
  };
  for (const name of AUTH_SIGNALS) signals.on(name, stop);
  try {
    return await work(controller.signal);
  } finally {
    for (const name of AUTH_SIGNALS) signals.off(name, stop);
  }
}

/** `mcphost auth …`, with Ctrl-C stopping a sign-in that waits for the browser. */
async function runAuth(
  command: AuthCommand,
  configPath: string | undefined,
  io: CliIO,
  signals: SignalSource,
): Promise<ExitCodeValue> {
  const controller = new AbortController();
  const stop = (): void => {
    controller.abort();
  };
  for (const name of AUTH_SIGNALS) signals.on(name, stop);
  try {
    const { runAuthCommand } = await import('./command-line/auth-commands.js');
    return await runAuthCommand(command, {
      io,
      signal: controller.signal,
      ...(configPath === undefined ? {} : { configPath }),
    });
  } finally {
    for (const name of AUTH_SIGNALS) signals.off(name, stop);
  }
}
