/**
 * The options of createRunner, in a file of their own: the setup's parts (server features, model
 * creation) take them without importing the module that assembles the runner.
 */
import type { BuiltinHost } from '../builtin/host.js';
import type { ConfigInput, ProjectConfigCandidate } from '../../config/index.js';
import type { AgentRun } from '../agents/child-run.js';
import type { AppsOptions } from '../apps/options.js';
import type { ModelFileOptions } from '../../providers/index.js';
import type { ServerLogLevel } from '../mcp/server-logs.js';
import type { ElicitationPolicy } from '../mcp/elicitation.js';
import type { ContextOptions } from '../context/context-budget.js';
import type { RunnerOptions } from '../core/runner.js';
import type { SafetyOptions } from '../safety/options.js';
import type { ServerDefinition } from '../mcp/definition.js';
import type { UserQuestions } from '../core/questions.js';
import type { HostEventListener } from './host-event.js';
import type { GenerationSettings, JsonSchemaObject, Message } from '../core/types.js';
import type { ToolCallingSetting } from '../core/tool-calling/calling-mode.js';

/**
 * Options of {@link createRunner}. Explicit options win over the config file.
 *
 * The host's notices (server logs, warnings, outcomes, progress, list changes, flagged content)
 * all come through one `onEvent`. The other callbacks are not notices but answers and hooks the
 * host waits on: `questions` (everything asked of a person), `trustProject`, `onHistoryChange`.
 */
