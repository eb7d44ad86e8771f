/**
 * One `mcpServers` entry, in any of the forms users already have, to a {@link ServerDefinition}.
 *
 * Once the entry is checked against its form (`server-form.ts`), `${VAR}` references are expanded
 * in the fields that name what to run or reach (command, args, env, cwd, url, headers, the oauth
 * client id and secret) and nowhere
 * else: a system prompt or a model name that contains `${` is the author's text, not ours to change.
 */
import type {
  OAuthSettings,
  BuiltinServerDefinition,
  RemoteServerDefinition,
  ServerDefinition,
  StdioServerDefinition,
} from '../src/mcp/definition.js';
import type { ConfigPath, Problem } from './problems.js';
import { describeKind, problemsFromError, quoteValue } from './problems.js';
import type { BuiltinServerEntry, LocalServerEntry, RemoteServerEntry, StdioServerEntry } from './schema.js';
import type { ParsedEntry, ProblemReport } from './server-form.js';
import {
  checkKeys,
  chooseForm,
  commandShapeProblem,
  isPlainObject,
  parseForm,
  withoutNulls,
} from './server-form.js';
import { BUILTIN_SERVER_NAMES, builtinServerNamed, parseBuiltinOptions } from '../src/builtin/options.js';
import type { SandboxSettings } from '../src/safety/sandbox-settings.js';
import type { TasksMode } from '../src/mcp/tasks/tasks-mode.js';
import type { VariableLookup } from './variables.js';
import { describeExpansionFailure, expandVariables } from './variables.js';
import { definedProperties } from '../src/util/defined-properties.js';

/** What reading the entries needs, and where it reports. */
export interface ServerReadContext extends ProblemReport {
  /** Values for `${VAR}` references. */
  readonly lookup: VariableLookup;
  /** The key the servers are under in the file, for messages (VS Code's form: `servers`). Default `mcpServers`. */
  readonly serversKey?: string;
  /** Config-wide timeouts, used where an entry sets none. */
  readonly defaults: {
    readonly initTimeoutMs?: number;
    readonly toolTimeoutMs?: number;
    readonly tasks?: TasksMode;
    readonly taskTimeoutMs?: number;
  };
}

/** What one entry came to. */
export type ServerReadResult =
  | { readonly kind: 'server'; readonly definition: ServerDefinition }
  | { readonly kind: 'disabled' }
  | { readonly kind: 'invalid' };

const EMPTY_AFTER_EXPANSION = 'is empty once its variables are expanded';

/** Expands one string, recording a problem (and giving `undefined`) when it cannot. */
function expand(text: string, path: ConfigPath, context: ServerReadContext): string | undefined {
  const result = expandVariables(text, context.lookup);
  if (result.kind === 'expanded') return result.value;
  context.problems.push({ path, message: describeExpansionFailure(result) });
  return undefined;
}

function expandList(items: readonly string[], path: ConfigPath, context: ServerReadContext): string[] {
  return items.map((item, index) => expand(item, [...path, index], context) ?? item);
}

function expandMap(
  map: Readonly<Record<string, string>>,
  path: ConfigPath,
  context: ServerReadContext,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(map).map(([key, value]) => [key, expand(value, [...path, key], context) ?? value]),
  );
}

/** The settings every form shares, with the config-wide timeouts filled in. */
function commonSettings(
  entry: StdioServerEntry | LocalServerEntry | RemoteServerEntry | BuiltinServerEntry,
  context: ServerReadContext,
) {
  const initTimeoutMs = entry.initTimeout ?? context.defaults.initTimeoutMs;
  const toolTimeoutMs = entry.toolTimeout ?? context.defaults.toolTimeoutMs;
  const tasks = entry.tasks ?? context.defaults.tasks;
  const taskTimeoutMs = entry.taskTimeout ?? context.defaults.taskTimeoutMs;
  return definedProperties({
    allowedTools: entry.allowedTools,
    excludedTools: entry.excludedTools,
    initTimeoutMs,
    toolTimeoutMs,
    roots: entry.roots,
    isolation: entry.isolation,
    toolChanges: entry.toolChanges,
    tasks,
    taskTimeoutMs,
  });
}

