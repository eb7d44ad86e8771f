/**
 * The CLI's entry: parse flags, assemble the runner, run one prompt or the chat, and turn every
 * failure into one line on stderr and an exit code. Nothing here calls process.exit: bin does.
 */
import { resolve } from 'node:path';
import type { PoolLogEntry } from '../mcp/pool.js';
import { optional } from '../optional.js';
import type { Message } from '../types.js';
import { parseArguments, type CliOptions, type ScriptCommand } from './args.js';
import { AbortedError } from '../errors.js';
import { ExitCode, exitCodeOf, signalExitCode, type ExitCodeValue } from './exit-codes.js';
import type { CliIO } from './io.js';
import { redactText } from '../safety/redact.js';
import { stripControlCharacters } from '../safety/output-limits.js';
import type { Reporter } from './output/reporter.js';

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
  let reporter: Reporter | undefined;
  try {
    const parsed = parseArguments(argv, version);
    if (parsed.kind === 'print') {
      io.stdout.write(`${parsed.text}\n`);
      return ExitCode.ok;
    }
    const { options } = parsed;
    debug = options.debug;
    // Imported once the arguments are known: `mcphost --help` stays light.
    const { createReporter } = await import('./output/reporter.js');
    reporter = createReporter({ format: options.outputFormat, quiet: options.quiet, debug }, io);
    return await runWithSignals(options, io, signals, reporter);
  } catch (error) {
    const code = exitCodeOf(error);
    // Bad flags never made a reporter; a script that asked for JSON still gets JSON.
    const { createReporter, outputFormatOfArgv } = await import('./output/reporter.js');
    reporter ??= createReporter({ format: outputFormatOfArgv(argv), quiet: false, debug }, io);
    reporter.fail(error, code);
    return code;
  }
}

async function runWithSignals(
  options: CliOptions,
  io: CliIO,
  signals: SignalSource,
  reporter: Reporter,
): Promise<ExitCodeValue> {
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
    return await run(options, io, controller.signal, reporter);
  } catch (error) {
    // Shells expect 128 + the signal's number from a program a signal stopped.
    if (received !== undefined && error instanceof AbortedError) {
      const code = signalExitCode(received);
      reporter.fail(new AbortedError(`stopped by ${received}`, { cause: error }), code);
      return code;
    }
    throw error;
  } finally {
    for (const [signal, listener] of listeners) signals.off(signal, listener);
  }
}

