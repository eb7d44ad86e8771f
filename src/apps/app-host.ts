/**
 * The MCP Apps of a session (SEP-1865, `io.modelcontextprotocol/ui`): which tool calls open an
 * app, and what an app may ask of the host. The library's `runner.apps`; the page server
 * (page-server.ts) shows them in a browser, a program may connect its own frames instead.
 *
 * The rules: an app's tool calls pass the same guard as the model's (approval, pins, budgets,
 * audit — the audit line carries `fromApp`); an app reaches its own server only, and is the only
 * caller of that server's app-only tools (`visibility: ["app"]`); a tool only for the model
 * (`visibility: ["model"]`) is refused to it.
 */
import type { CallToolResult, Client, ReadResourceResult, Tool } from '@modelcontextprotocol/client';
import type { McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-bridge';
import { randomUUID } from 'node:crypto';
import type { RunnerEvent } from '../core/events.js';
import type { ToolCallBlock, ToolHost } from '../core/types.js';
import { messageOf } from '../core/errors.js';
import type { ToolLocation } from '../safety/tool-location.js';
import { FanOut } from '../util/fan-out.js';
import { definedProperties } from '../util/defined-properties.js';
import { DEFAULT_MAX_APP_BYTES, readAppResource, uiResourceUriOf } from './app-resource.js';
import type { AppEvent } from './app-events.js';
import { callToolResultOf, HostedApp, type AppServices } from './hosted-app.js';

export type { AppEvent } from './app-events.js';
export { HostedApp } from './hosted-app.js';

/** What the apps need of the MCP pool (McpPool has it). */
export interface AppPool {
  locate(exposedName: string): ToolLocation | undefined;
  client(server: string, signal?: AbortSignal): Promise<Client>;
  exposedNameOf(server: string, tool: string): Promise<string | undefined>;
}

/** How a session's apps are hosted. */
export interface AppHostOptions {
  readonly pool: AppPool;
  /** The guard every app call passes (a getter: the guard is built around the observed host). */
  readonly guard: () => ToolHost | undefined;
  readonly hostInfo?: { readonly name: string; readonly version: string };
  /** The page's theme. Default `light`. */
  readonly theme?: 'light' | 'dark';
  /** BCP 47. Default: this process's locale. */
  readonly locale?: string;
  /** The largest app document served, in bytes. Default {@link DEFAULT_MAX_APP_BYTES}. */
  readonly maxAppBytes?: number;
  /** Asked before a link an app names opens (`ui/open-link`); missing: links never open. */
  readonly openLink?: (request: { readonly app: HostedApp; readonly url: string }) => Promise<boolean>;
  readonly now?: () => number;
}

/** The apps of one session. */
export class AppHost {
  readonly #options: AppHostOptions;
  readonly #apps = new Map<string, HostedApp>();
  readonly #events = new FanOut<AppEvent>();
  /** The structuredContent of an app's calls, by call id, from the pool until its answer is sent. */
  readonly #structuredContent = new Map<string, Readonly<Record<string, unknown>>>();
  /**
   * The model's calls of the current run, by call id: their app, or undefined for a call to a tool
   * without one (so that each piece of its streamed input does not look again). Emptied at the end
   * of each run.
   */
  readonly #modelCalls = new Map<string, HostedApp | undefined>();
  #messageTakers = 0;
  #openLink: AppHostOptions['openLink'];
  #calls = 0;
  #closed = false;

  constructor(options: AppHostOptions) {
    this.#options = options;
    this.#openLink = options.openLink;
  }

  /** The apps of the session, newest first. */
  list(): readonly HostedApp[] {
    return [...this.#apps.values()].reverse();
  }

  /** One app by id. */
  get(id: string): HostedApp | undefined {
    return this.#apps.get(id);
  }

  /**
   * Hears every app event until the returned function is called. With `takesMessages`, the
   * listener promises to turn each `message` event into a turn of the conversation; while none
   * does, an app's `ui/message` is answered with an error (nothing would read it).
   */
  listen(
    listener: (event: AppEvent) => void,
    options: { readonly takesMessages?: boolean } = {},
  ): () => void {
    const stop = this.#events.listen(listener);
    const takes = options.takesMessages === true;
    if (takes) this.#messageTakers += 1;
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      if (takes) this.#messageTakers -= 1;
      stop();
    };
  }

  /**
   * Who is asked before a link an app names opens (`ui/open-link`), in place of the options' `openLink`:
   * for a front end that can ask only once it runs (the chat).
   */
  askBeforeOpeningLinks(ask: NonNullable<AppHostOptions['openLink']>): void {
    this.#openLink = ask;
  }

  /** Tells every listener. For the page server; apps announce through their services. */
  announce(event: AppEvent): void {
    this.#events.announce(event);
  }

  /**
   * The model-context updates of every app, as one text for the next turn, and forgets them (each
   * update is given to the model once).
   */
  takeModelContext(): string | undefined {
    const parts: string[] = [];
    for (const app of this.#apps.values()) {
      if (app.modelContext === undefined) continue;
      parts.push(`[context from the app of ${app.call.name} (${app.id})]\n${app.modelContext}`);
      app.modelContext = undefined;
    }
    return parts.length === 0 ? undefined : parts.join('\n\n');
  }

  /**
   * The events of the session's runs (McpRunner passes them all). A call the model is still writing
   * to a tool with an interface opens its app at once, before the guard decides on it: the app is
   * sent the input as it grows (`ui/notifications/tool-input-partial`), the whole input when the
   * call is complete, and — if the guard refuses the call — its cancellation.
   */
  hear(event: RunnerEvent): void {
    switch (event.type) {
      case 'tool-call-delta': {
        let app = this.#modelCalls.get(event.id);
        if (app === undefined && !this.#modelCalls.has(event.id)) {
          const call: ToolCallBlock = { type: 'tool-call', id: event.id, name: event.name, input: {} };
          app = this.openFor(call, { streaming: true });
          this.#modelCalls.set(event.id, app);
        }
        app?.toolInputPartial(event.argumentsText);
        return;
      }
      case 'tool-call':
        this.#modelCalls.get(event.call.id)?.toolInput(event.call);
        return;
      case 'tool-result': {
        // A call that reached its server has its result already (observe); one the guard refused did not.
        const { call, result } = event.record;
        const why = result.content.find((block) => block.type === 'text')?.text.split('\n')[0] ?? '';
        this.#modelCalls
          .get(call.id)
          ?.toolCallEnded(`the tool call did not run${why === '' ? '' : `: ${why}`}`);
        return;
      }
      case 'step-start':
      case 'text-delta':
      case 'reasoning-delta':
      case 'retry':
      case 'step-finish':
      case 'compaction':
      case 'tool-mode':
      case 'agent-event': // a subagent's calls open their apps as they run (observe)
      case 'done':
        return;
      default: {
        const unexpected: never = event;
        throw new TypeError(`unknown runner event ${JSON.stringify(unexpected)}`);
      }
    }
  }

  /** A run ended: an app whose call was still being written (the model call failed) is cancelled. */
  runEnded(): void {
    for (const app of this.#modelCalls.values()) {
      app?.toolCallEnded('the model stopped before the tool call was complete');
    }
    this.#modelCalls.clear();
  }

  /**
   * `inner` (the pool, inside the guard), watched: a call the guard let through to a tool with an
   * interface opens its app (or goes on with the one opened while the model wrote it), which then
   * gets the call's input and result (or its cancellation).
   */
  observe(inner: ToolHost): ToolHost {
    return {
      tools: () => inner.tools(),
      call: async (call, signal) => {
        const app = call.fromApp === undefined ? this.#appOfModelCall(call) : undefined;
        // The server's structuredContent is for the app only: kept here, taken off what goes on
        // to the guard, the model and the history.
        const { structuredContent, ...result } = await inner.call(
          { ...call, keepStructuredContent: true },
          signal,
        );
        if (call.fromApp !== undefined && structuredContent !== undefined) {
          this.#structuredContent.set(call.id, structuredContent);
        }
        if (app !== undefined) {
          if (signal?.aborted === true) app.toolCancelled('the tool call was cancelled');
          else app.toolResult({ ...result, ...definedProperties({ structuredContent }) });
        }
        return result;
      },
    };
  }

  /** The app opened while the model wrote this call (now told its input as it runs), or a new one. */
  #appOfModelCall(call: ToolCallBlock): HostedApp | undefined {
    const streamed = this.#modelCalls.get(call.id);
    if (streamed === undefined) return this.openFor(call);
    streamed.toolInput(call);
    return streamed;
  }

  /**
   * Opens the app of a call to a tool with an interface; undefined for any other call. With
   * `streaming`, the model is still writing the call's input (see {@link HostedApp.toolInputPartial}).
   */
  openFor(call: ToolCallBlock, options: { readonly streaming?: boolean } = {}): HostedApp | undefined {
    if (this.#closed) return undefined;
    const location = this.#options.pool.locate(call.name);
    const tool = location?.definition as Tool | undefined;
    const uri = uiResourceUriOf(tool);
    if (location === undefined || tool === undefined || uri === undefined) return undefined;
    const id = `app-${this.#apps.size + 1}-${randomUUID().slice(0, 8)}`;
    const maxBytes = this.#options.maxAppBytes ?? DEFAULT_MAX_APP_BYTES;
    const resource = this.#options.pool
      .client(location.server)
      .then((client) => readAppResource(client, uri, maxBytes))
      .catch((error: unknown) => ({ kind: 'refused' as const, reason: `${uri}: ${messageOf(error)}` }));
    const app = new HostedApp({
      id,
      server: location.server,
      tool,
      call,
      resource,
      services: this.#services(),
      now: (this.#options.now ?? Date.now)(),
      streaming: options.streaming === true,
    });
    this.#apps.set(id, app);
    void resource.then((outcome) => {
      if (outcome.kind === 'refused') {
        this.announce({ type: 'refused', app, reason: `app of ${call.name} not shown: ${outcome.reason}` });
        return;
      }
      for (const rejected of outcome.resource.policy.rejected) {
        this.announce({
          type: 'refused',
          app,
          reason: `app of ${call.name}: CSP entry left out (not an origin): ${rejected}`,
        });
      }
    });
    this.announce({ type: 'app-opened', app });
    return app;
  }

  /** Tears every app down. The session is ending. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#apps.values()].map((app) => app.close()));
  }

  #services(): AppServices {
    return {
      hostInfo: this.#options.hostInfo ?? { name: 'mcphost', version: '0' },
      hostContext: () => this.#hostContext(),
      callTool: (app, name, input, signal) => this.#callTool(app, name, input, signal),
      readResource: (app, uri, signal) => this.#readResource(app, uri, signal),
      openLink: async (app, url) => {
        const ask = this.#openLink;
        const allowed = ask === undefined ? false : await ask({ app, url }).catch(() => false);
        this.announce({ type: 'log', app, text: `open-link ${url}: ${allowed ? 'opened' : 'not opened'}` });
        return allowed;
      },
      takesMessages: () => this.#messageTakers > 0,
      announce: (event) => {
        this.announce(event);
      },
    };
  }

  #hostContext(): McpUiHostContext {
    const { timeZone, locale } = Intl.DateTimeFormat().resolvedOptions();
    return { theme: this.#options.theme ?? 'light', locale: this.#options.locale ?? locale, timeZone };
  }

  async #callTool(
    app: HostedApp,
    name: string,
    input: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    const refuse = (reason: string): CallToolResult => {
      this.announce({ type: 'refused', app, reason: `app ${app.id}: ${reason}` });
      return { content: [{ type: 'text', text: reason }], isError: true };
    };
    const guard = this.#options.guard();
    if (guard === undefined || app.closed) return refuse('the session is ending');
    const exposedName = await this.#options.pool.exposedNameOf(app.server, name);
    if (exposedName === undefined) {
      return refuse(
        `tools/call "${name}" refused: an app may call only its own server's tools, and server "${app.server}" has no tool "${name}"`,
      );
    }
    const definition = this.#options.pool.locate(exposedName)?.definition as Tool | undefined;
    if (isModelOnly(definition)) {
      return refuse(`tools/call "${name}" refused: the tool is for the model only (visibility ["model"])`);
    }
    this.#calls += 1;
    const call: ToolCallBlock = {
      type: 'tool-call',
      id: `${app.id}-call-${this.#calls}`,
      name: exposedName,
      input,
      fromApp: app.id,
    };
    const result = await guard.call(call, signal);
    const structuredContent = this.#structuredContent.get(call.id);
    this.#structuredContent.delete(call.id);
    this.announce({ type: 'log', app, text: `tools/call ${name}: ${result.isError ? 'error' : 'ok'}` });
    return callToolResultOf({ ...result, ...definedProperties({ structuredContent }) });
  }

  async #readResource(app: HostedApp, uri: string, signal: AbortSignal): Promise<ReadResourceResult> {
    const client = await this.#options.pool.client(app.server, signal);
    const result = await client.readResource({ uri }, { signal });
    this.announce({ type: 'log', app, text: `resources/read ${uri}` });
    return result;
  }
}

function isModelOnly(tool: Tool | undefined): boolean {
  const ui: unknown = tool?._meta?.ui;
  if (typeof ui !== 'object' || ui === null || !('visibility' in ui)) return false;
  const { visibility } = ui;
  return Array.isArray(visibility) && !visibility.includes('app');
}
