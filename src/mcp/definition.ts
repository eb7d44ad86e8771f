/**
 * How to reach one MCP server, after config parsing and variable expansion. The config layer
 * produces these; the pool consumes them. (src never imports config: this is the seam.)
 */
import type { BuiltinServerSettings } from '../builtin/options.js';

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
}

/**
 * A server reached over HTTP. `http` is Streamable HTTP, falling back to the older SSE transport
 * when the server does not speak it; `sse` goes straight to SSE.
 */
export interface RemoteServerDefinition extends ServerCommon {
  readonly transport: 'http' | 'sse';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * One of mcphost's own servers (`fs`, `bash`, `todo`, `fetch`), run inside this process over the
 * SDK's in-memory transport, so that it goes through the same pool, names and safety layer.
 */
export interface BuiltinServerDefinition extends ServerCommon {
  readonly transport: 'builtin';
  /** Which built-in server, with its checked options. */
  readonly builtin: BuiltinServerSettings;
}

/** How to reach one MCP server: started locally over stdio, remote over HTTP, or built in. */
export type ServerDefinition = StdioServerDefinition | RemoteServerDefinition | BuiltinServerDefinition;
