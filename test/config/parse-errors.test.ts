import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../config/parse.js';
import { ConfigError } from '../../src/core/errors.js';

const source = '/home/u/.mcp.json';
const env = { HOME: '/home/u' };

/** The error parseConfig throws for `raw`; fails the test if it throws none. */
function errorFor(raw: unknown): ConfigError {
  try {
    parseConfig(raw, source, env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

/** The one-line message for a config with these servers. */
const serversMessage = (mcpServers: unknown) => errorFor({ mcpServers }).message;

describe('parseConfig errors', () => {
  it('is a ConfigError naming the source, with the detail apart', () => {
    const error = errorFor({ mcpServers: { files: { command: 'npx', args: ['-y', 1] } } });
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.name).toBe('ConfigError');
    expect(error.source).toBe(source);
    expect(error.detail).toBe('mcpServers.files.args[1]: expected string, got number');
    expect(error.message).toBe('/home/u/.mcp.json: mcpServers.files.args[1]: expected string, got number');
  });

  it.each([
    // The file as a whole.
    [[1, 2], 'top level: expected object, got array'],
    ['text', 'top level: expected object, got string'],
    [{ mcpServers: [] }, 'mcpServers: expected object, got array'],
    [{ mcpServers: 'files' }, 'mcpServers: expected object, got string'],
    // Top-level settings, under the name as written.
    [{ maxSteps: 0 }, 'maxSteps: expected number > 0, got 0'],
    [{ 'max-steps': 2.5 }, 'max-steps: expected integer, got 2.5'],
    [{ maxSteps: '10' }, 'maxSteps: expected number, got string'],
    [{ model: '' }, 'model: must not be empty'],
    [{ topP: 1.5 }, 'topP: expected number <= 1, got 1.5'],
    [{ temperature: -1 }, 'temperature: expected number >= 0, got -1'],
    [{ 'stop-sequences': 'END' }, 'stop-sequences: expected array, got string'],
    [{ stopSequences: ['a', 3] }, 'stopSequences[1]: expected string, got number'],
    [{ toolTimeout: -5 }, 'toolTimeout: expected number > 0, got -5'],
    [{ maxSteps: 3, 'max-steps': 4 }, 'max-steps: the same setting as "maxSteps"; keep one of them'],
    [{ budgets: { maxTokens: 0 } }, 'budgets.maxTokens: expected number > 0, got 0'],
    [{ budgets: { maxTokens: '5k' } }, 'budgets.maxTokens: expected number, got string'],
    [
      { maxSteps: 0, topK: 0 },
      '2 problems:\n  maxSteps: expected number > 0, got 0\n  topK: expected number > 0, got 0',
    ],
  ])('%j → %s', (raw, detail) => {
    expect(errorFor(raw).message).toBe(`${source}: ${detail}`);
  });

  it.each([
    // Which form: the entry itself.
    [{ files: 'npx' }, 'mcpServers.files: expected object, got string'],
    [{ files: null }, 'mcpServers.files: expected object, got null'],
    [{ files: {} }, 'mcpServers.files: needs "command" (a local server) or "url" (a remote one)'],
    [
      { files: { args: ['x'] } },
      'mcpServers.files: needs "command" (a local server) or "url" (a remote one)',
    ],
    [
      { files: { command: 'x', url: 'http://h/' } },
      'mcpServers.files: has both "command" and "url" (a server is either local or remote)',
    ],
    [{ '': { command: 'x' } }, 'mcpServers[""]: a server needs a name'],
    [
      { files: { type: 'websocket', url: 'ws://h/' } },
      'mcpServers.files.type: expected one of "stdio", "local", "http", "streamable-http", "sse", "remote", "builtin", got "websocket"',
    ],
    [{ files: { type: 3, command: 'x' } }, 'mcpServers.files.type: expected string, got number'],
    [
      { fs: { type: 'builtin', name: 'ftp' } },
      'mcpServers.fs.name: expected one of "fs", "bash", "todo", "fetch", got "ftp"',
    ],
    [{ fs: { type: 'builtin' } }, 'mcpServers.fs.name: missing (expected string)'],
    [
      { fs: { type: 'builtin', name: 'fs', options: { allowedDirectories: 'src' } } },
      'mcpServers.fs.options.allowedDirectories: expected array, got string',
    ],
    [
      { sh: { type: 'builtin', name: 'bash', options: { timeout: 5 } } },
      'mcpServers.sh.options: Unrecognized key: "timeout"',
    ],
    [
      { sh: { type: 'builtin', name: 'bash', command: 'bash' } },
      'mcpServers.sh.command: not a key of a built-in server (it runs inside mcphost; settings go in "options")',
    ],
    [
      { web: { type: 'builtin', name: 'fetch', options: { allowPrivateNetworks: 'yes' } } },
      'mcpServers.web.options.allowPrivateNetworks: expected boolean, got string',
    ],
    // Types inside an entry.
    [{ files: { command: 'npx', args: ['-y', 1] } }, 'mcpServers.files.args[1]: expected string, got number'],
    [{ files: { command: 'npx', args: 'one two' } }, 'mcpServers.files.args: expected array, got string'],
    [{ files: { command: '' } }, 'mcpServers.files.command: must not be empty'],
    [{ files: { type: 'stdio' } }, 'mcpServers.files.command: missing (expected string)'],
    [
      { files: { command: 'x', env: { PORT: 8080 } } },
      'mcpServers.files.env.PORT: expected string, got number',
    ],
    [{ files: { command: 'x', env: ['A=1'] } }, 'mcpServers.files.env: expected object, got array'],
    [{ files: { command: 'x', cwd: 7 } }, 'mcpServers.files.cwd: expected string, got number'],
    [{ files: { command: 'x', disabled: 'yes' } }, 'mcpServers.files.disabled: expected boolean, got string'],
    [{ files: { command: 'x', inheritEnv: 1 } }, 'mcpServers.files.inheritEnv: expected boolean, got number'],
    [{ files: { command: 'x', initTimeout: 0 } }, 'mcpServers.files.initTimeout: expected number > 0, got 0'],
    [
      { files: { command: 'x', toolTimeout: 1.5 } },
      'mcpServers.files.toolTimeout: expected integer, got 1.5',
    ],
    [{ files: { command: 'x', allowedTools: [''] } }, 'mcpServers.files.allowedTools[0]: must not be empty'],
    [
      { files: { command: 'x', allowedTools: ['a'], excludedTools: ['b'] } },
      'mcpServers.files: "allowedTools" and "excludedTools" cannot both be set',
    ],
    // The Go local form.
    [{ db: { type: 'local', command: [] } }, 'mcpServers.db.command: must not be empty'],
    [{ db: { type: 'local', command: ['uvx', 2] } }, 'mcpServers.db.command[1]: expected string, got number'],
    [
      { db: { type: 'local', command: 'uvx mcp-server-sqlite' } },
      'mcpServers.db.command: expected array, got string (with "type": "local", command is a list)',
    ],
    [
      { db: { type: 'stdio', command: ['uvx'] } },
      'mcpServers.db.command: expected string, got array (a command list needs "type": "local")',
    ],
    [
      { db: { type: 'local', command: ['uvx'], env: { A: 'b' } } },
      'mcpServers.db.env: not a key of a "local" server (use "environment")',
    ],
    [
      { db: { type: 'local', command: ['uvx'], args: ['x'] } },
      'mcpServers.db.args: not a key of a "local" server (put the arguments in the "command" list)',
    ],
    [
      { db: { command: 'uvx', environment: {} } },
      'mcpServers.db.environment: not a key of a stdio server (use "env")',
    ],
    [
      { db: { command: 'uvx', headers: {} } },
      'mcpServers.db.headers: not a key of a stdio server (it has a "command")',
    ],
    // Remote servers.
    [{ web: { type: 'http' } }, 'mcpServers.web.url: missing (expected string)'],
    [{ web: { url: 5 } }, 'mcpServers.web.url: expected string, got number'],
    [
      { web: { url: 'localhost:3000/mcp' } },
      'mcpServers.web.url: expected an http(s) URL, got "localhost:3000/mcp"',
    ],
    [{ web: { url: 'not a url' } }, 'mcpServers.web.url: expected an http(s) URL, got "not a url"'],
    [
      { web: { url: 'http://h/', headers: 'x' } },
      'mcpServers.web.headers: expected object or array, got string',
    ],
    [
      { web: { url: 'http://h/', headers: { A: 1 } } },
      'mcpServers.web.headers.A: expected string, got number',
    ],
    [
      { web: { url: 'http://h/', headers: ['Bearer x'] } },
      'mcpServers.web.headers[0]: expected "Name: value"',
    ],
    [{ web: { url: 'http://h/', headers: [7] } }, 'mcpServers.web.headers[0]: expected string, got number'],
    [
      { web: { type: 'sse', url: 'http://h/', command: 'x' } },
      'mcpServers.web.command: not a key of a remote server (it has a "url")',
    ],
    [
      { web: { url: 'http://h/', inheritEnv: true } },
      'mcpServers.web.inheritEnv: not a key of a remote server (it has a "url")',
    ],
  ])('%j → %s', (servers, detail) => {
    expect(serversMessage(servers)).toBe(`${source}: ${detail}`);
  });

  it.each([
    [
      { 'my.server': { command: 'x', args: [1] } },
      'mcpServers["my.server"].args[0]: expected string, got number',
    ],
    [{ 'my server': { command: 5 } }, 'mcpServers["my server"].command: expected string, got number'],
    [
      { 'server-filesystem': { command: 'x', env: { 'A.B': 2 } } },
      'mcpServers.server-filesystem.env["A.B"]: expected string, got number',
    ],
  ])('quotes names that do not read after a dot: %j', (servers, detail) => {
    expect(serversMessage(servers)).toBe(`${source}: ${detail}`);
  });

  it.each([
    [
      { command: 'x', args: ['${ROOT}'] },
      'mcpServers.files.args[0]: environment variable ROOT is not set (used as ${ROOT} with no default)',
    ],
    [
      { command: '${env://BIN}' },
      'mcpServers.files.command: environment variable BIN is not set (used as ${env://BIN} with no default)',
    ],
    [
      { command: 'x', env: { KEY: '${API_KEY}' } },
      'mcpServers.files.env.KEY: environment variable API_KEY is not set (used as ${API_KEY} with no default)',
    ],
    [
      { command: 'x', cwd: '${WORK}/a' },
      'mcpServers.files.cwd: environment variable WORK is not set (used as ${WORK} with no default)',
    ],
    [
      { type: 'local', command: ['x', '${A}'] },
      'mcpServers.files.command[1]: environment variable A is not set (used as ${A} with no default)',
    ],
    [
      { type: 'local', command: ['x'], environment: { K: '${A}' } },
      'mcpServers.files.environment.K: environment variable A is not set (used as ${A} with no default)',
    ],
    [
      { url: 'https://${HOST}/mcp' },
      'mcpServers.files.url: environment variable HOST is not set (used as ${HOST} with no default)',
    ],
    [
      { url: 'https://h/', headers: { Authorization: 'Bearer ${TOKEN}' } },
      'mcpServers.files.headers.Authorization: environment variable TOKEN is not set (used as ${TOKEN} with no default)',
    ],
    [
      { url: 'https://h/', headers: ['Authorization: Bearer ${TOKEN}'] },
      'mcpServers.files.headers[0]: environment variable TOKEN is not set (used as ${TOKEN} with no default)',
    ],
    [
      { command: 'x', args: ['${foo.bar}'] },
      'mcpServers.files.args[0]: malformed variable "${foo.bar}" (write ${NAME}, ${NAME:-default} or ${env://NAME}; $${ for a literal ${)',
    ],
    [{ command: '${EMPTY_BIN:-}' }, 'mcpServers.files.command: is empty once its variables are expanded'],
    [
      { command: 'x', args: ['${A}', '${B}'] },
      '2 problems:\n  mcpServers.files.args[0]: environment variable A is not set (used as ${A} with no default)' +
        '\n  mcpServers.files.args[1]: environment variable B is not set (used as ${B} with no default)',
    ],
  ])('names the server and the variable: %j', (entry, detail) => {
    expect(serversMessage({ files: entry })).toBe(`${source}: ${detail}`);
  });

  it('lists every problem across servers, each on its own line under a summary', () => {
    const message = serversMessage({ a: { command: 1 }, b: {}, c: { command: 'ok' } });
    expect(message).toBe(
      `${source}: 2 problems:\n  mcpServers.a.command: expected string, got number` +
        '\n  mcpServers.b: needs "command" (a local server) or "url" (a remote one)',
    );
  });

  it('lists at most ten problems and counts the rest', () => {
    const servers = Object.fromEntries(
      Array.from({ length: 13 }, (_, index) => [`s${index}`, { command: 1 }]),
    );
    const lines = serversMessage(servers).split('\n');
    expect(lines[0]).toBe(`${source}: 13 problems:`);
    expect(lines).toHaveLength(12);
    expect(lines[10]).toBe('  mcpServers.s9.command: expected string, got number');
    expect(lines[11]).toBe('  … and 3 more');
  });

  it('keeps every message on one line', () => {
    const message = serversMessage({ 'two\nlines': { command: 1 } });
    expect(message).not.toContain('\n');
    expect(message).toBe(`${source}: mcpServers["two\\nlines"].command: expected string, got number`);
  });
});