async function run(
  flags: CliOptions,
  io: CliIO,
  signal: AbortSignal,
  reporter: Reporter,
): Promise<ExitCodeValue> {
  // Imported here, not at the top: `mcphost --help` must not load the SDKs.
  const { assembleRunner, createModel } = await import('../setup/create-runner.js');
  const { readSystemPrompt } = await import('../setup/system-prompt.js');
  const { openSession } = await import('../session-recorder.js');
  const { modelNameOf } = await import('./one-shot.js');
  const { composePrompt } = await import('./stdin.js');
  const note = (message: string): void => reporter.note(message);
  // A script file fills in what the flags leave unset, and its servers replace the config's.
  const script = flags.script === undefined ? undefined : await readScript(flags.script, io);
  for (const warning of script?.warnings ?? []) note(warning);
  const options = script === undefined ? flags : (await import('./script.js')).applyScript(flags, script);
  // Everything that can be wrong with the input is found before a server or a model is started.
  const prompt =
    options.prompt === undefined
      ? undefined
      : await composePrompt({
          prompt: options.prompt,
          readStdin: !options.noExit,
          stdin: io.stdin,
          note,
          signal,
        });
  const { recorder, loaded } = await openSession({
    ...optional('load', pathIn(io, options.loadSession)),
    ...optional('save', pathIn(io, options.saveSession)),
    ...optional('both', pathIn(io, options.session)),
  });
  reporter.identify({ ...optional('sessionFile', recorder?.path) });
  // The chat answers approval questions on its own terminal; until it runs (the -p part of
  // --no-exit) the slot is empty, and a question is answered "deny".
  const chatFollows = prompt === undefined || options.noExit;
  const prompter = chatFollows ? new (await import('./chat/prompter.js')).PrompterSlot() : undefined;
  const onApproval =
    prompter === undefined
      ? undefined
      : (await import('./approval-prompt.js')).createApprovalPrompt(prompter);
  const systemPrompt = (await readSystemPrompt(options.systemPrompt, io.cwd)) ?? loaded?.systemPrompt;
  const { runner, config, modelString } = await assembleRunner({
    // Ctrl-C while the servers start stops the start (and the servers) at once.
    signal,
    env: io.env,
    homeDir: io.homeDir,
    // In the chat, a server's failure is printed by the chat, so it does not run into the prompt.
    onServerLog: (entry) => reportServerLog(entry, io, options.debug, prompter),
    onWarning: (message) => note(`warning: ${message}`),
    // Safety (issue 8): the folder's project config, approvals, audit log. In -p mode no one can be
    // asked, so `ask` means deny unless --approve-all; in the chat, the user is asked.
    projectDir: io.cwd,
    interactive: chatFollows,
    ...optional('onApproval', onApproval),
    approveAll: options.approveAll === true,
    ...optional('auditLog', pathIn(io, options.auditLog)),
    ...optional(
      'trustProject',
      prompt === undefined && script === undefined && (io.stdin as { isTTY?: boolean }).isTTY === true
        ? (await import('./trust.js')).terminalTrustPrompt(io.stdin, io.stdout)
        : undefined,
    ),
    ...optional('servers', script?.servers),
    ...optional('history', loaded?.messages),
    // Saved after every change, so that a crash or Ctrl-C loses at most the step in progress.
    ...optional(
      'onHistoryChange',
      recorder &&
        ((history: readonly Message[]) =>
          recorder.record({
            model: modelNameOf(runner.provider),
            ...optional('systemPrompt', runner.systemPrompt),
            messages: history,
          })),
    ),
    ...optional('model', options.model ?? loaded?.model),
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
    if (config.path === undefined && script?.servers === undefined) {
      note(
        `no config file in ${io.homeDir} (.mcp.json, .mcphost.json|yml|yaml): running without MCP servers`,
      );
    }
    if (prompt !== undefined) {
      const { runOneShot } = await import('./one-shot.js');
      const code = await runOneShot(runner, { prompt, reporter, signal });
      // --no-exit: the chat goes on from the answer, with the same history.
      if (!options.noExit) return code;
    }
    const { runInteractive } = await import('./interactive.js');
    return await runInteractive(runner, io, {
      modelString,
      debug: options.debug,
      signal,
      color: options.noColor !== true,
      ...optional('prompter', prompter),
      // `/model`: the URL and key from the flags and config are kept only for the same provider.
      createProvider: (model, sameProvider) =>
        createModel(
          model,
          {
            onWarning: (message) => note(`warning: ${message}`),
            ...(sameProvider ? optional('providerUrl', options.providerUrl) : {}),
            ...(sameProvider ? optional('providerApiKey', options.providerApiKey) : {}),
          },
          sameProvider ? config : {},
          io.env,
        ),
    });
  } finally {
    await runner.close();
  }
}

/** A path from the command line, made absolute. */
function pathIn(io: CliIO, path: string | undefined): string | undefined {
  return path === undefined ? undefined : resolve(io.cwd, path);
}

/** Reads `mcphost script FILE`, its path taken from the working directory. */
async function readScript(command: ScriptCommand, io: CliIO) {
  const { loadScript } = await import('./script.js');
  return loadScript(resolve(io.cwd, command.path), command.arguments, io.env);
}

function reportServerLog(
  entry: PoolLogEntry,
  io: CliIO,
  debug: boolean,
  chat: { readonly bound: boolean; write(text: string): void } | undefined,
): void {
  if (entry.level === 'debug' && !debug) return;
  // Server output (stderr tails included) may hold credentials and escape sequences: neither
  // reaches the terminal as is. Failures are shown even with --quiet: they are errors.
  const clean = stripControlCharacters(redactText(entry.message));
  const line = entry.level === 'warn' ? `mcphost: ${clean}\n` : `[${entry.server}] ${clean}\n`;
  if (chat?.bound === true) chat.write(line);
  else io.stderr.write(line);
}
