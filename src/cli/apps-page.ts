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
import type { CliIO } from './io.js';

/** The default wait of `-p --apps` for the page to close. */
export const DEFAULT_APPS_TIMEOUT_SECONDS = 600;

export interface AppsInTerminal {
  /** The page, once an app opened and it is served. */
  readonly page: () => AppPage | undefined;
  /** Messages apps sent that no turn has answered yet, oldest first. */
  readonly messages: Array<{ readonly app: HostedApp; readonly text: string }>;
  /** Resolves when a message arrives, the page closes, or `ms` pass. */
  readonly waitForNews: (ms: number) => Promise<void>;
  /** Whether the page was opened and then closed. */
  readonly pageClosed: () => boolean;
  readonly close: () => Promise<void>;
}

/**
 * Serves the page when the first app opens and reports on stderr. With `takesMessages`, the
 * caller runs the apps' messages as turns (`-p`: {@link waitForApps}); without it an app's
 * `ui/message` is answered as not delivered (the chat cannot take one yet).
 */
export function showAppsInTerminal(
  apps: AppHost,
  io: CliIO,
  options: { readonly note: (line: string) => void; readonly takesMessages: boolean },
): AppsInTerminal {
  const { note } = options;
  let page: Promise<AppPage> | undefined;
  let served: AppPage | undefined;
  let closed = false;
  const messages: Array<{ readonly app: HostedApp; readonly text: string }> = [];
  let wake: (() => void) | undefined;
  const onEvent = (event: AppEvent): void => {
    switch (event.type) {
      case 'app-opened':
        page ??= import('../apps/page-server.js').then(async ({ serveAppPage }) => {
          served = await serveAppPage(apps);
          note(`apps: ${served.url}`);
          void openInBrowser(served.url, io.env);
          return served;
        });
        void page.then((shown) => {
          note(`apps: ${event.app.call.name} opened an app (${shown.urlOf(event.app)})`);
        });
        return;
      case 'message':
        messages.push({ app: event.app, text: event.text });
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
  const stop = apps.listen(onEvent, { takesMessages: options.takesMessages });
  return {
    page: () => served,
    messages,
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
    readonly timeoutSeconds: number;
    readonly signal: AbortSignal;
    readonly answer: (text: string) => Promise<void>;
    readonly note: (line: string) => void;
  },
): Promise<void> {
  if (runner.apps === undefined || runner.apps.list().length === 0) return;
  const deadline = Date.now() + options.timeoutSeconds * 1000;
  options.note(`apps: waiting for the page to close (at most ${options.timeoutSeconds} s)`);
  while (!options.signal.aborted && !shown.pageClosed()) {
    const message = shown.messages.shift();
    if (message !== undefined) {
      const context = runner.apps.takeModelContext();
      options.note(`apps: ${message.app.id} says: ${message.text}`);
      await options.answer(context === undefined ? message.text : `${context}\n\n${message.text}`);
      continue;
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      options.note('apps: stopped waiting (--apps-timeout)');
      return;
    }
    await shown.waitForNews(Math.min(left, 1000));
  }
}
