/**
 * MCP Apps in the terminal's modes: the local page is served when the first app opens, its URL
 * printed in one line on stderr and opened where there is a browser (as sign-in does); what apps
 * do that a person should know (refusals, their log lines) is one stderr line each. `-p --apps`
 * then waits for the page to close (or `--apps-timeout`), running each message an app sends as a
 * new turn the model answers.
 */
import type { AppEvent, AppHost, HostedApp } from '../apps/app-host.js';
import type { AppPage } from '../apps/page-server.js';
import type { McpRunner } from '../setup/create-runner.js';
import { openInBrowser } from './browser.js';
import type { ChatApps } from './chat/chat-host.js';
import type { Prompter } from './chat/prompter.js';
import { noticeLine, type CliIO } from './io.js';
import type { Reporter } from './output/reporter-contract.js';

/** The default wait of `-p --apps` for the page to close. */
export const DEFAULT_APPS_TIMEOUT_SECONDS = 600;

/** A message an app sent (`ui/message`). */
export interface AppMessage {
  readonly app: HostedApp;
  readonly text: string;
}

export interface AppsInTerminal {
  /** The page, once an app opened and it is served. */
  readonly page: () => AppPage | undefined;
  /** The page, served now if it is not yet (its URL printed and opened as when an app opens). */
  readonly servePage: () => Promise<AppPage>;
  /** Messages apps sent that no turn has answered yet, oldest first (while no one listens). */
  readonly messages: AppMessage[];
  /**
   * Hands every message (those waiting first) to `listener` instead of queueing them; returns the
   * function that stops.
   */
  readonly listenForMessages: (listener: (message: AppMessage) => void) => () => void;
  /** Resolves when a message arrives, the page closes, or `ms` pass. */
  readonly waitForNews: (ms: number) => Promise<void>;
  /** Whether the page was opened and then closed. */
  readonly pageClosed: () => boolean;
  readonly close: () => Promise<void>;
}

/**
 * Where the apps' notes go: above the chat's prompt while a chat runs (an app acts between turns,
 * and a line on stderr would run into the prompt), the reporter's stderr line otherwise.
 */
export function appNotes(
  reporter: Pick<Reporter, 'note'>,
  chat: (Prompter & { readonly bound: boolean }) | undefined,
): (line: string) => void {
  return (line) => {
    if (chat?.bound === true) chat.write(`mcphost: ${noticeLine(line)}\n`);
    else reporter.note(line);
  };
}

/**
 * Serves the page when the first app opens and reports each note through `note`. The caller runs
 * the apps' messages as turns (`-p`: {@link waitForApps}, the chat: {@link chatApps}).
 */
