/**
 * `mcphost auth login|status|logout SERVER`: signing in to remote servers outside the chat.
 *
 * The handlers take plain options (no argument parser's types), so that they plug into any command
 * tree; {@link runAuthCommand} runs the one the yargs tree parsed. They print to the injected
 * streams only, and never a token: `status` says whether and until when, never what.
 */
import type { FetchLike } from '@modelcontextprotocol/client';
import { loadConfig, type LoadedConfig } from '../../../config/index.js';
import { isRemoteServer, type RemoteServerDefinition, type ServerDefinition } from '../../mcp/definition.js';
import { McpOAuthProvider } from '../../mcp/auth/provider.js';
import { revokeStoredTokens } from '../../mcp/auth/revoke.js';
import { signIn } from '../../mcp/auth/sign-in.js';
import {
  defaultSignInStorePath,
  SignInStore,
  serverKey,
  type SignInEntry,
} from '../../mcp/auth/token-store.js';
import { ConfigError, messageOf } from '../../core/errors.js';
import type { UserQuestions } from '../../core/questions.js';
import type { AuthCommand } from './auth-tree.js';
import { ExitCode, type ExitCodeValue } from '../exit-codes.js';
import { notice, pathIn, type CliIO } from '../io.js';
import { definedProperties } from '../../util/defined-properties.js';

/** What every auth command needs. */
export interface AuthCommandContext {
  readonly io: CliIO;
  /** The config's servers (and where it came from, for messages). */
  readonly config: Pick<LoadedConfig, 'servers' | 'path'>;
  readonly store: SignInStore;
  /** The clock, for "expires in". Default `Date.now`. */
  readonly now?: () => number;
}

/** What `auth login` needs besides the context. */
export interface AuthLoginOptions {
  readonly server: string;
  /** How the sign-in page reaches the person. Default: printed, and opened in the browser. */
  readonly questions?: UserQuestions;
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
}

/** A remote server of the config by name, or a ConfigError that lists the names there are. */
function remoteServer(context: AuthCommandContext, name: string, command: string): RemoteServerDefinition {
  const definition: ServerDefinition | undefined = context.config.servers[name];
  const where = context.config.path ?? 'the config';
  if (definition === undefined) {
    const known = Object.keys(context.config.servers).join(', ') || 'none';
    throw new ConfigError(`auth ${command}`, `no server named "${name}" in ${where} (servers: ${known})`);
  }
  if (!isRemoteServer(definition)) {
    throw new ConfigError(
      `auth ${command}`,
      `server "${name}" runs locally (${definition.transport}): there is nothing to sign in to`,
    );
  }
  return definition;
}

/** Signs in to one server in the browser, replacing any earlier sign-in. */
export async function authLogin(
  context: AuthCommandContext,
  options: AuthLoginOptions,
): Promise<ExitCodeValue> {
  const definition = remoteServer(context, options.server, 'login');
  if (definition.oauth === false) {
    throw new ConfigError(`auth login`, `server "${options.server}" has sign-in turned off ("oauth": false)`);
  }
  const provider = new McpOAuthProvider({
    server: options.server,
    serverUrl: definition.url,
    settings: definition.oauth ?? { grant: 'authorization_code' },
    store: context.store,
    ...(context.now ? { now: context.now } : {}),
  });
  const questions = options.questions ?? {
    signIn: (await import('../prompts/sign-in-prompt.js')).browserSignIn(context.io),
  };
  await signIn({
    provider,
    questions,
    fresh: true,
    ...(options.signal ? { signal: options.signal } : {}),
    ...definedProperties({ timeoutMs: options.timeoutMs }),
  });
  context.io.stdout.write(`Signed in to ${options.server}.\n`);
  return ExitCode.ok;
}

/** One line per remote server: its sign-in state, never a token. */
export async function authStatus(context: AuthCommandContext): Promise<ExitCodeValue> {
  const now = (context.now ?? Date.now)();
  const stored = await context.store.list();
  const rows: Array<[string, string, string]> = [];
  const listed = new Set<string>();
  for (const [name, definition] of Object.entries(context.config.servers)) {
    if (!isRemoteServer(definition)) continue;
    const key = serverKey(definition.url);
    listed.add(key);
    rows.push([name, definition.url, describeState(definition, stored.get(key), now)]);
  }
  for (const [key, entry] of stored) {
    if (!listed.has(key)) rows.push(['(not in config)', key, describeState(undefined, entry, now)]);
  }
  if (rows.length === 0) {
    context.io.stdout.write('No remote servers in the config, and no sign-ins stored.\n');
    return ExitCode.ok;
  }
  const width = (column: 0 | 1) => Math.max(...rows.map((row) => row[column].length));
  for (const [name, url, state] of rows) {
    context.io.stdout.write(`${name.padEnd(width(0))}  ${url.padEnd(width(1))}  ${state}\n`);
  }
  return ExitCode.ok;
}