function stdioDefinition(
  entry: { command: string; args: readonly string[]; env: Readonly<Record<string, string>> },
  shared: StdioServerEntry | LocalServerEntry,
  path: ConfigPath,
  envKey: 'env' | 'environment',
  context: ServerReadContext,
): StdioServerDefinition {
  const cwd = shared.cwd === undefined ? undefined : expand(shared.cwd, [...path, 'cwd'], context);
  return {
    transport: 'stdio',
    command: entry.command,
    args: entry.args,
    env: expandMap(entry.env, [...path, envKey], context),
    ...definedProperties({ cwd }),
    inheritEnv: shared.inheritEnv ?? false,
    ...(shared.sandbox === undefined
      ? {}
      : { sandbox: expandSandbox(shared.sandbox, [...path, 'sandbox'], context) }),
    ...commonSettings(shared, context),
  };
}

/** A sandbox's paths with their `${VAR}` references expanded. */
function expandSandbox(
  sandbox: SandboxSettings,
  path: ConfigPath,
  context: ServerReadContext,
): SandboxSettings {
  return {
    ...sandbox,
    ...(sandbox.writable === undefined
      ? {}
      : { writable: expandList(sandbox.writable, [...path, 'writable'], context) }),
    ...(sandbox.hidden === undefined
      ? {}
      : { hidden: expandList(sandbox.hidden, [...path, 'hidden'], context) }),
  };
}

/** `["Authorization: Bearer x"]` → `{ Authorization: 'Bearer x' }`; a map is taken as it is. */
function headerMap(headers: RemoteServerEntry['headers']): Array<[string, string]> {
  if (headers === undefined) return [];
  if (!Array.isArray(headers)) return Object.entries(headers);
  return headers.map((line) => {
    const colon = line.indexOf(':');
    return [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
  });
}

function remoteDefinition(
  entry: RemoteServerEntry,
  transport: 'http' | 'sse',
  path: ConfigPath,
  context: ServerReadContext,
): RemoteServerDefinition | undefined {
  const url = expand(entry.url, [...path, 'url'], context);
  if (url === undefined) return undefined;
  if (!isHttpUrl(url)) {
    context.problems.push({
      path: [...path, 'url'],
      message: `expected an http(s) URL, got ${quoteValue(url)}`,
    });
    return undefined;
  }
  const listed = Array.isArray(entry.headers);
  const headers = headerMap(entry.headers).map(([name, value], index): [string, string] => {
    const headerPath = [...path, 'headers', listed ? index : name];
    return [name, expand(value, headerPath, context) ?? value];
  });
  const oauth = oauthSettings(entry.oauth, [...path, 'oauth'], context);
  return {
    transport,
    url,
    headers: Object.fromEntries(headers),
    ...definedProperties({ oauth }),
    ...commonSettings(entry, context),
  };
}

/** The `oauth` key to settings, secrets expanded; a client-credentials grant needs an id and secret. */
function oauthSettings(
  entry: RemoteServerEntry['oauth'],
  path: ConfigPath,
  context: ServerReadContext,
): OAuthSettings | false | undefined {
  if (entry === undefined) return undefined;
  if (entry === false || entry.enabled === false) return false;
  const clientId =
    entry.clientId === undefined ? undefined : expand(entry.clientId, [...path, 'clientId'], context);
  const clientSecret =
    entry.clientSecret === undefined
      ? undefined
      : expand(entry.clientSecret, [...path, 'clientSecret'], context);
  const grant = entry.grant ?? 'authorization_code';
  if (grant === 'client_credentials' && (clientId === undefined || clientSecret === undefined)) {
    context.problems.push({
      path: [...path, 'grant'],
      message: '"client_credentials" needs "clientId" and "clientSecret"',
    });
    return undefined;
  }
  if (
    entry.redirectPort !== undefined &&
    entry.callbackPort !== undefined &&
    entry.redirectPort !== entry.callbackPort
  ) {
    context.problems.push({
      path: [...path, 'callbackPort'],
      message: 'differs from "redirectPort" (give one)',
    });
    return undefined;
  }
  const redirectPort = entry.redirectPort ?? entry.callbackPort;
  return {
    grant,
    ...definedProperties({
      clientId,
      clientSecret,
      clientMetadataUrl: entry.clientMetadataUrl,
      scopes: entry.scopes,
      redirectPort,
    }),
  };
}

/** `{"type": "builtin", "name": "fs", "options": {…}}`; `${VAR}` is expanded in the options' strings. */
function builtinDefinition(
  entry: BuiltinServerEntry,
  path: ConfigPath,
  context: ServerReadContext,
): BuiltinServerDefinition | undefined {
  const name = builtinServerNamed(entry.name);
  if (name === undefined) {
    const known = BUILTIN_SERVER_NAMES.map((known) => JSON.stringify(known)).join(', ');
    context.problems.push({
      path: [...path, 'name'],
      message: `expected one of ${known}, got ${quoteValue(entry.name)}`,
    });
    return undefined;
  }
  const optionsPath = [...path, 'options'];
  const options = Object.fromEntries(
    Object.entries(entry.options ?? {}).map(([key, value]) => [
      key,
      expandOptionValue(value, [...optionsPath, key], context),
    ]),
  );
  const parsed = parseBuiltinOptions(name, options);
  if (!parsed.ok) {
    context.problems.push(...problemsFromError(parsed.error, optionsPath));
    return undefined;
  }
  return { transport: 'builtin', builtin: parsed.settings, ...commonSettings(entry, context) };
}

/**
 * A string, or the strings of a list or of an object (bash's `sandbox`), with their variables
 * expanded; anything else as it is.
 */
function expandOptionValue(value: unknown, path: ConfigPath, context: ServerReadContext): unknown {
  if (typeof value === 'string') return expand(value, path, context) ?? value;
  if (Array.isArray(value)) {
    return value.map((item: unknown, index) =>
      typeof item === 'string' ? (expand(item, [...path, index], context) ?? item) : item,
    );
  }
  if (isPlainObject(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, expandOptionValue(item, [...path, key], context)]),
    );
  }
  return value;
}

