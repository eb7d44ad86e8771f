/**
 * The `fetch` built-in server against a loopback HTTP server: HTML to Markdown, the size and time
 * caps, and the address rules — loopback refused unless the test allows it, and every redirect
 * checked the same way (to another loopback address, to the cloud metadata address).
 */
import type { LookupAddress } from 'node:dns';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { httpGet } from '../../src/builtin/http-get.js';
import { parseAllowedAddresses, refusalFor, type NetworkPolicy } from '../../src/builtin/network-guard.js';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback.js';
import { callTool, closePoolsAfterEach, startBuiltin } from './support.js';

closePoolsAfterEach();

const PAGE = `<!doctype html><html><head><title>T</title><style>body{color:red}</style></head>
<body><script>alert("not content")</script><h1>Release notes</h1>
<p>Version <b>2.0</b> is <a href="/download">out</a>.</p><ul><li>faster</li><li>smaller</li></ul></body></html>`;

let site: LoopbackServer;
let hits: string[];
let port: string;

beforeEach(async () => {
  hits = [];
  site = await startLoopbackServer((request, response) => {
    const path = request.url ?? '/';
    hits.push(path);
    if (path === '/page') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(PAGE);
    } else if (path === '/moved') {
      response.writeHead(301, { location: '/page' });
      response.end();
    } else if (path === '/to-other-loopback') {
      response.writeHead(302, { location: `http://127.0.0.2:${port}/page` });
      response.end();
    } else if (path === '/to-metadata') {
      response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
      response.end();
    } else if (path === '/loop') {
      response.writeHead(302, { location: '/loop' });
      response.end();
    } else if (path === '/big') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('x'.repeat(100_000));
    } else if (path === '/gzip') {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      response.end(gzipSync(JSON.stringify({ compressed: true })));
    } else if (path === '/image') {
      response.writeHead(200, { 'content-type': 'image/png' });
      response.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
    } else if (path === '/hang') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('partial');
    } else {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('no such page');
    }
  });
  port = new URL(site.url).port;
});

afterEach(async () => {
  await site.close();
});

/** A fetch server that may reach 127.0.0.1, and only that of the non-public addresses. */
function loopbackAllowed(extra: Record<string, unknown> = {}) {
  return startBuiltin({ name: 'fetch', options: { allowedAddresses: ['127.0.0.1'], ...extra } });
}

