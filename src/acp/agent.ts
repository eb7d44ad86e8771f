/**
 * mcphost as an ACP agent: the handlers of the protocol's agent side, over the same Runner, pool
 * and guard as the chat. Each session has its own runner (the configured servers and the editor's);
 * sessions are saved conversations.
 */
import {
  agent,
  PROTOCOL_VERSION,
  RequestError,
  type AgentApp,
  type AgentContext,
  type ClientCapabilities,
  type InitializeResponse,
  type ListSessionsResponse,
  type McpServer,
} from '@agentclientprotocol/sdk';
import { isAbsolute } from 'node:path';
import { messageOf } from '../core/errors.js';
import { definedProperties } from '../util/defined-properties.js';
import { assembleRunner, type Assembly, type CreateRunnerOptions } from '../setup/create-runner.js';
import type { HostEvent } from '../setup/host-event.js';
import type { KeptPermissions } from '../safety/kept-permissions.js';
import { AcpSession } from './acp-session.js';
import { editorElicitation } from './elicitation.js';
import { editorFiles } from './editor-files.js';
import { editorServers } from './editor-servers.js';
import { editorTerminal } from './editor-terminal.js';
import { MODEL_OPTION_ID } from './model-option.js';
import { DEFAULT_MODE, isSessionMode, modeCheck, modeState } from './modes.js';
import { editorApproval } from './permission.js';
import { replayUpdates } from './replay.js';
import { ToolCallLinks } from './tool-call-links.js';
import type { AcpSessionStore, StoredConversation } from './session-store.js';
import { UpdateSender } from './update-sender.js';
import { linkAppsToEditor } from './app-links.js';

export interface AcpAgentOptions {
  /** The runner options the command line and config give, for a session working in `cwd`. */
  readonly runnerOptions: (cwd: string) => CreateRunnerOptions;
  readonly store: AcpSessionStore;
  /** One line to stderr (stdout is the protocol's). */
  readonly log: (line: string) => void;
  readonly version: string;
  readonly debug: boolean;
  /** Where sessions are listed when `session/list` names no folder. */
  readonly defaultCwd: string;
  /**
   * The "always allow" answers the chat keeps for a folder (`tk`/`sk`): they stand in for the
   * editor's question there too. The editor's own "always" answers are kept for the session only.
   */
  readonly keptPermissions?: (cwd: string) => Promise<KeptPermissions>;
}