function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const { protocol } = new URL(text);
  return protocol === 'http:' || protocol === 'https:';
}

/** Reads one entry of `mcpServers`. Problems and warnings go to `context`. */
export function readServerEntry(name: string, raw: unknown, context: ServerReadContext): ServerReadResult {
  const path: ConfigPath = [context.serversKey ?? 'mcpServers', name];
  const invalid = (problem: Problem): ServerReadResult => {
    context.problems.push(problem);
    return { kind: 'invalid' };
  };
  if (name.trim() === '') return invalid({ path, message: 'a server needs a name' });
  if (!isPlainObject(raw)) return invalid({ path, message: `expected object, got ${describeKind(raw)}` });
  const entry = withoutNulls(raw);
  const chosen = chooseForm(entry, path);
  if ('message' in chosen) return invalid(chosen);
  const shapeProblem = commandShapeProblem(entry, chosen.form, path);
  if (shapeProblem !== undefined) return invalid(shapeProblem);
  const before = context.problems.length;
  checkKeys(entry, chosen.form, path, context);
  const parsed = parseForm(entry, chosen.form, path, context);
  if (parsed === undefined) return { kind: 'invalid' };
  if (parsed.entry.allowedTools !== undefined && parsed.entry.excludedTools !== undefined) {
    context.problems.push({ path, message: '"allowedTools" and "excludedTools" cannot both be set' });
  }
  if (context.problems.length > before) return { kind: 'invalid' };
  // A disabled server is checked but not expanded: it must not need its variables to be set.
  if (parsed.entry.disabled === true) return { kind: 'disabled' };

  const definition = toDefinition(parsed, chosen.transport, path, context);
  return definition === undefined || context.problems.length > before
    ? { kind: 'invalid' }
    : { kind: 'server', definition };
}

function toDefinition(
  parsed: ParsedEntry,
  transport: 'stdio' | 'http' | 'sse' | 'builtin',
  path: ConfigPath,
  context: ServerReadContext,
): ServerDefinition | undefined {
  switch (parsed.form) {
    case 'stdio': {
      const { entry } = parsed;
      const command = expand(entry.command, [...path, 'command'], context) ?? entry.command;
      if (command === '') {
        context.problems.push({ path: [...path, 'command'], message: EMPTY_AFTER_EXPANSION });
      }
      const args = expandList(entry.args ?? [], [...path, 'args'], context);
      return stdioDefinition({ command, args, env: entry.env ?? {} }, entry, path, 'env', context);
    }
    case 'local': {
      const { entry } = parsed;
      const [command = '', ...args] = expandList(entry.command, [...path, 'command'], context);
      if (command === '') {
        context.problems.push({ path: [...path, 'command', 0], message: EMPTY_AFTER_EXPANSION });
      }
      return stdioDefinition(
        { command, args, env: entry.environment ?? {} },
        entry,
        path,
        'environment',
        context,
      );
    }
    case 'remote':
      return remoteDefinition(parsed.entry, transport === 'sse' ? 'sse' : 'http', path, context);
    case 'builtin':
      return builtinDefinition(parsed.entry, path, context);
    default: {
      const unexpected: never = parsed;
      return unexpected;
    }
  }
}
