/**
 * The flags of the chat and of `-p` (the default command) and of `mcphost script FILE`: one table
 * gives yargs its options and `--help` its lines. What yargs parsed becomes `CliOptions` in
 * cli-options.ts.
 */
export { toCliOptions, type CliOptions, type ParsedValues, type ScriptCommand } from './cli-options.js';

/** One flag: how it parses, and how `--help` shows it. */
export interface FlagSpec {
  readonly name: string;
  readonly short?: string;
  /** `strings` may be given several times; `number` is parsed from its text. */
  readonly kind: 'string' | 'number' | 'boolean' | 'strings';
  /** The value's placeholder in `--help` (`FILE`, `N`). */
  readonly value?: string;
  readonly describe: string;
  /** For booleans that are on unless negated (`--no-color`). */
  readonly defaultValue?: boolean;
  /**
   * A boolean whose `--no-` form is the one users type, left unset when not given so that the
   * config file decides (`--no-mark-tool-output`).
   */
  readonly negatable?: boolean;
}

export const CHAT_FLAGS: readonly FlagSpec[] = [
  {
    name: 'model',
    short: 'm',
    kind: 'string',
    value: 'PROVIDER:MODEL',
    describe:
      'the model (default: config "model", else the embedded local model; ollama:mistral-small with --provider-url or OLLAMA_HOST)',
  },
  {
    name: 'prompt',
    short: 'p',
    kind: 'string',
    value: 'TEXT',
    describe: 'run this prompt once, print the answer, exit (- reads stdin)',
  },
  {
    name: 'quiet',
    short: 'q',
    kind: 'boolean',
    describe: 'with -p: only the final answer on stdout, only errors on stderr',
  },
  {
    name: 'output-format',
    kind: 'string',
    value: 'FORMAT',
    describe: 'with -p: text (default), json (one object) or stream-json (JSON lines)',
  },
  {
    name: 'output-schema',
    kind: 'string',
    value: 'FILE',
    describe: 'with -p: the answer must be JSON valid against the JSON Schema in FILE (exit 7 if never)',
  },
  {
    name: 'session',
    short: 's',
    kind: 'string',
    value: 'FILE',
    describe: 'continue FILE if it exists, and save the conversation to it',
  },
  {
    name: 'save-session',
    kind: 'string',
    value: 'FILE',
    describe: 'save the conversation to FILE after every change',
  },
  {
    name: 'load-session',
    kind: 'string',
    value: 'FILE',
    describe: 'continue the conversation saved in FILE',
  },
  {
    name: 'exit',
    kind: 'boolean',
    defaultValue: true,
    describe: 'with -p: exit after the answer (--no-exit: go on chatting)',
  },
  {
    name: 'continue',
    short: 'c',
    kind: 'boolean',
    describe: 'continue the latest conversation of this folder',
  },
  {
    name: 'resume',
    short: 'r',
    kind: 'string',
    value: '[ID]',
    describe: 'continue a saved conversation (without ID: list them to pick one)',
  },
  {
    name: 'session-persistence',
    kind: 'boolean',
    describe: 'save every conversation in the state folder (--no-session-persistence: do not)',
  },
  {
    name: 'config',
    kind: 'string',
    value: 'FILE',
    describe: 'config file (default: ~/.mcp.json, ~/.mcphost.json|yml|yaml)',
  },
  {
    name: 'system-prompt',
    kind: 'string',
    value: 'TEXT|FILE',
    describe: 'system prompt text, or a file holding it',
  },
  {
    name: 'agent',
    kind: 'string',
    value: 'NAME',
    describe: 'run as a named agent: its model, prompt and tools (mcphost agents list)',
  },
  {
    name: 'max-steps',
    kind: 'number',
    value: 'N',
    describe: 'model calls per prompt before giving up (default 20)',
  },
  { name: 'provider-url', kind: 'string', value: 'URL', describe: 'base URL of the provider API' },
  {
    name: 'provider-api-key',
    kind: 'string',
    value: 'KEY',
    describe: 'API key (overrides the environment variable)',
  },
  { name: 'max-tokens', kind: 'number', value: 'N', describe: 'token limit per model call' },
  {
    name: 'context-window',
    kind: 'number',
    value: 'N',
    describe: "the model's context window in tokens (over the config and the known figure)",
  },
  {
    name: 'tool-search',
    kind: 'string',
    value: 'WHEN',
    describe:
      "send a tool-search tool instead of every tool definition: auto (default: only past the vendor's limit or a share of a known window), always or never",
  },
  {
    name: 'tool-calling',
    kind: 'string',
    value: 'HOW',
    describe:
      'how the model calls tools: auto (default: native where the model takes tools, else by prompt), native, prompt or none (no tools)',
  },
  { name: 'temperature', kind: 'number', value: 'X', describe: 'sampling temperature' },
  { name: 'top-p', kind: 'number', value: 'X', describe: 'nucleus sampling' },
  { name: 'top-k', kind: 'number', value: 'N', describe: 'top-k sampling' },
  {
    name: 'stop-sequences',
    kind: 'strings',
    value: 'TEXT',
    describe: 'stop generating at TEXT (repeat for several)',
  },
  {
    name: 'builtin',
    kind: 'strings',
    value: 'NAMES',
    describe: 'turn on built-in servers for this run: fs, bash, todo, fetch (comma-separated)',
  },
  {
    name: 'root',
    kind: 'strings',
    value: 'DIR',
    describe: 'a folder servers may work in (MCP roots; repeat for several). Default: the working directory',
  },
  {
    name: 'sandbox',
    kind: 'boolean',
    describe: 'run bash and every stdio server in a sandbox: read-only files, no network (Linux, bubblewrap)',
  },
  {
    name: 'apps',
    kind: 'boolean',
    describe:
      "show MCP Apps (a tool's interface) in a local browser page; with -p, wait for the page to close",
  },
  {
    name: 'apps-timeout',
    kind: 'number',
    value: 'SECONDS',
    describe: 'with -p --apps: stop waiting for the apps page after SECONDS (default 600)',
  },
  {
    name: 'approve-all',
    kind: 'boolean',
    describe: 'run tool calls that need approval without asking (deny rules and hooks still apply)',
  },
  {
    name: 'audit-log',
    kind: 'string',
    value: 'FILE',
    describe: 'append one JSON line per tool call to FILE (secrets redacted)',
  },
  {
    name: 'injection-policy',
    kind: 'string',
    value: 'POLICY',
    describe: 'tool output that looks like a prompt injection: warn (default), ask, redact or block',
  },
  {
    name: 'mark-tool-output',
    kind: 'boolean',
    negatable: true,
    describe: 'send tool output to the model marked as external data (default; --no-mark-tool-output: plain)',
  },
  {
    name: 'untrusted-clause',
    kind: 'boolean',
    negatable: true,
    describe:
      'add the "tool output is data" clause to the system prompt (default; --no-untrusted-clause: leave it out)',
  },
  {
    name: 'color',
    kind: 'boolean',
    defaultValue: true,
    describe: 'colors, spinner and markdown in the chat (--no-color: plain text)',
  },
  { name: 'debug', kind: 'boolean', describe: 'show server stderr, protocol noise and stack traces' },
];