export interface CreateRunnerOptions {
  /**
   * `provider:model`, e.g. `anthropic:claude-sonnet-4-5`. Default: config `model`, else
   * {@link DEFAULT_MODEL} (the embedded model), or {@link DEFAULT_OLLAMA_MODEL} with a provider URL.
   */
  readonly model?: string;
  /** A config file to read. Without it (and without `mcpServers`), `~/.mcp.json` and friends are searched. */
  readonly configPath?: string;
  /** Servers inline, in the config file's `mcpServers` format. Replaces any config file. */
  readonly mcpServers?: Readonly<Record<string, unknown>>;
  /** System prompt text (the config's `systemPrompt` may also name a file). */
  readonly systemPrompt?: string;
  /** Model calls per run before giving up (default 20). */
  readonly maxSteps?: number;
  /** How the model calls tools (default the config's `toolCalling`, else `auto`; docs/local-models.md). */
  readonly toolCalling?: ToolCallingSetting;
  /**
   * Every run's answer must be JSON valid against this JSON Schema (`RunResult.structured`), unless
   * the run gives its own (`run(prompt, { outputSchema })`). See docs/structured-output.md.
   */
  readonly outputSchema?: JsonSchemaObject;
  /** Base URL of the provider API. */
  readonly providerUrl?: string;
  /** API key; overrides the provider's environment variable. */
  readonly providerApiKey?: string;
  /** Sampling settings; each overrides the config file's. */
  readonly settings?: GenerationSettings;
  /** Throw a ServerError when servers are configured and none of them started. */
  readonly requireServers?: boolean;
  /** Environment for keys, `${VAR}` expansion and the servers' base environment. Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Where `~/.mcp.json` is looked for. Default: the user's home. */
  readonly homeDir?: string;
  /**
   * Where sign-ins to remote servers (OAuth tokens, client registrations) are kept. Default
   * `$XDG_STATE_HOME/mcphost/oauth.json`; `false` turns sign-in off for every server.
   */
  readonly signInStore?: string | false;
  /**
   * Told everything the host has to say that needs no answer, each as one `HostEvent`
   * (src/setup/host-event.ts): server logs, warnings, elicitation and sampling outcomes, tool
   * progress, list changes, flagged content, changed tools. Default: ignored — the library prints
   * nothing.
   *
   * Not to be confused with `runner.run(prompt, { onEvent })` (`RunOptions.onEvent`), which
   * receives one run's `RunnerEvent`s (text deltas, tool calls and results, retries):
   *
   * ```ts
   * const runner = await createRunner({ model, onEvent: (notice) => log(notice.type) }); // HostEvent
   * await runner.run('hello', { onEvent: (event) => show(event.type) }); // RunnerEvent, this run only
   * ```
   */
  readonly onEvent?: HostEventListener;
  /**
   * Servers to start instead of the config's (a script file's `mcpServers`); unlike `mcpServers`,
   * the config file is still read for its other settings.
   */
  readonly servers?: Readonly<Record<string, ServerDefinition>>;
  /**
   * Servers run beside the configured ones (an editor's `mcpServers` in `mcphost acp`), under the
   * same safety rules. A name the config already uses stays the config's server (this one is left out,
   * with a warning).
   */
  readonly additionalServers?: Readonly<Record<string, ServerDefinition>>;
  /**
   * Built-in servers to turn on for this run, besides the configured ones (`["fs", "todo"]`;
   * see docs/builtin-servers.md). Each is named as its server (`fs__read_file`).
   */
  readonly builtin?: readonly string[];
  /**
   * What the built-in servers use in place of this machine's files, processes and folder (an
   * editor's buffers and terminal: `mcphost acp`). Absent: their own (see src/builtin/host.ts).
   */
  readonly builtinHost?: BuiltinHost;
  /**
   * Where `local:` model files are kept and how a first-use download is shown (`onProgress`). The
   * home folder, `projectDir` and `signal` are used where these leave them out.
   */
  readonly modelFiles?: ModelFileOptions;
  /**
   * Run every stdio server and the built-in `bash` in a sandbox (`--sandbox`; see docs/safety.md),
   * each with its own `sandbox` settings when it has some. A sandbox that cannot be made fails the start.
   */
  readonly sandbox?: boolean;
  /** A conversation to continue (a loaded session). */
  readonly history?: readonly Message[];
  /**
   * The subagent runs of the conversation continued (a loaded session's `agentRuns`): the
   * runner's `agentRuns` starts with them, and a journal going on in that file does not write them again.
   */
  readonly agentRuns?: readonly AgentRun[];
  /** The context window and compaction; each field overrides the config's (see docs/long-conversations.md). */
  readonly context?: ContextOptions;
  /**
   * Where the whole text of a tool result over the budget is saved. Default: `tool-output` in the
   * state folder (`$XDG_STATE_HOME/mcphost`, else `~/.local/state/mcphost`); `null` saves nothing.
   */
  readonly toolOutputFolder?: string | null;
  /** Called, and awaited, after every change of the history (see {@link RunnerOptions}). */
  readonly onHistoryChange?: RunnerOptions['onHistoryChange'];
  /**
   * Asks the user things (see {@link UserQuestions}); a missing method takes the safe answer.
   *
   * - `approveToolCall`: a tool call an approval rule (or a PreToolUse hook) marks `ask`. Without
   *   it such calls are denied (unless `approveAll`); with it, a call no rule speaks to is asked
   *   about too unless the tool says it is read-only (`safety.approvalFallback` chooses otherwise).
   * - `elicit`: servers' elicitations (form and URL mode). Without it each is answered by the
   *   `elicitation` policy. Answers to a form are checked against its schema before they are
   *   sent; a form that cannot be shown, a bad answer or a suspicious URL is declined.
   * - `reviewSampling`: a server's sampling request, when no `approval.sampling` rule allows it
   *   outright (sampling is off unless one of the two lets it through; see docs/mcp-features.md).
   * - `signIn`, `reviewFlaggedContent`: sign-in pages, flagged content.
   */
  readonly questions?: UserQuestions;
  /**
   * How elicitations are answered when there is no `questions.elicit`:
   * `decline` every one, or `accept-defaults` (a form whose required fields all have defaults is
   * accepted with the schema's defaults). Default: the config file's `elicitation`, else decline.
   */
  readonly elicitation?: { readonly policy: ElicitationPolicy };
  /**
   * The folders servers may work in (MCP roots; server-filesystem, for one, takes its allowed
   * folders from them). Relative ones are taken from `projectDir`. Default: the config's `roots`,
   * else `projectDir` alone. Change them later with `runner.setRoots()`.
   */
  readonly roots?: readonly string[];
  /** The least severe log level servers should send (`logging/setLevel`). Default: the server's own. */
  readonly serverLogLevel?: ServerLogLevel;
  /**
   * Safety settings (`approveAll`, `auditLog`, `untrustedContent`, `budgets`…); each one set here
   * overrides the config file's. The merged object goes unchanged to the tool guard.
   */
  readonly safety?: SafetyOptions;
  /** Told to hooks (`interactive`): true for a chat. Default false. */
  readonly interactive?: boolean;
  /**
   * The folder whose `.mcp.json` / `.mcphost.*` is a project config (used once trusted). Default
   * `process.cwd()`. Not used with `configPath` or `mcpServers`.
   */
  readonly projectDir?: string;
  /**
   * Asked about a project config that is not trusted yet; resolve true to trust it (remembered for
   * that content). Default: none, and an untrusted project config is not used (with a warning).
   */
  readonly trustProject?: (project: ProjectConfigCandidate) => Promise<boolean>;
  /**
   * Asked for an input of a config file in VS Code's form (`${input:id}`) that the environment
   * variable `MCPHOST_INPUT_<ID>` does not give; resolve its value, or undefined for none. Default:
   * none, and such an input with no default is a ConfigError naming the variable.
   */
  readonly askInput?: (input: ConfigInput, file: string) => Promise<string | undefined>;
  /**
   * Cancels the start: servers already begun are ended and createRunner rejects with AbortedError.
   * It does not reach the runs; give each `run()` its own signal.
   */
  readonly signal?: AbortSignal;
  /**
   * Named agents the model may hand tasks to, in the config's `agents` format (docs/agents.md);
   * added to those of the config files and agent folders (the same name replaces theirs).
   */
  readonly agents?: Readonly<Record<string, unknown>>;
  /**
   * Run as this named agent: its model (unless `model` is given), system prompt, tools, step limit
   * and output schema, its calls audited under its name.
   */
  readonly agent?: string;
  /** Agent calls of one step that run at once (default 4). */
  readonly maxParallelAgents?: number;
  /** Told of each subagent run when it ends, with its transcript and usage. */
  readonly onAgentRun?: (run: AgentRun) => void;
  /**
   * MCP Apps (`io.modelcontextprotocol/ui`): given, servers are told the host shows apps, a call to
   * a tool with an interface opens its app, and `runner.apps` hosts them (docs/mcp-features.md).
   * Give it only where a page can be shown. Default: off.
   */
  readonly apps?: AppsOptions;
  /**
   * OpenTelemetry (docs/telemetry.md). Spans and metrics are made only when the program registered
   * a tracer or meter provider with `@opentelemetry/api` (createRunner installs none); these say
   * what they carry. Default: no content, no conversation id.
   */
  readonly telemetry?: RunnerTelemetryOptions;
}

/** What a runner's spans carry besides the run's events (CreateRunnerOptions.telemetry). */
export interface RunnerTelemetryOptions {
  /** The saved conversation's id, read at each run (`gen_ai.conversation.id`). */
  readonly conversationId?: () => string | undefined;
  /**
   * Record prompts, answers, tool arguments and results (redacted as docs/telemetry.md says).
   * Default: `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` in the environment, else false.
   */
  readonly captureContent?: boolean;
  /** The batch or worker job this runner runs (`mcphost.job.id`). */
  readonly jobId?: string;
}
