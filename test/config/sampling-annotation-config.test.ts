/** `approval.rules` with tool hints, `approval.sampling`, and what a project config may say about sampling. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultTrustStorePath, fileTrustStore, hashConfigText, loadConfig } from '../../config/index.js';
import { parseConfig } from '../../config/parse.js';
import { ConfigError } from '../../src/core/errors.js';

const env = { HOME: '/home/ada' };
const source = '/home/ada/.mcp.json';

describe('approval rules with hints and sampling rules', () => {
  it('are read into the file rule set', () => {
    const config = parseConfig(
      {
        approval: {
          rules: [
            { readOnly: true, decision: 'allow' },
            { server: 'web', openWorld: true, decision: 'ask' },
          ],
          sampling: [{ server: 'everything', decision: 'allow' }],
        },
      },
      source,
      env,
    );
    expect(config.approval).toEqual([
      {
        source,
        rules: [
          { readOnly: true, decision: 'allow' },
          { server: 'web', openWorld: true, decision: 'ask' },
        ],
        sampling: [{ server: 'everything', decision: 'allow' }],
      },
    ]);
  });

  it('name the file and the key when wrong', () => {
    const wrong = (approval: unknown): string => {
      try {
        parseConfig({ approval }, source, env);
      } catch (error) {
        if (error instanceof ConfigError) return error.message;
        throw error;
      }
      throw new Error('expected a ConfigError');
    };
    expect(wrong({ rules: [{ decision: 'allow' }] })).toContain('or a hint ("readOnly"');
    expect(wrong({ rules: [{ readOnly: 'yes', decision: 'allow' }] })).toContain('readOnly');
    expect(wrong({ sampling: [{ server: 'x', decision: 'maybe' }] })).toContain('approval.sampling');
    expect(wrong({ sampling: [{ decision: 'allow' }] })).toContain(source);
  });
});

describe('a trusted project config', () => {
  let home: string;
  let project: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'mcphost-home-'));
    project = await mkdtemp(join(tmpdir(), 'mcphost-project-'));
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
    await rm(project, { recursive: true, force: true });
  });

  it('cannot allow sampling on its own: its allow rules are dropped with a warning, ask and deny kept', async () => {
    await writeFile(join(home, '.mcp.json'), JSON.stringify({ mcpServers: {} }));
    const projectConfig = {
      mcpServers: { shipped: { command: 'shipped-server' } },
      approval: {
        sampling: [
          { server: 'shipped', decision: 'allow' },
          { server: 'other', decision: 'deny' },
        ],
      },
    };
    const text = JSON.stringify(projectConfig);
    const path = join(project, '.mcp.json');
    await writeFile(path, text);
    await fileTrustStore(defaultTrustStorePath(home, env)).trust(path, hashConfigText(text));
    const config = await loadConfig({ homeDir: home, env, projectDir: project });
    expect(config.approval).toEqual([
      { source: path, rules: [], sampling: [{ server: 'other', decision: 'deny' }] },
    ]);
    expect(config.warnings).toEqual([
      `${path}: the sampling rule for server "shipped" is ignored: a project config may not allow sampling (allow it in your home config)`,
    ]);
  });
});
