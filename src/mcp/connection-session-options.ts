/**
 * The options one start of a connection opens its session with: the connection's settings plus
 * what the start itself adds (its hooks, its abort signal). Kept out of server-connection.ts.
 */
import type { ServerConnectionOptions } from './connection-options.js';
import type { OpenServerSessionOptions } from './server-session.js';
import { definedProperties } from '../util/defined-properties.js';

/** What one start adds to the connection's settings. */
export type SessionStartHooks = Pick<
  OpenServerSessionOptions,
  | 'onDebug'
  | 'onStderrLine'
  | 'onToolsChanged'
  | 'onClosed'
  | 'onSpawn'
  | 'signal'
  | 'knownLegacy'
  | 'spawnedProcess'
>;

export function sessionOptionsFor(
  options: ServerConnectionOptions,
  hooks: SessionStartHooks,
): OpenServerSessionOptions {
  return {
    ...hooks,
    serverName: options.name,
    definition: options.definition,
    ...(options.configureClient ? { configureClient: options.configureClient } : {}),
    ...(options.authProvider ? { authProvider: options.authProvider } : {}),
    parentEnv: options.parentEnv,
    clientInfo: options.clientInfo,
    initTimeoutMs: options.initTimeoutMs,
    ...definedProperties({ killGraceMs: options.killGraceMs }),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...definedProperties({ onListChanged: options.onListChanged, traceContext: options.traceContext }),
  };
}
