/**
 * The local page that shows a session's apps: two loopback HTTP servers on random ports.
 *
 * - The host page (port A) lists the apps, newest first, each with its tool call, and relays each
 *   frame's messages to the bridge here (POST) and back (an event stream).
 * - The app documents (port B) are served from a second port, so that they never share an origin
 *   with the host page: a second port is a separate origin on every system, where a second
 *   loopback address (127.0.0.2) is not configured on macOS. The frames are also sandboxed without
 *   `allow-same-origin` (an opaque origin: no cookies, no storage, no reach into the page), and the
 *   documents carry the CSP their resource declared (content-policy.ts).
 *
 * Each server has its own unguessable token, the first segment of every path: a request without
 * it is refused (403), so another local user or a web page cannot drive the page, and an app that
 * reads its own URL learns only port B's token, which opens nothing on port A. The Host header
 * must be the address served (DNS rebinding), and the page's POSTs must come from its own origin.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import type { AppHost, HostedApp } from './app-host.js';
import { contentSecurityPolicy } from './content-policy.js';
import { hostPageHtml } from './page-html.js';

/** The largest message a frame may post through the page (the app's own requests and answers). */
const MAX_POST_BYTES = 8 * 1024 * 1024;

/** A served page. */
export interface AppPage {
  /** The page's address, token included: print it in one line, open it in a browser. */
  readonly url: string;
  /** The address where an app's frame is shown on the page (`#` + its id). */
  urlOf(app: HostedApp): string;
  /** Resolves when the page was opened and then closed (its event stream ended), or on close(). */
  readonly closed: Promise<void>;
  /** Whether a page has connected yet. */
  readonly opened: boolean;
  /** Ends both servers (the page says the session ended first). */
  close(): Promise<void>;
}

interface Listening {
  readonly server: Server;
  readonly origin: string;
  readonly token: string;
}

export async function serveAppPage(apps: AppHost): Promise<AppPage> {
  const pageToken = randomBytes(24).toString('base64url');
  const frameToken = randomBytes(24).toString('base64url');
  let stream: ServerResponse | undefined;
  let opened = false;
  let resolveClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  const send = (event: Record<string, unknown>): void => {
    stream?.write(`data: ${JSON.stringify(event)}\n\n`);
  };
  const summary = (app: HostedApp): Record<string, unknown> => ({
    id: app.id,
    server: app.server,
    tool: app.call.name,
    input: app.call.input,
    openedAt: app.openedAt,
    closed: app.closed,
  });
  const wire = (app: HostedApp): void => {
    app.onPageNote = (note) => {
      send({ type: 'note', app: app.id, note });
    };
  };
  for (const app of apps.list()) wire(app);
  const stopListening = apps.listen((event) => {
    if (event.type === 'app-opened') {
      wire(event.app);
      void event.app.resource().then(() => {
        send({ type: 'app', app: summary(event.app), frame: frameUrl(event.app) });
      });
    }
  });

  const frames: Listening = await listen(frameToken, (request, response, path) => {
    const [kind, id] = path;
    const app = id === undefined ? undefined : apps.get(id);
    if (request.method === 'GET' && kind === 'app' && app !== undefined) {
      void app.resource().then((outcome) => {
        if (outcome.kind === 'refused') {
          reply(response, 404, outcome.reason);
          return;
        }
        const report = `${frames.origin}/${frameToken}/csp/${app.id}`;
        response.writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': contentSecurityPolicy(outcome.resource.policy, report),
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
          'referrer-policy': 'no-referrer',
        });
        response.end(outcome.resource.html);
      });
      return;
    }
    if (request.method === 'POST' && kind === 'csp' && app !== undefined) {
      void readBody(request).then((body) => {
        apps.announce({
          type: 'refused',
          app,
          reason: `app ${app.id}: the frame's CSP blocked ${describeReport(body)}`,
        });
        reply(response, 204, '');
      });
      return;
    }
    reply(response, 404, 'not found');
  });

  const frameUrl = (app: HostedApp): string => `${frames.origin}/${frameToken}/app/${app.id}`;

  const page: Listening = await listen(pageToken, (request, response, path) => {
    const [kind, id] = path;
    if (request.method === 'GET' && kind === undefined) {
      const nonce = randomBytes(16).toString('base64');
      response.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; connect-src 'self'; frame-src ${frames.origin}; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
        'x-frame-options': 'DENY',
      });
      response.end(hostPageHtml({ nonce, frameOrigin: frames.origin }));
      return;
    }
    if (request.method === 'GET' && kind === 'events') {
      stream?.end();
      stream = response;
      opened = true;
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      for (const app of apps.list().slice().reverse()) {
        send({ type: 'app', app: summary(app), frame: frameUrl(app) });
      }
      request.on('close', () => {
        if (stream !== response) return;
        stream = undefined;
        apps.announce({ type: 'page-closed' });
        resolveClosed();
      });
      return;
    }
    // Everything else is a POST from the page itself: its own origin, JSON.
    if (request.method !== 'POST' || request.headers.origin !== page.origin) {
      reply(response, 403, 'refused');
      return;
    }
    void readBody(request).then((body) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        reply(response, 400, 'not JSON');
        return;
      }
      const app = id === undefined ? undefined : apps.get(id);
      if (kind === 'relay' && app !== undefined && isJsonRpc(parsed)) {
        if (isInitialize(parsed)) {
          void app
            .connect((message) => {
              send({ type: 'to-frame', app: app.id, message });
            })
            .then(() => {
              app.receive(parsed);
            });
        } else {
          app.receive(parsed);
        }
        reply(response, 204, '');
        return;
      }
      if (kind === 'refused') {
        apps.announce({
          type: 'refused',
          reason: `refused a message from outside an app's frame: ${describeForged(parsed)}`,
        });
        reply(response, 204, '');
        return;
      }
      reply(response, 404, 'not found');
    });
  });

  const close = async (): Promise<void> => {
    stopListening();
    send({ type: 'ended' });
    const ending = stream;
    stream = undefined;
    resolveClosed();
    // The page gets its `ended` line first (bounded: a browser that stopped reading does not hold
    // the session), then every socket goes: the session is over, and `server.close` alone would
    // wait for a browser's keep-alive sockets that are busy at that moment.
    if (ending !== undefined) await endWithin(ending, 1_000);
    await Promise.all(
      [page, frames].map(({ server }) => {
        const closing = new Promise((resolve) => server.close(resolve));
        server.closeAllConnections();
        return closing;
      }),
    );
  };
  const url = `${page.origin}/${pageToken}/`;
  apps.announce({ type: 'page-served', url });
  return {
    url,
    urlOf: (app) => `${url}#${app.id}`,
    closed,
    get opened() {
      return opened;
    },
    close,
  };
}

