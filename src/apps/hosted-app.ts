/**
 * One app of the session: the tool call it belongs to, its checked resource, and — while a frame
 * shows it — the host side of its bridge (ext-apps' AppBridge), wired to the host's rules.
 */
import type { CallToolResult, JSONRPCMessage, ReadResourceResult, Tool } from '@modelcontextprotocol/client';
import {
  AppBridge,
  type McpUiDisplayMode,
  type McpUiHostContext,
} from '@modelcontextprotocol/ext-apps/app-bridge';
import type { ToolCallBlock, ToolResultBlock } from '../core/types.js';
import type { AppResourceOutcome } from './app-resource.js';
import { RelayTransport } from './relay-transport.js';
import { messageOf } from '../core/errors.js';
import { healPartialArguments, LatestOnlyThrottle } from './partial-input.js';

/** What an app may ask of the host, each under the host's rules (app-host.ts). */
export interface AppServices {
  readonly hostInfo: { readonly name: string; readonly version: string };
  /** Theme, locale, time zone: what every app's host context starts from. */
  readonly hostContext: () => McpUiHostContext;
  /** A tool of the app's own server, through the guard. */
  readonly callTool: (
    app: HostedApp,
    name: string,
    input: Record<string, unknown>,
    signal: AbortSignal,
  ) => Promise<CallToolResult>;
  /** A resource of the app's own server. */
  readonly readResource: (app: HostedApp, uri: string, signal: AbortSignal) => Promise<ReadResourceResult>;
  /** Asks the person before a link opens; false when no one can be asked or they said no. */
  readonly openLink: (app: HostedApp, url: string) => Promise<boolean>;
  /** Whether someone takes the app's messages (a chat, `-p --apps`, a program listening). */
  readonly takesMessages: () => boolean;
  readonly announce: (event: AppEvent) => void;
}

/** The display modes the page offers. */
const DISPLAY_MODES: readonly McpUiDisplayMode[] = ['inline', 'fullscreen'];

/** What the page is told about an app (besides the bridge's own messages). */
export type AppPageNote =
  | { readonly type: 'size'; readonly height?: number; readonly width?: number }
  | { readonly type: 'display-mode'; readonly mode: McpUiDisplayMode }
  | { readonly type: 'closed' };