describe('fetch', () => {
  it('turns HTML into Markdown, without scripts or styles', async () => {
    const pool = await loopbackAllowed();
    const { text, isError } = await callTool(pool, 'fetch__fetch', { url: `${site.url}/page` });
    expect(isError).toBe(false);
    expect(text).toBe(
      `${site.url}/page (200)\n\n# Release notes\n\nVersion **2.0** is [out](/download).\n\n-   faster\n-   smaller`,
    );
  });

  it('returns raw HTML on request, and reads long text in parts', async () => {
    const pool = await loopbackAllowed();
    const raw = await callTool(pool, 'fetch__fetch', { url: `${site.url}/page`, raw: true });
    expect(raw.text).toContain('<h1>Release notes</h1>');
    const part = await callTool(pool, 'fetch__fetch', {
      url: `${site.url}/big`,
      max_length: 10,
      start_index: 5,
    });
    expect(part.text).toBe(
      `${site.url}/big (200)\n\nxxxxxxxxxx\n\n[99985 more characters: call again with start_index 15]`,
    );
  });

  it('decompresses gzip, passes JSON through, and refuses binary bodies', async () => {
    const pool = await loopbackAllowed();
    expect((await callTool(pool, 'fetch__fetch', { url: `${site.url}/gzip` })).text).toContain(
      '{"compressed":true}',
    );
    const image = await callTool(pool, 'fetch__fetch', { url: `${site.url}/image` });
    expect(image).toEqual({
      text: expect.stringContaining('image/png (7 bytes), which is not text') as string,
      isError: true,
    });
    const missing = await callTool(pool, 'fetch__fetch', { url: `${site.url}/nothing` });
    expect(missing).toEqual({ text: expect.stringContaining('(404)') as string, isError: true });
  });

  it('cuts a body past the size cap', async () => {
    const pool = await loopbackAllowed({ maxBytes: 1000 });
    const { text } = await callTool(pool, 'fetch__fetch', { url: `${site.url}/big`, max_length: 5000 });
    expect(text).toBe(`${site.url}/big (200)\n\n${'x'.repeat(1000)}\n\n[the body was cut at 1000 bytes]`);
  });

  it('gives up on a server that does not finish within the time cap', async () => {
    const pool = await loopbackAllowed({ timeoutMs: 400 });
    const started = Date.now();
    const result = await callTool(pool, 'fetch__fetch', { url: `${site.url}/hang` });
    expect(result).toEqual({ text: 'no complete answer within 400 ms', isError: true });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('follows a redirect that stays allowed, and stops a redirect loop', async () => {
    const pool = await loopbackAllowed({ maxRedirects: 3 });
    expect((await callTool(pool, 'fetch__fetch', { url: `${site.url}/moved` })).text).toContain(
      `${site.url}/page (200)`,
    );
    expect(await callTool(pool, 'fetch__fetch', { url: `${site.url}/loop` })).toEqual({
      text: 'too many redirects (more than 3)',
      isError: true,
    });
  });

  it('refuses http URLs of other schemes', async () => {
    const pool = await loopbackAllowed();
    const result = await callTool(pool, 'fetch__fetch', { url: 'file:///etc/passwd' });
    expect(result).toEqual({ text: 'url: only http and https URLs are fetched, not file:', isError: true });
  });
});

describe('fetch address rules', () => {
  it('refuses a loopback address unless allowed, without connecting', async () => {
    const pool = await startBuiltin({ name: 'fetch', options: {} });
    const result = await callTool(pool, 'fetch__fetch', { url: `${site.url}/page` });
    expect(result.isError).toBe(true);
    expect(result.text).toContain(`refused: ${site.url}/page: 127.0.0.1 is a loopback address`);
    expect(hits).toEqual([]);
  });

  it('refuses a host name that resolves to loopback (localhost)', async () => {
    const pool = await startBuiltin({ name: 'fetch', options: {} });
    const result = await callTool(pool, 'fetch__fetch', { url: `http://localhost:${port}/page` });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/refused: localhost: .* is a loopback address/);
    expect(hits).toEqual([]);
  });

  it('allows every private address with allowPrivateNetworks', async () => {
    const pool = await startBuiltin({ name: 'fetch', options: { allowPrivateNetworks: true } });
    expect((await callTool(pool, 'fetch__fetch', { url: `http://localhost:${port}/page` })).isError).toBe(
      false,
    );
  });

  it('checks every redirect: to another loopback address, and to the metadata address', async () => {
    const pool = await loopbackAllowed();
    const other = await callTool(pool, 'fetch__fetch', { url: `${site.url}/to-other-loopback` });
    expect(other.isError).toBe(true);
    expect(other.text).toContain('127.0.0.2 is a loopback address');
    const metadata = await callTool(pool, 'fetch__fetch', { url: `${site.url}/to-metadata` });
    expect(metadata.isError).toBe(true);
    expect(metadata.text).toContain('169.254.169.254 is a linkLocal address');
    // The first hops were fetched; the redirect targets never were.
    expect(hits).toEqual(['/to-other-loopback', '/to-metadata']);
  });

  it('checks the address a name resolves to, and connects to that address', async () => {
    const policy: NetworkPolicy = {
      allowPrivateNetworks: false,
      allowedRanges: parseAllowedAddresses(['127.0.0.1']),
    };
    const resolvesTo =
      (address: string) =>
      (_host: string, _options: unknown, callback: (error: null, addresses: LookupAddress[]) => void) => {
        callback(null, [{ address, family: 4 }]);
      };
    const common = { policy, timeoutMs: 2000, maxBytes: 10_000, maxRedirects: 0, userAgent: 'test' };
    await expect(
      httpGet({ ...common, url: `http://rebind.test:${port}/page`, lookup: resolvesTo('10.0.0.7') as never }),
    ).rejects.toThrow('refused: rebind.test: 10.0.0.7 is a private address');
    const fetched = await httpGet({
      ...common,
      url: `http://site.test:${port}/page`,
      lookup: resolvesTo('127.0.0.1') as never,
    });
    expect(fetched.status).toBe(200);
    expect(hits).toEqual(['/page']);
  });
});

describe('refusalFor', () => {
  const none: NetworkPolicy = { allowPrivateNetworks: false, allowedRanges: [] };

  it('allows public addresses and refuses every kind of non-public one', () => {
    expect(refusalFor('93.184.216.34', none)).toBeUndefined();
    expect(refusalFor('2606:4700:4700::1111', none)).toBeUndefined();
    const kinds: Array<[string, string]> = [
      ['127.0.0.1', 'loopback'],
      ['10.1.2.3', 'private'],
      ['172.16.0.1', 'private'],
      ['192.168.1.1', 'private'],
      ['169.254.169.254', 'linkLocal'],
      ['100.64.0.1', 'carrierGradeNat'],
      ['0.0.0.0', 'unspecified'],
      ['224.0.0.1', 'multicast'],
      ['::1', 'loopback'],
      ['fe80::1', 'linkLocal'],
      ['fd00::1', 'uniqueLocal'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:10.0.0.1', 'private'],
    ];
    for (const [address, kind] of kinds) {
      expect(refusalFor(address, none), address).toContain(`is a ${kind} address`);
    }
  });

  it('lets allowed ranges through, and only those', () => {
    const policy: NetworkPolicy = {
      allowPrivateNetworks: false,
      allowedRanges: parseAllowedAddresses(['10.0.0.0/8', '::1']),
    };
    expect(refusalFor('10.200.0.1', policy)).toBeUndefined();
    expect(refusalFor('::1', policy)).toBeUndefined();
    expect(refusalFor('192.168.0.1', policy)).toContain('private');
    expect(refusalFor('127.0.0.1', policy)).toContain('loopback');
  });

  it('names a bad allowedAddresses entry', () => {
    expect(() => parseAllowedAddresses(['10.0.0.0/33'])).toThrow(
      '"10.0.0.0/33" in allowedAddresses is not an IP address or CIDR range',
    );
  });
});
