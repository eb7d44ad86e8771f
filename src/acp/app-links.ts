/**
 * MCP Apps in an editor session (`mcphost acp --apps`): when a tool call opens an app, the local
 * page is served (once, while the session has an app open) and the editor gets a `resource_link`
 * to where the page shows it, as a chunk of the agent's message, for the user to open in a browser.
 * ACP has no way for the agent to start a turn of its own, so an app's `ui/message` is answered as
 * not delivered here (nothing listens for messages); its tool calls are asked about through
 * `session/request_permission` like the model's.
 */
import type { AppPage } from '../apps/page-server.js';
import { messageOf } from '../core/errors.js';
import type { AcpSession } from './acp-session.js';

/** Starts linking the session's apps; does nothing when apps are off. */
export function linkAppsToEditor(session: AcpSession, log: (line: string) => void): void {
  const apps = session.runner.apps;
  if (apps === undefined) return;
  let page: Promise<AppPage> | undefined;
  apps.listen((event) => {
    switch (event.type) {
      case 'app-opened': {
        const { app } = event;
        page ??= import('../apps/page-server.js').then(({ serveAppPage }) => serveAppPage(apps));
        void page.then(
          (served) => {
            session.sender.send({
              sessionUpdate: 'agent_message_chunk',
              content: {
                type: 'resource_link',
                uri: served.urlOf(app),
                name: `${app.call.name} (MCP App)`,
                title: `The interface of ${app.call.name}`,
                description: `Open in a browser: the app ${app.id} of server "${app.server}", under mcphost's rules`,
                mimeType: 'text/html',
              },
            });
          },
          (error: unknown) => {
            log(`apps: the page could not be served: ${messageOf(error)}`);
          },
        );
        return;
      }
      case 'refused':
        log(`apps: ${event.reason}`);
        return;
      case 'app-closed': {
        // The session ended (or every app asked to close): the page goes; a later app serves it again.
        if (page === undefined || apps.list().some((open) => !open.closed)) return;
        const closing = page;
        page = undefined;
        void closing.then((served) => served.close()).catch(() => undefined);
        return;
      }
      case 'message':
      case 'model-context':
      case 'log':
      case 'page-served':
      case 'page-closed':
        return;
      default: {
        const unexpected: never = event;
        throw new TypeError(`unknown app event ${JSON.stringify(unexpected)}`);
      }
    }
  });
}