export function showAppsInTerminal(
  apps: AppHost,
  io: CliIO,
  options: {
    readonly note: (line: string) => void;
    /** The chat, which asks before a link an app names opens; without it (`-p`) links never open. */
    readonly chat?: Prompter | undefined;
  },
): AppsInTerminal {
  if (options.chat !== undefined) {
    const chat = options.chat;
    apps.askBeforeOpeningLinks(async (request) =>
      (await import('./prompts/open-link-prompt.js')).createOpenLinkPrompt(chat, io.env)(request),
    );
  }
  const { note } = options;
  let page: Promise<AppPage> | undefined;
  let served: AppPage | undefined;
  let closed = false;
  const messages: AppMessage[] = [];
  let messageListener: ((message: AppMessage) => void) | undefined;
  let wake: (() => void) | undefined;
  const servePage = (): Promise<AppPage> => {
    page ??= import('../apps/page-server.js').then(async ({ serveAppPage }) => {
      served = await serveAppPage(apps);
      note(`apps: ${served.url}`);
      void openInBrowser(served.url, io.env);
      return served;
    });
    return page;
  };
  const onEvent = (event: AppEvent): void => {
    switch (event.type) {
      case 'app-opened':
        void servePage().then((shown) => {
          note(`apps: ${event.app.call.name} opened an app (${shown.urlOf(event.app)})`);
        });
        return;
      case 'message':
        if (messageListener !== undefined) messageListener({ app: event.app, text: event.text });
        else messages.push({ app: event.app, text: event.text });
        wake?.();
        return;
      case 'refused':
        note(`apps: ${event.reason}`);
        return;
      case 'log':
        note(`apps: ${event.app.id} ${event.text}`);
        return;
      case 'page-closed':
        closed = true;
        wake?.();
        return;
      case 'model-context':
      case 'page-served':
      case 'app-closed':
        return;
      default: {
        const unexpected: never = event;
        throw new TypeError(`unknown app event ${JSON.stringify(unexpected)}`);
      }
    }
  };
  const stop = apps.listen(onEvent, { takesMessages: true });
  return {
    page: () => served,
    servePage,
    messages,
    listenForMessages: (listener) => {
      messageListener = listener;
      for (const waiting of messages.splice(0)) listener(waiting);
      return () => {
        if (messageListener === listener) messageListener = undefined;
      };
    },
    waitForNews: (ms) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(finish, ms);
        function finish(): void {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        }
        wake = finish;
      }),
    pageClosed: () => closed,
    close: async () => {
      stop();
      await (await page)?.close();
    },
  };
}

/**
 * `-p --apps`: once the prompt is answered, waits while an app is shown: each message an app sends
 * is a new turn (`answer` reports it); the wait ends when the page is closed, or after
 * `timeoutSeconds`. Returns at once when no app was opened.
 */
export async function waitForApps(
  runner: McpRunner,
  shown: AppsInTerminal,
  options: {
    /** Default {@link DEFAULT_APPS_TIMEOUT_SECONDS}. */
    readonly timeoutSeconds?: number;
    readonly signal: AbortSignal;
    /** Where the notes and each turn's answer go. */
    readonly reporter: Pick<Reporter, 'note' | 'event' | 'succeed'>;
  },
): Promise<void> {
  if (runner.apps === undefined || runner.apps.list().length === 0) return;
  const { reporter, signal } = options;
  const timeoutSeconds = options.timeoutSeconds ?? DEFAULT_APPS_TIMEOUT_SECONDS;
  const deadline = Date.now() + timeoutSeconds * 1000;
  reporter.note(`apps: waiting for the page to close (at most ${timeoutSeconds} s)`);
  while (!signal.aborted && !shown.pageClosed()) {
    const message = shown.messages.shift();
    if (message !== undefined) {
      const context = runner.apps.takeModelContext();
      reporter.note(`apps: ${message.app.id} says: ${message.text}`);
      const prompt = context === undefined ? message.text : `${context}\n\n${message.text}`;
      reporter.succeed(await runner.run(prompt, { signal, onEvent: (event) => reporter.event(event) }));
      continue;
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      reporter.note('apps: stopped waiting (--apps-timeout)');
      return;
    }
    await shown.waitForNews(Math.min(left, 1000));
  }
}

/**
 * The chat's view of the apps: each message an app sends is a turn shown under the app's name
 * (with what the apps told the model since, first, once), and `/apps` serves and lists the page.
 */
export function chatApps(apps: AppHost, shown: AppsInTerminal): ChatApps {
  return {
    listen: (listener) =>
      shown.listenForMessages(({ app, text }) => {
        const context = apps.takeModelContext();
        listener({
          from: `app ${app.call.name}`,
          shown: text,
          prompt: context === undefined ? text : `${context}\n\n${text}`,
        });
      }),
    show: async () => {
      const page = await shown.servePage();
      return {
        url: page.url,
        apps: apps.list().map((app) => ({
          id: app.id,
          tool: app.tool.name,
          server: app.server,
          closed: app.closed,
          url: page.urlOf(app),
        })),
      };
    },
  };
}