function describeState(
  definition: RemoteServerDefinition | undefined,
  entry: SignInEntry | undefined,
  now: number,
) {
  if (definition?.oauth === false) return 'sign-in off';
  if (
    definition !== undefined &&
    Object.keys(definition.headers).some((name) => name.toLowerCase() === 'authorization')
  ) {
    return 'uses its Authorization header';
  }
  const tokens = entry?.tokens;
  if (tokens === undefined) return 'not signed in';
  if (tokens.expires_in === undefined || entry?.obtainedAt === undefined) return 'signed in';
  const left = entry.obtainedAt + tokens.expires_in * 1000 - now;
  if (left > 0) return `signed in (expires in ${formatDuration(left)})`;
  return tokens.refresh_token === undefined ? 'expired: sign in again' : 'signed in (renewed on next use)';
}

function formatDuration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return 'under a minute';
  if (minutes < 120) return `${minutes} min`;
  return `${Math.round(minutes / 60)} h`;
}

/**
 * Signs out of a server: revokes its tokens where the authorization server advertises a
 * revocation endpoint (RFC 7009), and forgets its tokens and registration in any case. A failed
 * revocation is a one-line warning, not a failure: the local sign-in is gone either way.
 */
export async function authLogout(
  context: AuthCommandContext,
  server: string,
  fetchFn?: FetchLike,
): Promise<ExitCodeValue> {
  const definition = remoteServer(context, server, 'logout');
  const entry = await context.store.get(definition.url);
  const revocation = await revokeStoredTokens({
    serverUrl: definition.url,
    entry,
    settings: definition.oauth === false ? {} : (definition.oauth ?? {}),
    ...definedProperties({ fetch: fetchFn }),
  });
  const had = await context.store.forget(definition.url);
  switch (revocation.kind) {
    case 'failed':
      notice(context.io, `warning: ${server}: tokens not revoked at the server: ${revocation.reason}`);
      break;
    case 'revoked':
    case 'not-supported':
    case 'nothing-stored':
      break;
    default: {
      const unknown: never = revocation;
      throw new Error(`unknown revocation outcome ${JSON.stringify(unknown)}`);
    }
  }
  const revoked = revocation.kind === 'revoked' ? ' (tokens revoked at the server)' : '';
  context.io.stdout.write(had ? `Signed out of ${server}${revoked}.\n` : `${server} was not signed in.\n`);
  return ExitCode.ok;
}

/** What {@link runAuthCommand} needs besides the command. */
export interface RunAuthOptions {
  readonly io: CliIO;
  /** `--config`: read the servers from this file instead of the search. */
  readonly configPath?: string;
  /** Stops a sign-in that waits for the browser (Ctrl-C). */
  readonly signal: AbortSignal;
}

/**
 * Runs one `mcphost auth …` command, as the command tree parsed it. Loads the config as the chat
 * would (`--config`, else the search), and turns a failure into one line.
 */
export async function runAuthCommand(command: AuthCommand, options: RunAuthOptions): Promise<ExitCodeValue> {
  const { io } = options;
  try {
    const configPath = pathIn(io, options.configPath);
    const config = await loadConfig({
      configPath,
      homeDir: io.homeDir,
      env: io.env,
      projectDir: io.cwd,
    });
    const context: AuthCommandContext = {
      io,
      config,
      store: new SignInStore(defaultSignInStorePath(io.homeDir, io.env)),
    };
    switch (command.action) {
      case 'status':
        return await authStatus(context);
      case 'logout':
        return await authLogout(context, command.server);
      case 'login':
        return await authLogin(context, { server: command.server, signal: options.signal });
      default: {
        const unknown: never = command;
        throw new Error(`unknown auth command ${JSON.stringify(unknown)}`);
      }
    }
  } catch (error) {
    notice(io, messageOf(error).replace(/\s*\n\s*/g, ' '));
    return error instanceof ConfigError ? ExitCode.usage : ExitCode.internal;
  }
}