/** The agent app, and how to close every session's servers. */
export function createAcpAgent(options: AcpAgentOptions): { app: AgentApp; close: () => Promise<void> } {
  const sessions = new Map<string, AcpSession>();
  let clientCapabilities: ClientCapabilities = {};
  const app = agent({ name: 'mcphost' })
    .onRequest('initialize', ({ params }): InitializeResponse => {
      clientCapabilities = params.clientCapabilities ?? {};
      return {
        // Version 1 is the one this agent speaks; a client asking for another decides whether to go on.
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: true },
          sessionCapabilities: { list: {} },
        },
        agentInfo: { name: 'mcphost', title: 'mcphost', version: options.version },
        authMethods: [],
      };
    })
    .onRequest('session/new', async ({ params, client, signal }) => {
      const conversation = await options.store.create(checkedCwd(params.cwd));
      const session = await openSession({
        ...parts(client, signal),
        cwd: params.cwd,
        servers: params.mcpServers,
        conversation,
      });
      sessions.set(session.id, session);
      // The commands follow the answer: the editor knows the session once it has its id.
      const configOptions = await session.configOptions();
      setImmediate(() => void session.announceCommands());
      return { sessionId: session.id, modes: modeState(session.mode), configOptions };
    })
    .onRequest('session/load', async ({ params, client, signal }) => {
      const cwd = checkedCwd(params.cwd);
      const conversation = await options.store.open(cwd, params.sessionId);
      if (conversation === undefined) throw RequestError.sessionNotFound(params.sessionId);
      await sessions.get(params.sessionId)?.runner.close();
      const session = await openSession({
        ...parts(client, signal),
        cwd,
        servers: params.mcpServers,
        conversation,
        history: conversation.messages,
        ...(conversation.model === undefined ? {} : { model: conversation.model }),
      });
      sessions.set(session.id, session);
      // The conversation so far, before the answer (the spec's order).
      for (const update of replayUpdates(conversation.messages, (name) => session.runner.pool.locate(name))) {
        session.sender.send(update);
      }
      await session.sender.flushed();
      const configOptions = await session.configOptions();
      setImmediate(() => void session.announceCommands());
      return { modes: modeState(session.mode), configOptions };
    })
    .onRequest('session/list', async ({ params }): Promise<ListSessionsResponse> => {
      const cwd = params.cwd ?? options.defaultCwd;
      const listed = await options.store.list(checkedCwd(cwd));
      return {
        sessions: listed.map((entry) => ({
          sessionId: entry.id,
          cwd,
          title: entry.title,
          updatedAt: entry.updatedAt.toISOString(),
        })),
      };
    })
    .onRequest('session/set_mode', ({ params }) => {
      const session = sessionOf(params.sessionId);
      if (!isSessionMode(params.modeId)) {
        throw RequestError.invalidParams({ modeId: params.modeId }, `unknown mode "${params.modeId}"`);
      }
      session.mode = params.modeId;
      return {};
    })
    .onRequest('session/set_config_option', async ({ params }) => {
      const session = sessionOf(params.sessionId);
      if (params.configId !== MODEL_OPTION_ID || typeof params.value !== 'string') {
        throw RequestError.invalidParams(
          { configId: params.configId },
          `unknown config option "${params.configId}" (this agent has "${MODEL_OPTION_ID}", a select)`,
        );
      }
      await session.setModel(params.value);
      return { configOptions: await session.configOptions() };
    })
    .onRequest('session/prompt', ({ params }) => sessionOf(params.sessionId).prompt(params.prompt))
    .onNotification('session/cancel', ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    });

  function sessionOf(id: string): AcpSession {
    const session = sessions.get(id);
    if (session === undefined) throw RequestError.sessionNotFound(id);
    return session;
  }

  function parts(client: AgentContext, signal: AbortSignal): SessionStart {
    return { client, signal, capabilities: clientCapabilities };
  }

  async function openSession(start: OpenSessionOptions): Promise<AcpSession> {
    const { conversation } = start;
    const base = options.runnerOptions(start.cwd);
    // The runner's callbacks need the session, which needs the runner: they read it from here.
    const holder: { session?: AcpSession } = {};
    const sender = new UpdateSender(start.client, conversation.id, options.log);
    const links = new ToolCallLinks();
    const { client, capabilities } = start;
    const onEvent = (event: HostEvent): void => {
      const line = hostEventLine(event, options.debug);
      if (line === undefined) return;
      if (event.type === 'warning' && holder.session !== undefined) holder.session.warn(line);
      else options.log(line);
    };
    let assembly: Assembly;
    try {
      const kept = await options.keptPermissions?.(start.cwd);
      assembly = await assembleRunner({
        ...base,
        projectDir: start.cwd,
        additionalServers: editorServers(start.servers, start.cwd),
        ...(start.history === undefined ? {} : { history: start.history }),
        ...(start.model === undefined || base.model !== undefined ? {} : { model: start.model }),
        interactive: true,
        signal: start.signal,
        // The built-in servers work in the session's folder, on the editor's buffers and terminal.
        builtinHost: {
          cwd: start.cwd,
          files: editorFiles({
            client,
            sessionId: conversation.id,
            capabilities,
            onWrite: (write) => {
              links.wrote(write);
            },
          }),
          ...(capabilities.terminal === true
            ? {
                terminal: editorTerminal({
                  client,
                  sessionId: conversation.id,
                  onCreated: (command, terminalId) => holder.session?.showTerminal(command, terminalId),
                }),
              }
            : {}),
          onTodos: (items) => holder.session?.showPlan(items),
        },
        safety: {
          ...base.safety,
          sessionMode: modeCheck(() => holder.session?.mode ?? DEFAULT_MODE),
          ...definedProperties({ keptPermissions: kept }),
        },
        questions: {
          approveToolCall: editorApproval({
            client: start.client,
            sessionId: () => conversation.id,
            locate: (name) => holder.session?.runner.pool.locate(name),
          }),
          ...definedProperties({
            elicit: editorElicitation({
              client,
              sessionId: () => conversation.id,
              capabilities,
              runningCallOf: (server) => links.runningCallOf(server),
              turnSignal: () => holder.session?.turnSignal,
            }),
          }),
        },
        onEvent,
        onHistoryChange: (history, change) => conversation.record(assembly.runner, history, change),
      });
    } catch (error) {
      throw RequestError.internalError(undefined, `the session could not start: ${messageOf(error)}`);
    }
    const { runner } = assembly;
    const session = new AcpSession({
      id: conversation.id,
      cwd: start.cwd,
      runner,
      links,
      modelStart: {
        modelString: assembly.modelString,
        options: base,
        config: assembly.config,
        env: base.env ?? process.env,
      },
      sender,
      notices: {
        supported:
          start.capabilities.session?.notices !== undefined && start.capabilities.session.notices !== null,
      },
      log: options.log,
    });
    // A server that could not start is said in the session (its name and why), not only on stderr.
    for (const server of runner.servers) {
      if (server.state === 'failed') {
        session.warn(`server "${server.name}" did not start: ${server.lastError ?? 'no reason given'}`);
      }
    }
    holder.session = session;
    linkAppsToEditor(session, options.log);
    return session;
  }

  return {
    app,
    close: async () => {
      await Promise.all([...sessions.values()].map((session) => session.runner.close()));
      sessions.clear();
    },
  };
}

interface SessionStart {
  readonly client: AgentContext;
  readonly signal: AbortSignal;
  readonly capabilities: ClientCapabilities;
}

interface OpenSessionOptions extends SessionStart {
  readonly cwd: string;
  readonly servers: readonly McpServer[];
  readonly conversation: StoredConversation;
  readonly history?: ReopenedHistory;
  readonly model?: string;
}

type ReopenedHistory = Parameters<typeof replayUpdates>[0];

/** ACP paths are absolute; a relative one is the editor's mistake, said as such. */
function checkedCwd(cwd: string): string {
  if (!isAbsolute(cwd))
    throw RequestError.invalidParams({ cwd }, `cwd must be an absolute path, got "${cwd}"`);
  return cwd;
}

/** A host notice as one stderr line, or nothing (debug lines without --debug). */
function hostEventLine(event: HostEvent, debug: boolean): string | undefined {
  switch (event.type) {
    case 'server-log':
      return event.entry.level === 'warn' || debug
        ? `${event.entry.server}: ${event.entry.message}`
        : undefined;
    case 'warning':
      return `warning: ${event.message}`;
    case 'server-log-message':
    case 'elicitation-outcome':
    case 'sampling-outcome':
    case 'tool-progress':
    case 'offerings-change':
    case 'content-flagged':
    case 'tool-change':
      return debug ? `${event.type}: ${JSON.stringify(event).slice(0, 500)}` : undefined;
    default: {
      const unexpected: never = event;
      throw new TypeError(`unknown host event ${JSON.stringify(unexpected)}`);
    }
  }
}
