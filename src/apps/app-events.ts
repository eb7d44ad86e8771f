/** What the apps of a session report, for the chat, `-p`, an ACP session or a program. */
import type { HostedApp } from './hosted-app.js';

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
