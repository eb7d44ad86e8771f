/** `tasks` and `taskTimeout`: globally, per server (the server's own wins), and a bad value named. */
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';

let home: string;

beforeEach(async () => {
  home = await realpath(await mkdtemp(join(tmpdir(), 'mcphost-tasks-config-')));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('"tasks" and "taskTimeout"', () => {
  it('apply to every server that sets none; a server sets its own', async () => {
    await writeFile(
      join(home, '.mcp.json'),
      JSON.stringify({
        tasks: 'never',
        taskTimeout: 120000,
        mcpServers: {
          plain: { command: 'x' },
          jobs: { command: 'x', tasks: 'always', taskTimeout: 5000 },
          remote: { type: 'http', url: 'http://127.0.0.1:1/mcp', tasks: 'auto' },
        },
      }),
    );
    const config = await loadConfig({ homeDir: home, env: {} });
    expect(config.servers.plain).toMatchObject({ tasks: 'never', taskTimeoutMs: 120000 });
    expect(config.servers.jobs).toMatchObject({ tasks: 'always', taskTimeoutMs: 5000 });
    expect(config.servers.remote).toMatchObject({ tasks: 'auto', taskTimeoutMs: 120000 });
  });

  it('are absent (the defaults apply) when not set', async () => {
    await writeFile(join(home, '.mcp.json'), JSON.stringify({ mcpServers: { plain: { command: 'x' } } }));
    const config = await loadConfig({ homeDir: home, env: {} });
    expect(config.servers.plain?.tasks).toBeUndefined();
    expect(config.servers.plain?.taskTimeoutMs).toBeUndefined();
  });

  it('a bad value is named with its place', async () => {
    await writeFile(
      join(home, '.mcp.json'),
      JSON.stringify({ mcpServers: { jobs: { command: 'x', tasks: 'sometimes' } } }),
    );
    await expect(loadConfig({ homeDir: home, env: {} })).rejects.toThrow(
      /mcpServers\.jobs\.tasks.*"auto".*"never".*"always"/s,
    );
    await writeFile(join(home, '.mcp.json'), JSON.stringify({ taskTimeout: -1, mcpServers: {} }));
    await expect(loadConfig({ homeDir: home, env: {} })).rejects.toThrow(/taskTimeout/);
  });
});
