/**
 * The apps page ends with the session even while a browser holds it open. A browser keeps its
 * sockets alive and an app still open in it goes on posting (an auto-resizing app reports each size
 * change) over them; the page's close() must not wait for those sockets to fall idle. A keep-alive
 * client plays the browser: it reads the event stream up to `ended` and posts to the page every
 * 50 ms meanwhile. (Node's own server.close() already passes this; the test keeps it so.)
 */
import { Agent, request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { AppHost } from '../../src/apps/app-host.js';
import { serveAppPage } from '../../src/index.js';

const pool = {
  locate: () => undefined,
  client: () => Promise.reject(new Error('no server in this test')),
  exposedNameOf: () => Promise.resolve(undefined),
};

/** GETs `url` over `agent`; resolves with the body once `until` appears in it (or it ends). */
function readUntil(url: string, agent: Agent, until: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { agent }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
        if (body.includes(until)) resolve(body);
      });
      response.on('end', () => resolve(body));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

function post(url: string, agent: Agent, origin: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { agent, method: 'POST', headers: { origin } }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    outgoing.on('error', reject);
    outgoing.end('{}');
  });
}

describe('the apps page', () => {
  it('closes at once while a keep-alive client goes on posting', async () => {
    const apps = new AppHost({ pool, guard: () => undefined });
    const page = await serveAppPage(apps);
    const agent = new Agent({ keepAlive: true, maxSockets: 2 });
    try {
      const first = readUntil(`${page.url}events`, agent, '"ended"');
      // The stream is open once the server has taken the request.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(page.opened).toBe(true);

      // The page's own posts (refused as not JSON-RPC: what they say does not matter here).
      const origin = new URL(page.url).origin;
      const traffic = { on: true };
      const posts = (async () => {
        while (traffic.on) {
          await post(`${page.url}refused`, agent, origin).catch(() => undefined);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, 200));

      const closing = page.close();
      expect(await first).toContain('"type":"ended"');
      const outcome = await Promise.race([
        closing.then(() => 'closed'),
        new Promise((resolve) => setTimeout(resolve, 3_000, 'still open')),
      ]);
      traffic.on = false;
      await posts;
      expect(outcome).toBe('closed');
    } finally {
      agent.destroy();
    }
  });
});