/** Listens on 127.0.0.1 at a random port; each request is checked before `handle` sees it. */
async function listen(
  token: string,
  handle: (request: IncomingMessage, response: ServerResponse, path: readonly string[]) => void,
): Promise<Listening> {
  let origin = '';
  const server = createServer((request, response) => {
    const host = request.headers.host;
    if (host !== origin.slice('http://'.length)) {
      reply(response, 421, 'wrong host');
      return;
    }
    const [first, ...rest] = (request.url ?? '/').replace(/\?.*$/, '').split('/').slice(1);
    if (first !== token) {
      reply(response, 403, 'refused');
      return;
    }
    handle(
      request,
      response,
      rest.filter((segment) => segment !== ''),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the app page has no port');
  origin = `http://127.0.0.1:${address.port}`;
  // The page's event stream stays open: it must not keep the process alive once all else is done.
  server.unref();
  return { server, origin, token };
}

/** Ends a response, waiting for it to flush at most `ms`. */
function endWithin(response: ServerResponse, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    response.end(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function reply(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  response.end(text);
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_POST_BYTES) break;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function isJsonRpc(value: unknown): value is JSONRPCMessage {
  return typeof value === 'object' && value !== null && (value as { jsonrpc?: unknown }).jsonrpc === '2.0';
}

function isInitialize(message: JSONRPCMessage): boolean {
  return 'method' in message && message.method === 'ui/initialize' && 'id' in message;
}

/** A CSP report (`application/csp-report`), in a few words. */
function describeReport(body: string): string {
  try {
    const report = (JSON.parse(body) as { 'csp-report'?: Record<string, unknown> })['csp-report'] ?? {};
    const blocked = stringOr(report['blocked-uri'], 'a request');
    const directive = stringOr(report['violated-directive'] ?? report['effective-directive'], 'the policy');
    return `${blocked} (${directive})`;
  } catch {
    return 'a request';
  }
}

function describeForged(value: unknown): string {
  const record = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const data = record.data as Record<string, unknown> | undefined;
  const method = typeof data?.method === 'string' ? data.method : 'no method';
  return `${method} from ${stringOr(record.origin, 'an unknown origin')}`;
}

function stringOr(value: unknown, otherwise: string): string {
  return typeof value === 'string' && value !== '' ? value : otherwise;
}
