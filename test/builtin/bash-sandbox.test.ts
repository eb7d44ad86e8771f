/**
 * The `bash` built-in server in its sandbox (bubblewrap), through the real pool: what a command can
 * write, read and reach, each checked against the same command run without the sandbox, so that a
 * pass cannot come from a command that fails for another reason.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BashOptions } from '../../src/builtin/options.js';
import { randomUUID } from 'node:crypto';
import { firstText, startPool, toolCall } from '../mcp/support.js';
import { folderOutsideTmp, requireSandboxSupport } from '../support/sandbox.js';
import { closePoolsAfterEach } from './support.js';

requireSandboxSupport();
closePoolsAfterEach();

let base: { path: string; remove: () => Promise<void> };
let home: string;
let work: string;
let extra: string;
let elsewhere: string;

beforeEach(async () => {
  base = await folderOutsideTmp('mcphost-bash-sandbox-');
  home = join(base.path, 'home');
  work = join(base.path, 'work');
  extra = join(base.path, 'extra');
  elsewhere = join(base.path, 'elsewhere');
  for (const folder of [home, join(home, '.ssh'), join(home, 'secrets'), work, extra, elsewhere]) {
    await mkdir(folder, { recursive: true });
  }
  await writeFile(join(home, '.ssh', 'id_x'), 'PRIVATE-KEY-MATERIAL\n');
  await writeFile(join(home, 'secrets', 'token'), 'TOKEN-MATERIAL\n');
  await writeFile(join(home, 'notes.txt'), 'just notes\n');
});
afterEach(async () => {
  await base.remove();
});

/** Runs one command through a bash server with these options, HOME being the throw-away home. */
async function run(options: BashOptions, command: string): Promise<{ text: string; isError: boolean }> {
  const pool = await startPool({
    servers: {
      bash: { transport: 'builtin', builtin: { name: 'bash', options: { cwd: work, ...options } } },
    },
    env: { ...process.env, HOME: home },
  });
  const result = await pool.call(toolCall('bash__run_command', { command }));
  return { text: firstText(result), isError: result.isError };
}

describe('bash in its sandbox', () => {
  it('writes in its working folder and its writable folders, nowhere else', async () => {
    const tmpName = `mcphost-sandbox-${randomUUID()}`;
    const command = [
      'echo w > in-work.txt && echo wrote-work',
      `echo e > ${extra}/in-extra.txt && echo wrote-extra`,
      `echo x > ${elsewhere}/outside.txt && echo wrote-elsewhere`,
      `echo h > ${home}/in-home.txt && echo wrote-home`,
      `echo t > /tmp/${tmpName} && cat /tmp/${tmpName} >/dev/null && echo wrote-tmp`,
    ].join('; ');

    const sandboxed = await run({ sandbox: { writable: [extra] } }, command);
    expect(sandboxed.text).toContain('wrote-work');
    expect(sandboxed.text).toContain('wrote-extra');
    expect(sandboxed.text).toContain('wrote-tmp');
    expect(sandboxed.text).not.toContain('wrote-elsewhere');
    expect(sandboxed.text).not.toContain('wrote-home');
    expect(sandboxed.text).toContain('Read-only file system');
    expect(await readFile(join(work, 'in-work.txt'), 'utf8')).toBe('w\n');
    expect(await readFile(join(extra, 'in-extra.txt'), 'utf8')).toBe('e\n');
    expect(existsSync(join(elsewhere, 'outside.txt'))).toBe(false);
    expect(existsSync(join(home, 'in-home.txt'))).toBe(false);
    // Its /tmp was its own.
    expect(existsSync(join('/tmp', tmpName))).toBe(false);

    // The same command without the sandbox writes everywhere: the refusals above were the sandbox's.
    const free = await run({}, command);
    expect(free.text).toContain('wrote-elsewhere');
    expect(free.text).toContain('wrote-home');
    expect(existsSync(join(elsewhere, 'outside.txt'))).toBe(true);
  });

  it('cannot read what the config hides, nor ~/.ssh, and reads the rest', async () => {
    const command = 'cat ~/.ssh/id_x; cat ~/secrets/token; cat ~/notes.txt';
    const sandboxed = await run({ sandbox: { hidden: ['~/secrets'] } }, command);
    expect(sandboxed.text).toContain('just notes');
    expect(sandboxed.text).not.toContain('PRIVATE-KEY-MATERIAL');
    expect(sandboxed.text).not.toContain('TOKEN-MATERIAL');
    expect(sandboxed.text).toContain(`cat: ${home}/.ssh/id_x: No such file or directory`);

    const free = await run({}, command);
    expect(free.text).toContain('PRIVATE-KEY-MATERIAL');
    expect(free.text).toContain('TOKEN-MATERIAL');
  });

  describe('the network', () => {
    let server: Server;
    let port: number;
    let connections: number;
    beforeEach(async () => {
      connections = 0;
      server = createServer((socket) => {
        connections += 1;
        socket.end('hello from the host\n');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterEach(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    const connect = () =>
      `if exec 3<>/dev/tcp/127.0.0.1/${port}; then echo connected; head -n 1 <&3; else echo no-connection; fi`;

    it('is out of reach by default, even a server on the loopback', async () => {
      const { text } = await run({ sandbox: {} }, connect());
      expect(text).toContain('no-connection');
      expect(text).not.toContain('hello from the host');
      expect(connections).toBe(0);
    });

    it('is reachable with network: true', async () => {
      const { text } = await run({ sandbox: { network: true } }, connect());
      expect(text).toContain('connected\nhello from the host');
      expect(connections).toBe(1);
    });
  });

  it('does not run a command whose sandbox would hide what it names', async () => {
    const { text, isError } = await run({ sandbox: { writable: ['~/.ssh'] } }, 'echo ran');
    expect(isError).toBe(true);
    expect(text).toBe(
      `the command could not start: its sandbox: the sandbox hides ${home}/.ssh, which sandbox.writable names`,
    );
  });

  it('tells the model it is sandboxed in the tool description', async () => {
    const pool = await startPool({
      servers: {
        bash: { transport: 'builtin', builtin: { name: 'bash', options: { cwd: work, sandbox: {} } } },
      },
      env: { ...process.env, HOME: home },
    });
    const description =
      (await pool.tools()).find((tool) => tool.name === 'bash__run_command')?.description ?? '';
    expect(description).toContain(`Commands run in a sandbox: only ${work} and a private /tmp`);
    expect(description).toContain('There is no network.');
  });
});
