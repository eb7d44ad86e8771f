/**
 * A stdio server in its sandbox (bubblewrap), through the real pool: the real server-filesystem
 * works in its folder and nowhere its sandbox does not let it write; a sandbox that cannot be
 * made (a hidden path among the server's arguments, no bwrap on PATH) stops the start with a
 * message that names the reason, and nothing runs.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { folderOutsideTmp, requireSandboxSupport } from '../support/sandbox.js';
import { closePoolsAfterEach, firstText, logCollector, npmServer, startPool, toolCall } from './support.js';

requireSandboxSupport();
closePoolsAfterEach();

let base: { path: string; remove: () => Promise<void> };
let home: string;
let project: string;
let other: string;

beforeEach(async () => {
  base = await folderOutsideTmp('mcphost-server-sandbox-');
  home = join(base.path, 'home');
  project = join(base.path, 'project');
  other = join(base.path, 'other');
  for (const folder of [join(home, '.ssh'), project, other]) await mkdir(folder, { recursive: true });
});
afterEach(async () => {
  await base.remove();
});

describe('a stdio server in its sandbox', () => {
  it('server-filesystem works in its writable folder, and cannot write where only it would allow', async () => {
    // The server itself allows both folders; its sandbox lets it write in one.
    const pool = await startPool({
      servers: {
        fs: npmServer('@modelcontextprotocol/server-filesystem', [project, other], {
          sandbox: { writable: [project] },
        }),
      },
      env: { ...process.env, HOME: home },
    });
    expect(pool.status()[0]).toMatchObject({ name: 'fs', state: 'ready' });

    const written = await pool.call(
      toolCall('fs__write_file', { path: join(project, 'notes.md'), content: 'written in the sandbox' }),
    );
    expect(written.isError).toBe(false);
    expect(await readFile(join(project, 'notes.md'), 'utf8')).toBe('written in the sandbox');
    const read = await pool.call(toolCall('fs__read_text_file', { path: join(project, 'notes.md') }));
    expect(firstText(read)).toBe('written in the sandbox');

    const refused = await pool.call(toolCall('fs__write_file', { path: join(other, 'x.md'), content: 'no' }));
    expect(refused.isError).toBe(true);
    expect(firstText(refused)).toMatch(/EROFS|read-only file system/i);
    expect(existsSync(join(other, 'x.md'))).toBe(false);
  });

  it('does not start when its sandbox hides a path among its arguments, and says which', async () => {
    const collector = logCollector();
    const pool = await startPool({
      servers: {
        keys: npmServer('@modelcontextprotocol/server-filesystem', [join(home, '.ssh')], { sandbox: {} }),
      },
      env: { ...process.env, HOME: home },
      log: collector.log,
    });
    expect(pool.status()[0]).toMatchObject({ name: 'keys', state: 'failed' });
    expect(collector.warnings()[0]).toContain(
      `server "keys" failed to start: cannot start "${process.execPath}" in its sandbox: the sandbox hides ${home}/.ssh, which argument 2 names`,
    );
  });

  it('does not start without bwrap on PATH, and says so', async () => {
    const collector = logCollector();
    const pool = await startPool({
      servers: { fs: npmServer('@modelcontextprotocol/server-filesystem', [project], { sandbox: {} }) },
      // A PATH without bwrap; the server's command is an absolute path, so nothing else is missing.
      env: { PATH: other, HOME: home },
      log: collector.log,
    });
    expect(pool.status()[0]).toMatchObject({ name: 'fs', state: 'failed' });
    expect(collector.warnings()[0]).toContain(
      'in its sandbox: bwrap (bubblewrap) is not on PATH: install it',
    );
  });
});
