/**
 * What the client side offers a server besides calling its tools: answering its elicitations,
 * receiving its log messages, hearing that its resources or prompts changed.
 *
 * {@link ServerFeatures} is what the pool is given (every handler names the server it is about);
 * {@link SessionFeatures} is the same bound to one server, handed to the SDK `Client` of a session.
 * A handler that is absent leaves the matching capability undeclared, so the server knows not to ask.
 */
import type {
  Client,
  ClientCapabilities,
  ElicitRequestParams,
  ElicitResult,
} from '@modelcontextprotocol/client';
import type { ServerLogLevel, ServerLogMessage } from './server-logs.js';

/** What the pool's owner handles for every server. */
export interface ServerFeatures {
  /** A server's `elicitation/create` (form or URL mode). The answer is sent back as is. */
  readonly elicit?: (
    server: string,
    params: ElicitRequestParams,
    signal: AbortSignal,
  ) => Promise<ElicitResult>;
  /** A server finished a URL-mode elicitation (`notifications/elicitation/complete`). */
  readonly onElicitationComplete?: (server: string, elicitationId: string) => void;
  /** A server's `notifications/message`. */
  readonly onLogMessage?: (server: string, message: ServerLogMessage) => void;
  /** The least severe level servers should send (`logging/setLevel`, sent after connecting). */
  readonly logLevel?: ServerLogLevel;
  /** A server's resource list changed, or a subscribed resource was updated (`uri` set). */
  readonly onResourcesChanged?: (server: string, uri?: string) => void;
  /** A server's prompt list changed. */
  readonly onPromptsChanged?: (server: string) => void;
}

/** {@link ServerFeatures} bound to one server. */
export interface SessionFeatures {
  readonly elicit?: (params: ElicitRequestParams, signal: AbortSignal) => Promise<ElicitResult>;
  readonly onElicitationComplete?: (elicitationId: string) => void;
  readonly onLogMessage?: (message: ServerLogMessage) => void;
  readonly logLevel?: ServerLogLevel;
  readonly onResourcesChanged?: (uri?: string) => void;
  readonly onPromptsChanged?: () => void;
}

/** Binds every handler of `features` to `server`. */
export function bindFeatures(features: ServerFeatures, server: string): SessionFeatures {
  const { elicit, onElicitationComplete, onLogMessage, onResourcesChanged, onPromptsChanged } = features;
  return {
    ...(elicit === undefined ? {} : { elicit: (params, signal) => elicit(server, params, signal) }),
    ...(onElicitationComplete === undefined
      ? {}
      : { onElicitationComplete: (id: string) => onElicitationComplete(server, id) }),
    ...(onLogMessage === undefined ? {} : { onLogMessage: (message) => onLogMessage(server, message) }),
    ...(features.logLevel === undefined ? {} : { logLevel: features.logLevel }),
    ...(onResourcesChanged === undefined
      ? {}
      : { onResourcesChanged: (uri?: string) => onResourcesChanged(server, uri) }),
    ...(onPromptsChanged === undefined ? {} : { onPromptsChanged: () => onPromptsChanged(server) }),
  };
}

/** The capabilities to declare in `initialize` for these features. */
export function capabilitiesOf(features: SessionFeatures | undefined): ClientCapabilities {
  // Both modes: URL mode is how a server asks for a secret without it passing through the client.
  return features?.elicit === undefined ? {} : { elicitation: { form: {}, url: {} } };
}

/** Registers the request and notification handlers of `features` on a client (before connecting). */
export function installFeatureHandlers(client: Client, features: SessionFeatures | undefined): void {
  if (features === undefined) return;
  const { elicit } = features;
  if (elicit !== undefined) {
    client.setRequestHandler('elicitation/create', (request, context) =>
      elicit(request.params, context.mcpReq.signal),
    );
  }
  const { onElicitationComplete, onLogMessage, onResourcesChanged, onPromptsChanged } = features;
  if (onElicitationComplete !== undefined) {
    client.setNotificationHandler('notifications/elicitation/complete', (notification) => {
      onElicitationComplete(notification.params.elicitationId);
    });
  }
  if (onLogMessage !== undefined) {
    client.setNotificationHandler('notifications/message', (notification) => {
      const { level, logger, data } = notification.params;
      onLogMessage({ level, data, ...(logger === undefined ? {} : { logger }) });
    });
  }
  if (onResourcesChanged !== undefined) {
    client.setNotificationHandler('notifications/resources/list_changed', () => {
      onResourcesChanged();
    });
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      onResourcesChanged(notification.params.uri);
    });
  }
  if (onPromptsChanged !== undefined) {
    client.setNotificationHandler('notifications/prompts/list_changed', () => {
      onPromptsChanged();
    });
  }
}

/** Tells a freshly connected server the log level wanted, when it can take one. Never throws. */
export async function applyLogLevel(
  client: Client,
  features: { readonly logLevel?: ServerLogLevel } | undefined,
  onDebug: (message: string) => void,
): Promise<void> {
  const level = features?.logLevel;
  if (level === undefined || client.getServerCapabilities()?.logging === undefined) return;
  try {
    // Deprecated by the 2026-07-28 revision, but the way to set the level for 2025-era servers.
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    await client.setLoggingLevel(level);
  } catch (error) {
    onDebug(`logging/setLevel ${level} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
