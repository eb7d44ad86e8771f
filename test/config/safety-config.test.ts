/** The safety settings in config files: approval, permissions, hooks, auditLog, maxToolResultBytes. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { parseConfig } from '../../config/parse.js';
import { ConfigError } from '../../src/core/errors.js';

const env = { HOME: '/home/ada' };
const source = '/home/ada/.mcp.json';
const parse = (raw: unknown) => parseConfig(raw, source, env);

function parseError(raw: unknown): string {
  try {
    parse(raw);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('approval rules', () => {
  it('reads ordered rules and a default, with the file as their source', () => {
    const config = parse({
      approval: {
        default: 'ask',
        rules: [
          { tool: 'filesystem__read_*', decision: 'allow' },
          { tool: '*__delete*', decision: 'deny', reason: 'never delete' },
          { server: 'github', decision: 'ask' },
        ],
      },
    });
    expect(config.approval).toEqual([
      {
        source,
        default: 'ask',
        rules: [
          { tool: 'filesystem__read_*', decision: 'allow' },
          { tool: '*__delete*', decision: 'deny', reason: 'never delete' },
          { server: 'github', decision: 'ask' },
        ],
      },
    ]);
  });

  it("reads Claude Code's permissions lists as rules in the order deny, ask, allow", () => {
    const config = parse({
      permissions: {
        allow: ['memory__*'],
        deny: ['*__delete*'],
        ask: ['filesystem__*'],
        defaultMode: 'acceptEdits',
      },
    });
    expect(config.approval?.[0]?.rules).toEqual([
      { tool: '*__delete*', decision: 'deny' },
      { tool: 'filesystem__*', decision: 'ask' },
      { tool: 'memory__*', decision: 'allow' },
    ]);
  });

  it('has no approval settings when the file has none', () => {
    expect(parse({ mcpServers: {} }).approval).toBeUndefined();
  });

  it.each([
    [
      { approval: { rules: [{ tool: 'x', decision: 'maybe' }] } },
      'approval.rules[0].decision: expected one of "allow", "ask", "deny", got "maybe"',
    ],
    [{ approval: { rules: [{ decision: 'deny' }] } }, 'approval.rules[0]: a rule needs "tool" or "server"'],
    [
      { approval: { default: 'sometimes' } },
      'approval.default: expected one of "allow", "ask", "deny", got "sometimes"',
    ],
    [
      { approval: { rules: [{ tool: 'x', decision: 'allow', when: 'always' }] } },
      'approval.rules[0]: Unrecognized key: "when"',
    ],
    [{ permissions: { deny: 'everything' } }, 'permissions.deny: expected array, got string'],
  ])('rejects %j', (raw, message) => {
    expect(parseError(raw)).toContain(message);
  });
});

describe('hooks', () => {
  it('reads the Go mcphost format, timeouts in seconds', () => {
    const config = parse({
      hooks: {
        PreToolUse: [
          { matcher: 'write', hooks: [{ type: 'command', command: './check.sh', timeout: 5 }] },
          { matcher: null, hooks: [{ command: 'logger pre' }], _merge: 'append' },
        ],
        Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }],
        PostToolUse: [],
      },
    });
    expect(config.hooks).toEqual({
      PreToolUse: [
        { matcher: 'write', hooks: [{ command: './check.sh', timeoutSeconds: 5 }] },
        { hooks: [{ command: 'logger pre' }] },
      ],
      Stop: [{ hooks: [{ command: 'notify-send done' }] }],
    });
  });

  it.each([
    [
      { hooks: { SessionStart: [] } },
      'hooks: unknown hook event "SessionStart"; mcphost runs PreToolUse, PostToolUse, UserPromptSubmit, Stop',
    ],
    [
      { hooks: { PreToolUse: [{ matcher: '(', hooks: [{ command: 'x' }] }] } },
      'hooks.PreToolUse[0].matcher: not a valid regular expression',
    ],
    [{ hooks: { PreToolUse: [{ hooks: [] }] } }, 'hooks.PreToolUse[0].hooks: must not be empty'],
    [
      { hooks: { Stop: [{ hooks: [{ type: 'http', command: 'x' }] }] } },
      'hooks.Stop[0].hooks[0].type: expected "command", got "http"',
    ],
    [
      { hooks: { Stop: [{ hooks: [{ command: 'x', timeout: 601 }] }] } },
      'hooks.Stop[0].hooks[0].timeout: expected number <= 600, got 601',
    ],
    [
      { hooks: { Stop: [{ hooks: [{ command: '' }] }] } },
      'hooks.Stop[0].hooks[0].command: must not be empty',
    ],
  ])('rejects %j', (raw, message) => {
    expect(parseError(raw)).toContain(message);
  });
});

describe('auditLog and maxToolResultBytes', () => {
  it('reads them, in either spelling', () => {
    expect(parse({ auditLog: '~/audit.jsonl', maxToolResultBytes: 50_000 })).toMatchObject({
      auditLog: '~/audit.jsonl',
      maxToolResultBytes: 50_000,
    });
    expect(parse({ 'audit-log': 'a.jsonl', 'max-tool-result-bytes': 10 })).toMatchObject({
      auditLog: 'a.jsonl',
      maxToolResultBytes: 10,
    });
    expect(parseError({ maxToolResultBytes: 0 })).toContain('maxToolResultBytes: expected number > 0');
  });
});

describe('loading safety settings from files', () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'mcphost-safety-config-'));
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it("resolves auditLog against the config file's folder, and ~ against home", async () => {
    await writeFile(join(home, '.mcp.json'), JSON.stringify({ auditLog: 'logs/audit.jsonl' }));
    expect((await loadConfig({ homeDir: home, env })).auditLog).toBe(join(home, 'logs/audit.jsonl'));
    const other = join(home, 'elsewhere');
    await mkdir(other);
    const named = join(other, 'config.yml');
    await writeFile(named, 'auditLog: ~/audit.jsonl\n');
    expect((await loadConfig({ homeDir: home, env, configPath: named })).auditLog).toBe(
      join(home, 'audit.jsonl'),
    );
  });

  it("reads the Go mcphost's hooks files before the config's own hooks", async () => {
    const folder = join(home, '.config', 'mcphost');
    await mkdir(folder, { recursive: true });
    await writeFile(
      join(folder, 'hooks.yml'),
      'hooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: from-yaml\n',
    );
    await writeFile(
      join(folder, 'hooks.json'),
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ command: 'from-json' }] }] } }),
    );
    await writeFile(
      join(home, '.mcp.json'),
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ command: 'from-config' }] }] } }),
    );
    const config = await loadConfig({ homeDir: home, env });
    expect(config.hooks?.Stop?.map((group) => group.hooks[0]?.command)).toEqual([
      'from-json',
      'from-yaml',
      'from-config',
    ]);
  });

  it('finds the hooks files under XDG_CONFIG_HOME, and names a bad one', async () => {
    const configHome = join(home, 'xdg');
    await mkdir(join(configHome, 'mcphost'), { recursive: true });
    await writeFile(join(configHome, 'mcphost', 'hooks.json'), JSON.stringify({ hooks: { Nope: [] } }));
    const error = await loadConfig({ homeDir: home, env: { ...env, XDG_CONFIG_HOME: configHome } }).catch(
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(
      `${join(configHome, 'mcphost', 'hooks.json')}: hooks: unknown hook event "Nope"; mcphost runs PreToolUse, PostToolUse, UserPromptSubmit, Stop`,
    );
  });
});
