/**
 * The default command and `script FILE`: assemble the runner, run one prompt or the chat, and
 * stop on SIGINT/SIGTERM/SIGHUP with the shell's exit code. `main` imports this module only once
 * the arguments are parsed, so `mcphost --help` loads none of it.
 */
import { openInBrowser } from './browser.js';
import type { ToolProgress } from '../mcp/server-connection.js';
import type { ChatApps, ProgressSource } from './interactive.js';
import type { CliOptions, ScriptCommand } from './args.js';
import { AbortedError } from '../core/errors.js';
import { inChatAdvice } from './model-switch-advice.js';
import { signalExitCode, type ExitCodeValue } from './exit-codes.js';
import { captureLibraryConsole } from './library-console.js';
import { pathIn, userPath, type CliIO } from './io.js';
import { redactText } from '../safety/redact.js';
import { stripControlCharacters } from '../safety/output-limits.js';
import { readEarlySettings, type TelemetryConfig } from '../../config/index.js';
import { openConversationFiles, type OpenedConversation } from '../conversation/conversation-journal.js';
import type { CreateRunnerOptions, McpRunner } from '../setup/create-runner.js';
import { providerForSwitch, type ModelStart } from '../setup/model-switch.js';
import { readSystemPrompt } from '../setup/system-prompt.js';
import type { PrompterSlot } from './chat/prompter.js';
import type { Reporter } from './output/reporter.js';
import { applyScript, loadScript, type ScriptFile } from './script/script.js';
import { runnerOptionsFor } from './runner-options.js';
import { runOneShot } from './one-shot.js';
import { readOutputSchemaFile } from './output-schema-file.js';
import type { JsonSchemaObject } from '../core/types.js';
import { ConversationRecorder } from './sessions/conversation-recorder.js';
import { journalingTasks, resumeOpenTasks } from './sessions/resume-tasks.js';
import { TasksLeftRunning } from '../mcp/tasks/tasks-mode.js';
import { composePrompt } from './stdin.js';
import { resolveSessionChoice } from './sessions/session-choice.js';
import { continuingNotice } from './sessions/saved-conversations.js';
import { KeptPermissions } from '../safety/kept-permissions.js';
import { basename, extname, join, resolve } from 'node:path';
import { assembleExporting, startTelemetryExport } from './telemetry-export.js';
import { mcphostFolder } from '../util/user-folders.js';
import { downloadProgressOnStderr } from './output/download-progress.js';
import { hostEventReporter } from './output/host-event-report.js';
import { definedProperties } from '../util/defined-properties.js';

export { createReporter } from './output/reporter.js';

/** Where termination signals come from (the process, in production). */
export interface SignalSource {
  on(signal: NodeJS.Signals, listener: () => void): unknown;
  off(signal: NodeJS.Signals, listener: () => void): unknown;
}

