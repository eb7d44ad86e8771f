/**
 * How to reach one MCP server, after config parsing and variable expansion. The config layer
 * produces these; the pool consumes them. (src never imports config: this is the seam.)
 */
import type { BuiltinHost } from '../builtin/host.js';
import type { BuiltinServerSettings } from '../builtin/options.js';
import type { SandboxSettings } from '../safety/sandbox-settings.js';
import type { ToolChangePolicy } from '../safety/tool-pins.js';
import type { TasksMode } from './tasks/tasks-mode.js';

/** Settings every server kind shares. */
export interface ServerCommon {
  /** Only these tools (the server's own names) are offered. Exclusive with `excludedTools`. */
  readonly allowedTools?: readonly string[];
  /** These tools (the server's own names) are never offered. */
  readonly excludedTools?: readonly string[];
  /** How long the server may take to start and answer `initialize` + `tools/list`, in ms. */
  readonly initTimeoutMs?: number;
  /** How long one tool call may take, in ms (progress notifications extend it up to a maximum). */
  readonly toolTimeoutMs?: number;
  /**
   * Which roots the server is offered (see `server-roots.ts` for the rule when absent). `false`:
   * none (no `roots` capability, no `roots/list_changed`); a list: those folders (absolute, or
   * relative to the project folder); `true`: the shared roots even when its arguments name folders.
   */
  readonly roots?: boolean | readonly string[];
  /**
   * For batch runs: `shared` (the default) starts the server once for all jobs; `per-job` starts
   * its own process for each job, so state kept in the server does not pass between jobs.
   */
  readonly isolation?: 'shared' | 'per-job';
  /** What a tool definition that changed since it was pinned is met with (docs/safety.md). */
  readonly toolChanges?: ToolChangePolicy;
  /** Whether its tool calls may run as tasks (the tasks extension). Default `auto`. */
  readonly tasks?: TasksMode;
  /** How long a call that runs as a task may take in all, in ms. Default one hour. */
  readonly taskTimeoutMs?: number;
}

/** A server we start as a child process and talk to over its stdin/stdout. */
export interface StdioServerDefinition extends ServerCommon {
  readonly transport: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
  /** Variables added to the child's minimal environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Pass our whole environment (API keys included) instead of the minimal one. Off by default. */
  readonly inheritEnv: boolean;
  /** Run it in a sandbox with these settings (docs/safety.md). Absent: no sandbox. */
  readonly sandbox?: SandboxSettings;
}

/**
 * A server reached over HTTP. `http` is Streamable HTTP, falling back to the older SSE transport
 * when the server does not speak it; `sse` goes straight to SSE.
 */
export interface RemoteServerDefinition extends ServerCommon {
  readonly transport: 'http' | 'sse';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Sign-in settings. Absent: mcphost still signs in when the server asks (registering itself
   * dynamically); `false`: it never does (the server gets only the static headers).
   */
  readonly oauth?: OAuthSettings | false;
}

/** How mcphost signs in to a remote server that asks for OAuth (the MCP authorization spec). */
export interface OAuthSettings {
  /**
   * `authorization_code` (default): the user signs in in a browser. `client_credentials`: a
   * machine client signs in with its own id and secret, no person involved.
   */
  readonly grant: 'authorization_code' | 'client_credentials';
  /** A client id registered with the authorization server beforehand (else one is registered). */
  readonly clientId?: string;
  /** Its secret, for a confidential client (write it as `${VAR}`). */
  readonly clientSecret?: string;
  /** An https URL of a client ID metadata document, offered to servers that accept one. */
  readonly clientMetadataUrl?: string;
  /** Scopes to ask for when neither the server's challenge nor its metadata names any. */
  readonly scopes?: readonly string[];
  /** The loopback port of the redirect. Default: the port used last time, else a free one. */
  readonly redirectPort?: number;
}

/**
 * One of mcphost's own servers (`fs`, `bash`, `todo`, `fetch`), run inside this process over the
 * SDK's in-memory transport, so that it goes through the same pool, names and safety layer.
 */
export interface BuiltinServerDefinition extends ServerCommon {
  readonly transport: 'builtin';
  /** Which built-in server, with its checked options. */
  readonly builtin: BuiltinServerSettings;
  /** What the program lends it (never from a config file: an editor's files, terminal, plan view). */
  readonly host?: BuiltinHost;
}

/** How to reach one MCP server: started locally over stdio, remote over HTTP, or built in. */
export type ServerDefinition = StdioServerDefinition | RemoteServerDefinition | BuiltinServerDefinition;

/** A server reached over the network (the only kind that signs in). */
export function isRemoteServer(definition: ServerDefinition): definition is RemoteServerDefinition {
  return definition.transport === 'http' || definition.transport === 'sse';
}