export class HostedApp {
  readonly id: string;
  /** The configured server whose tool was called, and whose tools and resources the app may use. */
  readonly server: string;
  readonly tool: Tool;
  readonly openedAt: number;
  #call: ToolCallBlock;
  /**
   * The call's input: still being written by the model (the arguments' text so far), or complete.
   * An app opened while the model streams the call starts `streaming`.
   */
  #input: { readonly kind: 'streaming'; readonly text: string } | { readonly kind: 'complete' };
  /** The growing input, at most ten times a second, once the frame has initialized. */
  readonly #partialInput = new LatestOnlyThrottle<string>({
    send: (text) => {
      void this.#sendPartialInput(text);
    },
  });
  /** The app's latest `ui/update-model-context`, as text. */
  modelContext: string | undefined;
  #resource: Promise<AppResourceOutcome>;
  #result:
    | { readonly kind: 'pending' }
    | { readonly kind: 'done'; readonly result: ToolResultBlock }
    | { readonly kind: 'cancelled'; readonly reason: string } = { kind: 'pending' };
  #bridge: AppBridge | undefined;
  #transport: RelayTransport | undefined;
  #initialized = false;
  #displayMode: McpUiDisplayMode = 'inline';
  #closed = false;
  readonly #services: AppServices;
  /** Aborted when the app is torn down: its pending calls end. */
  readonly #ending = new AbortController();
  /** Notes for the page; set by the page server. */
  onPageNote: ((note: AppPageNote) => void) | undefined;

  constructor(options: {
    readonly id: string;
    readonly server: string;
    readonly tool: Tool;
    readonly call: ToolCallBlock;
    readonly resource: Promise<AppResourceOutcome>;
    readonly services: AppServices;
    readonly now: number;
    /** The model is still writing the call's arguments (see {@link toolInputPartial}). */
    readonly streaming?: boolean;
  }) {
    this.id = options.id;
    this.server = options.server;
    this.tool = options.tool;
    this.#call = options.call;
    this.#input = options.streaming === true ? { kind: 'streaming', text: '' } : { kind: 'complete' };
    this.#resource = options.resource;
    this.#services = options.services;
    this.openedAt = options.now;
  }

  /** The checked resource (or why it is not served). */
  resource(): Promise<AppResourceOutcome> {
    return this.#resource;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * The tool call this app belongs to. While the model still writes it, its input is what could be
   * read of the arguments so far.
   */
  get call(): ToolCallBlock {
    return this.#call;
  }

  /**
   * The model wrote more of the call's arguments (`text`: all of them so far): the frame gets them
   * healed into an object (`ui/notifications/tool-input-partial`), throttled. Ignored once the
   * input is complete.
   */
  toolInputPartial(text: string): void {
    if (this.#input.kind === 'complete' || this.#result.kind !== 'pending') return;
    this.#input = { kind: 'streaming', text };
    if (this.#initialized) this.#partialInput.push(text);
  }

  /**
   * The call's whole input (`ui/notifications/tool-input`): when the model finished writing it, and
   * again if a hook rewrote it before the call ran. The same input twice is sent once.
   */
  toolInput(call: ToolCallBlock): void {
    const unchanged =
      this.#input.kind === 'complete' && JSON.stringify(call.input) === JSON.stringify(this.#call.input);
    this.#input = { kind: 'complete' };
    this.#partialInput.cancel();
    this.#call = call;
    if (unchanged || !this.#initialized) return;
    void this.#bridge?.sendToolInput({ arguments: { ...call.input } }).catch(() => undefined);
  }

  /**
   * The call ended without reaching its server (the guard refused it, the model call failed while
   * it was written): a call still waiting for its result is cancelled, with `reason`.
   */
  toolCallEnded(reason: string): void {
    if (this.#result.kind === 'pending') this.toolCancelled(reason);
  }

  /** The tool call ended: the frame gets the result (now, or once it has initialized). */
  toolResult(result: ToolResultBlock): void {
    this.#result = { kind: 'done', result };
    if (this.#initialized) void this.#sendResult();
  }

  /** The tool call was cancelled before it answered. */
  toolCancelled(reason: string): void {
    this.#result = { kind: 'cancelled', reason };
    this.#partialInput.cancel();
    if (this.#initialized) void this.#bridge?.sendToolCancelled({ reason }).catch(() => undefined);
  }

  /**
   * A frame showing this app starts talking (a new frame — a reloaded page — replaces the old
   * one's bridge). Returns the transport the page relay feeds; `deliver` sends to the frame.
   */
  async connect(deliver: (message: JSONRPCMessage) => void): Promise<RelayTransport> {
    await this.#disconnect();
    const transport = new RelayTransport(deliver);
    const bridge = this.#makeBridge();
    this.#bridge = bridge;
    this.#transport = transport;
    this.#initialized = false;
    await bridge.connect(transport);
    return transport;
  }

  /** A message the page relayed from this app's frame. */
  receive(message: JSONRPCMessage): void {
    this.#transport?.receive(message);
  }

  /** Tears the app down (`ui/resource-teardown`, answered or not within a second) and ends its bridge. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#ending.abort();
    this.#partialInput.cancel();
    const bridge = this.#bridge;
    if (bridge !== undefined && this.#initialized) {
      await bridge.teardownResource({}, { timeout: 1000 }).catch(() => undefined);
    }
    await this.#disconnect();
    this.onPageNote?.({ type: 'closed' });
    this.#services.announce({ type: 'app-closed', app: this });
  }

  async #disconnect(): Promise<void> {
    const bridge = this.#bridge;
    this.#bridge = undefined;
    this.#transport = undefined;
    await bridge?.close().catch(() => undefined);
  }

  #makeBridge(): AppBridge {
    const services = this.#services;
    const bridge = new AppBridge(
      null,
      { ...services.hostInfo },
      {
        openLinks: {},
        serverTools: {},
        serverResources: {},
        logging: {},
        updateModelContext: { text: {} },
        message: { text: {} },
        sandbox: { csp: {} },
      },
      {
        hostContext: this.#hostContext(),
      },
    );
    bridge.addEventListener('initialized', () => {
      this.#initialized = true;
      void this.#afterInitialize(bridge);
    });
    bridge.oncalltool = (params, context) => {
      const signal = AbortSignal.any([context.mcpReq.signal, this.#ending.signal]);
      return services.callTool(this, params.name, params.arguments ?? {}, signal);
    };
    bridge.onreadresource = (params, context) =>
      services.readResource(this, params.uri, AbortSignal.any([context.mcpReq.signal, this.#ending.signal]));
    bridge.onmessage = (params) => {
      const text = textOf(params.content);
      if (!services.takesMessages() || text === '') return Promise.resolve({ isError: true });
      services.announce({ type: 'message', app: this, text });
      return Promise.resolve({});
    };
    bridge.onupdatemodelcontext = (params) => {
      const text = [
        textOf(params.content ?? []),
        params.structuredContent === undefined ? '' : JSON.stringify(params.structuredContent),
      ]
        .filter((part) => part !== '')
        .join('\n');
      this.modelContext = text === '' ? undefined : text;
      services.announce({ type: 'model-context', app: this, text });
      return Promise.resolve({});
    };
    bridge.onopenlink = async (params) => {
      const url = params.url;
      if (!/^https?:\/\//i.test(url)) {
        services.announce({
          type: 'refused',
          app: this,
          reason: `app ${this.id} asked to open ${url}: only http and https links open`,
        });
        return { isError: true };
      }
      return (await services.openLink(this, url)) ? {} : { isError: true };
    };
    bridge.addEventListener('loggingmessage', (params) => {
      const data = typeof params.data === 'string' ? params.data : JSON.stringify(params.data);
      services.announce({ type: 'log', app: this, text: `log ${params.level}: ${data}` });
    });
    bridge.addEventListener('sizechange', (params) => {
      this.onPageNote?.({ type: 'size', ...params });
    });
    bridge.onrequestdisplaymode = (params) => {
      if (DISPLAY_MODES.includes(params.mode)) {
        this.#displayMode = params.mode;
        this.onPageNote?.({ type: 'display-mode', mode: params.mode });
        bridge.setHostContext(this.#hostContext());
      }
      return Promise.resolve({ mode: this.#displayMode });
    };
    bridge.addEventListener('requestteardown', () => {
      void this.close();
    });
    bridge.onerror = (error) => {
      services.announce({ type: 'refused', app: this, reason: `app ${this.id}: ${messageOf(error)}` });
    };
    return bridge;
  }

  #hostContext(): McpUiHostContext {
    return {
      ...this.#services.hostContext(),
      toolInfo: { id: this.call.id, tool: this.tool },
      displayMode: this.#displayMode,
      availableDisplayModes: [...DISPLAY_MODES],
      platform: 'web',
    };
  }

  async #afterInitialize(bridge: AppBridge): Promise<void> {
    try {
      if (this.#input.kind === 'complete') {
        await bridge.sendToolInput({ arguments: { ...this.#call.input } });
      } else if (this.#input.text !== '' && this.#result.kind === 'pending') {
        // The whole input (and then the result) follow as they come; until then, what there is.
        this.#partialInput.push(this.#input.text);
      }
      const result = this.#result;
      switch (result.kind) {
        case 'pending':
          return;
        case 'done':
          await this.#sendResult();
          return;
        case 'cancelled':
          await bridge.sendToolCancelled({ reason: result.reason });
          return;
        default: {
          const unreachable: never = result;
          return unreachable;
        }
      }
    } catch (error) {
      this.#services.announce({ type: 'refused', app: this, reason: `app ${this.id}: ${messageOf(error)}` });
    }
  }

  async #sendPartialInput(text: string): Promise<void> {
    if (this.#input.kind === 'complete' || this.#result.kind !== 'pending') return;
    const partial = healPartialArguments(text);
    if (partial === undefined) return;
    this.#call = { ...this.#call, input: partial };
    await this.#bridge?.sendToolInputPartial({ arguments: partial }).catch(() => undefined);
  }

  async #sendResult(): Promise<void> {
    if (this.#result.kind !== 'done') return;
    const { result } = this.#result;
    await this.#bridge?.sendToolResult(callToolResultOf(result)).catch(() => undefined);
  }
}

/** A tool result block as MCP's `CallToolResult`. */
export function callToolResultOf(result: ToolResultBlock): CallToolResult {
  return {
    content: result.content.map((block) => ({ ...block })),
    isError: result.isError,
    ...(result.structuredContent === undefined ? {} : { structuredContent: { ...result.structuredContent } }),
  };
}

function textOf(content: readonly { readonly type: string; readonly text?: unknown }[]): string {
  return content
    .filter((block) => block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text as string)
    .join('\n');
}

/** What the apps of a session report, for the chat, `-p`, an ACP session or a program. */
export type AppEvent =
  /** An app was opened for a tool call; `url` is where the page shows it, when a page is served. */
  | { readonly type: 'app-opened'; readonly app: HostedApp; readonly url?: string }
  /** The page is served (once per session): its address, to print or hand to an editor. */
  | { readonly type: 'page-served'; readonly url: string }
  /** The app sent a user message (`ui/message`): the conversation should get it as a new turn. */
  | { readonly type: 'message'; readonly app: HostedApp; readonly text: string }
  /** The app replaced what it wants the model to know (`ui/update-model-context`). */
  | { readonly type: 'model-context'; readonly app: HostedApp; readonly text: string }
  /**
   * Something was refused or went wrong: a resource not served, another server's tool, a forged
   * message, a request the frame's CSP blocked. One line, for a person and the log.
   */
  | { readonly type: 'refused'; readonly app?: HostedApp; readonly reason: string }
  /** The app's own log message (`notifications/message`), or a note on what it did. */
  | { readonly type: 'log'; readonly app: HostedApp; readonly text: string }
  /** The page was closed (its last connection ended). */
  | { readonly type: 'page-closed' }
  /** The app was torn down (its request, or the session ended). */
  | { readonly type: 'app-closed'; readonly app: HostedApp };