const HANDLED_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export async function runWithSignals(
  options: CliOptions,
  io: CliIO,
  signals: SignalSource,
  reporter: Reporter,
): Promise<ExitCodeValue> {
  // A library's console output would land in the answer on stdout: it goes to the --debug log.
  const restoreConsole = captureLibraryConsole((message) => {
    if (!options.debug) return;
    io.stderr.write(`[library] ${stripControlCharacters(redactText(message))}\n`);
  });
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  const listeners = HANDLED_SIGNALS.map((signal) => {
    const listener = () => {
      received ??= signal;
      // A closed terminal or SIGTERM leaves tool calls running as tasks on their servers, for -c.
      controller.abort(signal === 'SIGINT' ? undefined : new TasksLeftRunning(`stopped by ${signal}`));
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
    restoreConsole();
  }
}

/** Everything read from the user before anything starts: flags (with a script's), prompt, session. */
interface Inputs {
  readonly options: CliOptions;
  readonly script: ScriptFile | undefined;
  readonly prompt: string | undefined;
  readonly session: OpenedConversation;
  /** The session file is the default one: written once the conversation has an answer. */
  readonly savesOnceAnswered: boolean;
  readonly systemPrompt: string | undefined;
  readonly permissions: KeptPermissions;
  /** `--output-schema FILE`, read and compiled. */
  readonly outputSchema: JsonSchemaObject | undefined;
  /** The config's `telemetry` (export settings). */
  readonly telemetry: TelemetryConfig | undefined;
}

async function run(
  flags: CliOptions,
  io: CliIO,
  signal: AbortSignal,
  reporter: Reporter,
): Promise<ExitCodeValue> {
  const inputs = await readInputs(flags, io, signal, reporter);
  const { options, prompt } = inputs;
  reporter.identify(definedProperties({ sessionFile: inputs.session.journal?.path }));
  // The chat answers approval questions on its own terminal; until it runs (the -p part of
  // --no-exit) the slot is empty, and a question is answered "deny".
  const chatFollows = prompt === undefined || options.noExit;
  // The chat's modules are imported only when a chat follows: a -p run loads no terminal UI.
  const prompter = chatFollows ? new (await import('./chat/prompter.js')).PrompterSlot() : undefined;
  // Progress reports go to the reporter (stream-json) and, in a chat, to its status line.
  const chatProgress = chatFollows ? new Set<(report: ToolProgress) => void>() : undefined;
  const askToTrust =
    prompt === undefined && inputs.script === undefined && (io.stdin as { isTTY?: boolean }).isTTY === true;
  // The one path that saves the conversation: here after every change (so that a crash or Ctrl-C
  // loses at most the step in progress), and in the chat for /save and /resume.
  const recorder = new ConversationRecorder({
    journal: inputs.session.journal,
    onceAnswered: inputs.savesOnceAnswered,
  });
  const base = runnerOptionsFor(inputs, io);
  const downloadProgress = downloadProgressOnStderr(io.stderr);
  const exporting = await startTelemetryExport(io.env, inputs.telemetry, (message) =>
    reporter.note(`warning: ${message}`),
  );
  const journalPath = inputs.session.journal?.path;
  const runOptions: CreateRunnerOptions = {
    ...base,
    telemetry: {
      ...definedProperties({
        captureContent: inputs.telemetry?.captureContent === true ? true : undefined,
        conversationId:
          journalPath === undefined ? undefined : () => basename(journalPath, extname(journalPath)),
      }),
    },
    // "Always allow" answers kept for this folder, in the state folder (never in the project).
    safety: { ...base.safety, keptPermissions: inputs.permissions },
    onHistoryChange: (history, change) => recorder.recordChange(runner, history, change),
    // Ctrl-C while the servers start stops the start (and the servers) at once.
    signal,
    // In the chat, a server's failure is printed by the chat, so it does not run into the prompt.
    // A call that becomes a task is journaled at once (its id), for `-c` after a crash.
    onEvent: journalingTasks(
      recorder,
      (message) => reporter.note(`warning: ${message}`),
      hostEventReporter({
        io,
        reporter,
        debug: options.debug,
        chat: prompter,
        progressListeners: chatProgress,
      }),
    ),
    // A `local:` model downloads on first use: a bar in a terminal, progress lines otherwise.
    modelFiles: { onProgress: downloadProgress.onProgress },
    // In -p mode no one can be asked, so `ask` means deny unless --approve-all.
    interactive: chatFollows,
    // --debug asks servers for everything; otherwise each server keeps its own default level.
    ...(options.debug ? { serverLogLevel: 'debug' as const } : {}),
    ...definedProperties({
      trustProject: askToTrust
        ? (await import('./trust.js')).terminalTrustPrompt(io.stdin, io.stdout)
        : undefined,
      // A VS Code config's `${input:id}` with no MCPHOST_INPUT_<ID>: asked before the chat, hidden
      // when a password; in -p, batches and workers only the variable gives it.
      askInput: askToTrust
        ? (await import('./prompts/config-input-prompt.js')).terminalInputPrompt(io.stdin, io.stdout)
        : undefined,
      // The chat asks about tool calls and elicitations, offers the sign-in page of a server that
      // asks for one, shows sampling requests for review and, under the `ask` injection policy, asks
      // about flagged content; -p reports each in one line (flagged content is withheld).
      questions: prompter && {
        approveToolCall: (await import('./prompts/approval-prompt.js')).createApprovalPrompt(prompter, {
          // An MCP App's call is asked about under the app's name.
          appOf: (id) => runner.apps?.get(id),
        }),
        elicit: (await import('./prompts/elicitation-prompt.js')).createElicitationPrompt(prompter, (url) =>
          openInBrowser(url, io.env),
        ),
        signIn: (await import('./prompts/sign-in-prompt.js')).browserSignIn(io),
        reviewFlaggedContent: (
          await import('./prompts/flagged-content-prompt.js')
        ).createFlaggedContentPrompt(prompter),
        reviewSampling: (await import('./prompts/sampling-prompt.js')).createSamplingReview(prompter),
        reviewToolChange: (await import('./prompts/tool-change-prompt.js')).createToolChangePrompt(prompter),
      },
    }),
  };
  const { runner, config, modelString } = await assembleExporting(exporting)(runOptions);
  // MCP Apps (--apps): the page is served when the first app opens (src/cli/apps-page.ts).
  const appsPage =
    runner.apps === undefined
      ? undefined
      : await import('./apps-page.js').then((module) => ({
          module,
          // -p and the chat both run an app's message as a new turn; notes go above the chat's prompt.
          shown: module.showAppsInTerminal(runner.apps as NonNullable<typeof runner.apps>, io, {
            note: module.appNotes(reporter, prompter),
            chat: prompter,
          }),
        }));
  try {
    if (config.path === undefined && inputs.script?.servers === undefined) {
      // Without a file, the only servers are the built-in ones `--builtin` turned on, if any.
      const builtins = Object.keys(config.servers);
      reporter.note(
        `no config file in ${io.homeDir} (.mcp.json, .mcphost.json|yml|yaml): ` +
          (builtins.length === 0
            ? 'running without MCP servers'
            : `running with the built-in servers only (${builtins.join(', ')})`),
      );
    }
    // Tool calls the conversation left running as tasks are followed before anything else.
    await resumeOpenTasks(runner, inputs.session.loaded?.openTasks ?? [], {
      recorder,
      signal,
      note: (message) => reporter.note(message),
    });
    // --no-exit: the prompt is the chat's first turn (shown as the chat shows every turn: under
    // the banner, after the prompt, with the token line), and the chat goes on from its answer.
    if (prompt !== undefined && !options.noExit) {
      const code = await runOneShot(runner, {
        prompt,
        reporter,
        signal,
        ...definedProperties({ outputSchema: inputs.outputSchema }),
      });
      if (appsPage !== undefined) {
        // -p --apps: each message an app sends is a new turn, until the page closes.
        await appsPage.module.waitForApps(runner, appsPage.shown, {
          signal,
          reporter,
          ...definedProperties({ timeoutSeconds: options.appsTimeout }),
        });
      }
      return code;
    }
    const progress = chatProgress && {
      listen: (listener: (report: ToolProgress) => void) => {
        chatProgress.add(listener);
        return () => chatProgress.delete(listener);
      },
    };
    return await chat(runner, {
      io,
      options,
      recorder,
      permissions: inputs.permissions,
      signal,
      reporter,
      prompter,
      progress,
      firstPrompt: options.noExit ? prompt : undefined,
      apps: appsPage && runner.apps && appsPage.module.chatApps(runner.apps, appsPage.shown),
      modelStart: { modelString, options: runOptions, config, env: io.env },
    });
  } finally {
    await appsPage?.shown.close();
    await runner.close();
    // A -p run's or a chat's spans and metrics go out before it exits (within a second, reachable or not).
    await exporting?.shutdown();
  }
}

/**
 * Reads the script file, the prompt (with stdin), the session and the system prompt: every mistake
 * in the user's input shows up here, before a server or a model is started.
 */
async function readInputs(
  flags: CliOptions,
  io: CliIO,
  signal: AbortSignal,
  reporter: Reporter,
): Promise<Inputs> {
  const note = (message: string | readonly string[]): void => reporter.note(message);
  // A script file fills in what the flags leave unset, and its servers replace the config's.
  const script = flags.script === undefined ? undefined : await readScript(flags.script, io);
  for (const warning of script?.warnings ?? []) note(warning);
  const options = script === undefined ? flags : applyScript(flags, script);
  // Read first: a bad schema file fails before stdin, sessions or servers are touched.
  const outputSchema =
    options.outputSchema === undefined
      ? undefined
      : await readOutputSchemaFile(userPath(io, options.outputSchema), options.outputSchema);
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
  // The config's `sessionPersistence` counts when no flag says, and its `telemetry` starts the
  // export before anything else: read now, before the session is chosen.
  const early = await readEarlySettings({
    homeDir: io.homeDir,
    env: io.env,
    configPath: pathIn(io, options.configPath),
  });
  const sessionPersistence = options.sessionPersistence ?? early.sessionPersistence;
  const { choice, continuing, onceAnswered } = await resolveSessionChoice(
    { ...options, ...definedProperties({ sessionPersistence }) },
    io,
  );
  const session = await openConversationFiles(choice);
  for (const message of session.loaded?.notes ?? []) note(message);
  if (continuing !== undefined && session.loaded !== undefined) {
    note(continuingNotice(continuing, session.loaded, (io.stderr as { columns?: number }).columns));
  }
  const systemPrompt = (await readSystemPrompt(options.systemPrompt, io.cwd)) ?? session.loaded?.systemPrompt;
  const permissions = await KeptPermissions.open({
    file: join(mcphostFolder('state', io.homeDir, io.env), 'permissions.json'),
    projectDir: io.cwd,
  });
  return {
    outputSchema,
    options,
    script,
    prompt,
    session,
    savesOnceAnswered: onceAnswered === true,
    systemPrompt,
    permissions,
    telemetry: early.telemetry,
  };
}

/** The chat, after servers are up (or after a `--no-exit` answer). */
async function chat(
  runner: McpRunner,
  context: {
    readonly io: CliIO;
    readonly options: CliOptions;
    readonly recorder: ConversationRecorder;
    readonly permissions: KeptPermissions;
    readonly signal: AbortSignal;
    readonly reporter: Reporter;
    readonly prompter: PrompterSlot | undefined;
    readonly progress: ProgressSource | undefined;
    /** `-p … --no-exit`: the chat's first turn. */
    readonly firstPrompt: string | undefined;
    readonly apps: ChatApps | undefined;
    /** How the run chose its model: `/model` makes the next one as the editor's picker does. */
    readonly modelStart: ModelStart;
  },
): Promise<ExitCodeValue> {
  const { io, options } = context;
  const { runInteractive } = await import('./interactive.js');
  return runInteractive(runner, io, {
    recorder: context.recorder,
    permissions: context.permissions,
    debug: options.debug,
    signal: context.signal,
    color: options.noColor !== true,
    ...definedProperties({
      prompter: context.prompter,
      progress: context.progress,
      firstPrompt: context.firstPrompt,
      apps: context.apps,
    }),
    // `/model`: the URL and key from the flags and config are kept only for the same provider.
    createProvider: (model) =>
      providerForSwitch(model, context.modelStart, '/model').catch((error: unknown) => {
        throw inChatAdvice(error);
      }),
  });
}

/** Reads `mcphost script FILE`, its path taken from the working directory. */
async function readScript(command: ScriptCommand, io: CliIO) {
  return loadScript(resolve(io.cwd, command.path), command.arguments, io.env);
}
