/**
 * What the client side offers a server besides calling its tools: answering its elicitations,
 * receiving its log messages, hearing that its resources or prompts changed.
 *
 * {@link configureClientFor} turns them into the pool's `configureClient` (issue 11's seam, called for
 * every SDK client before it connects). A handler that is absent leaves the matching capability
 * undeclared, so the server knows not to ask.
 */
import type {
  Client,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
} from '@modelcontextprotocol/client';
import type { ConfigureClient } from './server-session.js';
import type { ServerLogLevel, ServerLogMessage } from './server-logs.js';
import { SKILLS_EXTENSION } from './skills/extension-id.js';

/** MCP Apps' extension id and the one resource type it serves (also in src/apps/app-resource.ts). */
const APPS_EXTENSION = 'io.modelcontextprotocol/ui';
const APP_MIME_TYPE = 'text/html;profile=mcp-app';
import { definedProperties } from '../util/defined-properties.js';

/** A folder a server may work in, as `roots/list` gives it (`file://` URI, optional name). */
export interface Root {
  readonly uri: string;
  readonly name?: string;
}

/** What the pool's owner handles for every server. Each handler names the server it is about. */
export interface ServerFeatures {
  /** A server's `elicitation/create` (form or URL mode). The answer is sent back as is. */
  readonly elicit?: (
    server: string,
    params: ElicitRequestParams,
    signal: AbortSignal,
  ) => Promise<ElicitResult>;
  /**
   * A server's `sampling/createMessage`: resolves with the model's answer, or rejects (the
   * rejection, with its `code`, is the server's error answer).
   */
  readonly sample?: (
    server: string,
    // Deprecated by the 2026-07-28 revision (SEP-2577); 2025-era servers still ask.
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    params: CreateMessageRequestParams,
    signal: AbortSignal,
    // eslint-disable-next-line @typescript-eslint/no-deprecated
  ) => Promise<CreateMessageResult>;
  /** The folders a server may work in (`roots/list`); servers are told when they change. */
  readonly roots?: (server: string) => readonly Root[];
  /** A server finished a URL-mode elicitation (`notifications/elicitation/complete`). */
  readonly onElicitationComplete?: (server: string, elicitationId: string) => void;
  /** A server's `notifications/message`. */
  readonly onLogMessage?: (server: string, message: ServerLogMessage) => void;
  /** A server's resource list changed, or a subscribed resource was updated (`uri` set). */
  readonly onResourcesChanged?: (server: string, uri?: string) => void;
  /** A server's prompt list changed. */
  readonly onPromptsChanged?: (server: string) => void;
  /** Declare the skills extension (SEP-2640): the host lists servers' skills and loads them on demand. */
  readonly skills?: boolean;
  /** Declare MCP Apps (SEP-1865, `io.modelcontextprotocol/ui`): only where a page can show them. */
  readonly apps?: boolean;
}

/**
 * The pool's {@link ConfigureClient} for these features: declares the capabilities they need and
 * registers their handlers on every fresh SDK client (restarts too), bound to its server.
 */
export function configureClientFor(features: ServerFeatures): ConfigureClient {
  return (client, server, definition) => {
    const {
      elicit,
      sample,
      roots,
      onElicitationComplete,
      onLogMessage,
      onResourcesChanged,
      onPromptsChanged,
      skills,
      apps,
    } = features;
    if (skills === true) {
      client.registerCapabilities({ extensions: { [SKILLS_EXTENSION]: {} } });
    }
    if (apps === true) {
      client.registerCapabilities({
        extensions: { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } },
      });
    }
    if (elicit !== undefined) {
      // Both modes: URL mode is how a server asks for a secret without it passing through the client.
      client.registerCapabilities({ elicitation: { form: {}, url: {} } });
      client.setRequestHandler('elicitation/create', (request, context) =>
        elicit(server, request.params, context.mcpReq.signal),
      );
    }
    if (sample !== undefined) {
      // Deprecated by the 2026-07-28 revision (SEP-2577), still asked for by 2025-era servers.
      // Without `sampling.tools`: a server may not hand the host's model tools of its own.
      client.registerCapabilities({ sampling: {} });
      client.setRequestHandler('sampling/createMessage', (request, context) =>
        sample(server, request.params, context.mcpReq.signal),
      );
    }
    if (roots !== undefined && definition.roots !== false) {
      client.registerCapabilities({ roots: { listChanged: true } });
      client.setRequestHandler('roots/list', () => ({ roots: [...roots(server)] }));
    }
    if (onElicitationComplete !== undefined) {
      client.setNotificationHandler('notifications/elicitation/complete', (notification) => {
        onElicitationComplete(server, notification.params.elicitationId);
      });
    }
    if (onLogMessage !== undefined) {
      client.setNotificationHandler('notifications/message', (notification) => {
        const { level, logger, data } = notification.params;
        onLogMessage(server, { level, data, ...definedProperties({ logger }) });
      });
    }
    if (onResourcesChanged !== undefined) {
      client.setNotificationHandler('notifications/resources/list_changed', () => {
        onResourcesChanged(server);
      });
      client.setNotificationHandler('notifications/resources/updated', (notification) => {
        onResourcesChanged(server, notification.params.uri);
      });
    }
    if (onPromptsChanged !== undefined) {
      client.setNotificationHandler('notifications/prompts/list_changed', () => {
        onPromptsChanged(server);
      });
    }
  };
}

/** Tells a freshly connected server the log level wanted, when it can take one. Never throws. */
export async function applyLogLevel(
  client: Client,
  level: ServerLogLevel | undefined,
  onDebug: (message: string) => void,
): Promise<void> {
  if (level === undefined || client.getServerCapabilities()?.logging === undefined) return;
  try {
    // Deprecated by the 2026-07-28 revision, but the way to set the level for 2025-era servers.
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    await client.setLoggingLevel(level);
  } catch (error) {
    onDebug(`logging/setLevel ${level} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Tells a running server its roots changed (it asks for them again); a failure is only logged. */
export async function sendRootsChanged(client: Client, onDebug: (message: string) => void): Promise<void> {
  try {
    // Deprecated by the 2026-07-28 revision (SEP-2577), still how 2025-era servers learn of roots.
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    await client.sendRootsListChanged();
  } catch (error) {
    onDebug(`roots/list_changed not sent: ${error instanceof Error ? error.message : String(error)}`);
  }
}
