/** How the command line (flags, a script, a loaded session) becomes createRunner's options. */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../core/errors.js';
import type { OpenedConversation } from '../conversation/conversation-journal.js';
import type { CreateRunnerOptions } from '../setup/create-runner.js';
import type { CliOptions } from './args.js';
import { pathIn, type CliIO } from './io.js';
import { definedProperties } from '../util/defined-properties.js';

export interface RunnerInputs {
  readonly options: CliOptions;
  readonly script: { readonly servers?: CreateRunnerOptions['servers'] } | undefined;
  readonly session: OpenedConversation;
  readonly systemPrompt: string | undefined;
}

/**
 * The options that come from the user's input. The CLI adds what needs the terminal or the runner
 * itself (signal, approval and trust questions, where diagnostics go, saving the session).
 */
export function runnerOptionsFor(inputs: RunnerInputs, io: CliIO): CreateRunnerOptions {
  const { options, session } = inputs;
  return {
    env: io.env,
    homeDir: io.homeDir,
    // The folder's project config is used once trusted (see the safety section of the README).
    projectDir: io.cwd,
    safety: {
      approveAll: options.approveAll === true,
      ...definedProperties({
        auditLog: pathIn(io, options.auditLog),
        untrustedContent: options.untrustedContent,
      }),
    },
    ...definedProperties({ servers: inputs.script?.servers, builtin: options.builtin }),
    ...(options.sandbox === true ? { sandbox: true } : {}),
    // MCP Apps only where a page is shown (--apps): servers are told so in the handshake.
    ...(options.apps === true ? { apps: {} } : {}),
    ...definedProperties({
      roots: rootFolders(options.roots, io),
      history: session.loaded?.messages,
      agentRuns: session.loaded?.agentRuns,
      model: options.model ?? session.loaded?.model,
      configPath: pathIn(io, options.configPath),
      systemPrompt: inputs.systemPrompt,
      maxSteps: options.maxSteps,
      agent: options.agent,
      toolCalling: options.toolCalling,
      providerUrl: options.providerUrl,
      providerApiKey: options.providerApiKey,
    }),
    // The flags win over the config's `contextWindow` and `toolSearch` (createRunner lays these over the config's).
    ...contextFlags(options),
    settings: definedProperties({
      maxTokens: options.maxTokens,
      temperature: options.temperature,
      topP: options.topP,
      topK: options.topK,
      stopSequences: options.stopSequences,
    }),
  };
}

/** `--context-window` and `--tool-search`, when given. */
function contextFlags(options: CliOptions): Pick<CreateRunnerOptions, 'context'> {
  const context = definedProperties({ contextWindow: options.contextWindow, toolSearch: options.toolSearch });
  return Object.keys(context).length === 0 ? {} : { context };
}

/** `--root DIR`s as absolute paths, each checked to be a directory (a mistake names the flag). */
function rootFolders(folders: readonly string[] | undefined, io: CliIO): string[] | undefined {
  if (folders === undefined) return undefined;
  return folders.map((folder) => {
    if (folder === '') throw new ConfigError('--root', 'needs a folder');
    const absolute = resolve(io.cwd, folder);
    // Synchronous: a handful of folders, checked once before anything starts.
    if (statSync(absolute, { throwIfNoEntry: false })?.isDirectory() !== true) {
      throw new ConfigError('--root', `"${folder}" is not a directory`);
    }
    return absolute;
  });
}
