/**
 * A server entry's own `roots` (issue 26): a list resolved against the config file's folder and
 * `~`, `true` and `false`, a bad value named by its key; and the plan of each server's roots:
 * folders named in the arguments kept, the working folder for the rest, `--root` over both.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { directoriesInArguments, planServerRoots } from '../../src/mcp/server-roots.js';

let home: string;

beforeEach(async () => {
  home = await realpath(await mkdtemp(join(tmpdir(), 'mcphost-server-roots-')));
  await mkdir(join(home, 'notes'));
  await mkdir(join(home, 'project'));
  await writeFile(join(home, 'notes', 'a.txt'), 'a');
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('a server entry\'s "roots"', () => {
  it('takes a list (relative to the file, ~), true or false', async () => {
    await writeFile(
      join(home, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          listed: { command: 'x', roots: ['notes', '~/project'] },
          shared: { command: 'x', roots: true },
          off: { command: 'x', roots: false },
          plain: { command: 'x' },
        },
      }),
    );
    const config = await loadConfig({ homeDir: home, env: {} });
    expect(config.servers.listed?.roots).toEqual([join(home, 'notes'), join(home, 'project')]);
    expect(config.servers.shared?.roots).toBe(true);
    expect(config.servers.off?.roots).toBe(false);
    expect(config.servers.plain?.roots).toBeUndefined();
  });

  it('refuses anything else, naming the key', async () => {
    await writeFile(
      join(home, '.mcp.json'),
      JSON.stringify({ mcpServers: { bad: { command: 'x', roots: [] } } }),
    );
    await expect(loadConfig({ homeDir: home, env: {} })).rejects.toThrow(/mcpServers\.bad\.roots/);
    await writeFile(
      join(home, '.mcp.json'),
      JSON.stringify({ mcpServers: { bad: { command: 'x', roots: 'notes' } } }),
    );
    await expect(loadConfig({ homeDir: home, env: {} })).rejects.toThrow(/mcpServers\.bad\.roots/);
  });
});

describe('the roots of each server', () => {
  const stdio = (args: string[], extra: Record<string, unknown> = {}) => ({
    transport: 'stdio' as const,
    command: 'npx',
    args,
    env: {},
    inheritEnv: false,
    ...extra,
  });

  it('finds the folders an argument names as a path, not a word or a file', async () => {
    const found = await directoriesInArguments(
      [
        '-y',
        '@modelcontextprotocol/server-filesystem',
        '~/notes',
        'project',
        './project',
        join(home, 'notes', 'a.txt'),
        '/no/such',
      ],
      home,
      home,
    );
    expect(found).toEqual([join(home, 'notes'), join(home, 'project')]);
  });

  it("keeps a server's own folders, gives the rest the working folder; --root decides for both", async () => {
    const servers = {
      files: stdio(['-y', 'server-filesystem', '~/notes']),
      memory: stdio(['-y', 'server-memory']),
      listed: stdio([], { roots: [join(home, 'notes')] }),
      off: stdio(['~/notes'], { roots: false }),
    };
    const options = {
      servers,
      projectDir: join(home, 'project'),
      homeDir: home,
      configLabel: 'test',
      serverCwd: home,
    };
    const plan = await planServerRoots({ ...options, shared: undefined });
    expect(plan.directoriesOf('files')).toEqual([join(home, 'notes')]);
    expect(plan.describe('files')).toBe(`${join(home, 'notes')} (named in its arguments)`);
    expect(plan.directoriesOf('memory')).toEqual([join(home, 'project')]);
    expect(plan.describe('memory')).toBe(`${join(home, 'project')} (the working folder)`);
    expect(plan.directoriesOf('listed')).toEqual([join(home, 'notes')]);
    expect(plan.describe('listed')).toBe(`${join(home, 'notes')} (its "roots")`);
    expect(plan.directoriesOf('off')).toBeUndefined();
    expect(plan.followsShared('files')).toBe(false);
    expect(plan.followsShared('memory')).toBe(true);

    const given = await planServerRoots({ ...options, shared: [home] });
    expect(given.directoriesOf('files')).toEqual([home]);
    expect(given.describe('files')).toBe(`${home} (the shared roots: --root, "roots" or /roots)`);
    expect(given.directoriesOf('off')).toBeUndefined();
    expect(given.directoriesOf('listed')).toEqual([join(home, 'notes')]);
  });
});
