/** The sign-in store: keys, concurrent updates, a damaged file, forgetting. */
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultSignInStorePath, serverKey, SignInStore } from '../../../src/mcp/auth/token-store.js';

let folder: string;
let store: SignInStore;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-store-'));
  store = new SignInStore(join(folder, 'mcphost', 'oauth.json'));
});

afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

const tokens = (value: string) => ({ access_token: value, token_type: 'Bearer' });

describe('SignInStore', () => {
  it('lives in the state folder, XDG_STATE_HOME first', () => {
    expect(defaultSignInStorePath('/home/ada', {})).toBe('/home/ada/.local/state/mcphost/oauth.json');
    expect(defaultSignInStorePath('/home/ada', { XDG_STATE_HOME: '/var/state' })).toBe(
      '/var/state/mcphost/oauth.json',
    );
  });

  it('keys by URL without the fragment', async () => {
    expect(serverKey('https://x.example/mcp#a')).toBe('https://x.example/mcp');
    await store.update('https://x.example/mcp', (entry) => ({ ...entry, tokens: tokens('one') }));
    expect((await store.get('https://x.example/mcp#b')).tokens?.access_token).toBe('one');
    expect((await store.get('https://x.example/other')).tokens).toBeUndefined();
  });

  it('loses no update when servers save at once', async () => {
    const urls = Array.from({ length: 12 }, (_, index) => `https://s${index}.example/mcp`);
    await Promise.all(urls.map((url, index) => store.update(url, () => ({ tokens: tokens(`t${index}`) }))));
    const all = await store.list();
    expect([...all.keys()].sort()).toEqual(urls.map((url) => serverKey(url)).sort());
  });

  it('reads a damaged file as empty, and replaces it on the next save', async () => {
    await mkdir(dirname(store.file), { recursive: true });
    await writeFile(store.file, '{"version": 1, "servers": {"x": {"tokens": {"access_token": 5}}}}');
    expect(await store.list()).toEqual(new Map());
    await store.update('https://a.example/mcp', () => ({ tokens: tokens('fresh') }));
    expect(JSON.parse(await readFile(store.file, 'utf8'))).toMatchObject({ version: 1 });
  });

  it('forgets a server and says whether it had anything', async () => {
    await store.update('https://a.example/mcp', () => ({ tokens: tokens('a') }));
    await store.update('https://b.example/mcp', () => ({ tokens: tokens('b') }));
    expect(await store.forget('https://a.example/mcp')).toBe(true);
    expect(await store.forget('https://a.example/mcp')).toBe(false);
    expect([...(await store.list()).keys()]).toEqual(['https://b.example/mcp']);
  });
});

describe('SignInStore across processes', () => {
  it('two processes writing different servers many times at once lose no entry', async () => {
    const { spawn } = await import('node:child_process');
    const writer = join(process.cwd(), 'test/fixtures/sign-in-store-writer.ts');
    const perProcess = 40;
    const run = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', writer, store.file, host, String(perProcess)],
          {
            stdio: ['ignore', 'ignore', 'inherit'],
          },
        );
        child.once('error', reject);
        child.once('exit', (code) => {
          resolve(code ?? 1);
        });
      });
    expect(await Promise.all([run('alpha.example'), run('beta.example')])).toEqual([0, 0]);
    const stored = await store.list();
    expect(stored.size).toBe(2 * perProcess);
    for (const host of ['alpha.example', 'beta.example']) {
      for (let index = 0; index < perProcess; index++) {
        expect(stored.get(`https://${host}/mcp/${index}`)?.tokens?.access_token).toBe(`${host}-${index}`);
      }
    }
  }, 60_000);
});
