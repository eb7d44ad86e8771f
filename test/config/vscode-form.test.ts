/**
 * VS Code's config form: `servers` and `inputs`, read from the user's VS Code `mcp.json`, a
 * project's `.vscode/mcp.json` (once trusted) and `--config`; inputs from `MCPHOST_INPUT_<ID>` or
 * asked; one line naming file and key for what is wrong.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { fileTrustStore } from '../../config/trust-store.js';
import { vsCodeUserFile } from '../../config/vscode-files.js';
import { inputVariableName } from '../../config/vscode-form.js';
import type { ConfigInput } from '../../config/vscode-form.js';
import { ConfigError } from '../../src/core/errors.js';

let home: string;
let project: string;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'mcphost-vscode-home-'));
  project = await mkdtemp(join(tmpdir(), 'mcphost-vscode-project-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
  await rm(project, { recursive: true, force: true });
});

async function write(path: string, value: unknown): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, typeof value === 'string' ? value : JSON.stringify(value, undefined, 2));
  return path;
}

const vsCodeFile = {
  inputs: [
    { type: 'promptString', id: 'api-key', description: 'The API key', password: true },
    { type: 'promptString', id: 'region', description: 'Region', default: 'eu' },
  ],
  servers: {
    remote: {
      type: 'http',
      url: 'https://mcp.example.com/${input:region}',
      headers: { Authorization: 'Bearer ${input:api-key}' },
    },
    local: {
      type: 'stdio',
      command: 'node',
      args: ['${workspaceFolder}/server.js', '${userHome}'],
      env: { TOKEN: '${input:api-key}', PATH_COPY: '${env:SOME_PATH}' },
    },
    events: { type: 'sse', url: 'https://mcp.example.com/sse' },
  },
};

async function loadError(promise: Promise<unknown>): Promise<ConfigError> {
  const error: unknown = await promise.then(
    () => new Error('expected a ConfigError'),
    (rejection: unknown) => rejection,
  );
  if (!(error instanceof ConfigError)) throw error;
  return error;
}

describe('VS Code form', () => {
  it('names the variable of an input', () => {
    expect(inputVariableName('api-key')).toBe('MCPHOST_INPUT_API_KEY');
    expect(inputVariableName('github.token')).toBe('MCPHOST_INPUT_GITHUB_TOKEN');
  });

  it("reads the user's VS Code mcp.json, inputs from the environment, VS Code's variables", async () => {
    const path = await write(vsCodeUserFile(home, {}, 'linux'), vsCodeFile);
    expect(path).toBe(join(home, '.config', 'Code', 'User', 'mcp.json'));
    const env = { MCPHOST_INPUT_API_KEY: 's3cret$${x}', SOME_PATH: '/opt' };
    const config = await loadConfig({ homeDir: home, env, projectDir: project });
    expect(config.path).toBe(path);
    expect(config.servers.remote).toMatchObject({
      transport: 'http',
      url: 'https://mcp.example.com/eu',
      headers: { Authorization: 'Bearer s3cret$${x}' },
    });
    expect(config.servers.events).toMatchObject({ transport: 'sse' });
    expect(config.servers.local).toMatchObject({
      command: 'node',
      args: [`${project}/server.js`, home],
      env: { TOKEN: 's3cret$${x}', PATH_COPY: '/opt' },
    });
  });

  it('asks for an input the environment does not give, and uses the default on an empty answer', async () => {
    await write(vsCodeUserFile(home, {}, 'linux'), vsCodeFile);
    const asked: ConfigInput[] = [];
    const config = await loadConfig({
      homeDir: home,
      env: { SOME_PATH: '/opt' },
      projectDir: project,
      askInput: (input) => {
        asked.push(input);
        return Promise.resolve(input.id === 'api-key' ? 'typed' : '');
      },
    });
    expect(asked).toEqual([
      { id: 'region', description: 'Region', password: false, defaultValue: 'eu' },
      { id: 'api-key', description: 'The API key', password: true },
    ]);
    expect(config.servers.remote).toMatchObject({ headers: { Authorization: 'Bearer typed' } });
  });

  it('says which variable to set when no one can be asked', async () => {
    const path = await write(vsCodeUserFile(home, {}, 'linux'), vsCodeFile);
    const error = await loadError(
      loadConfig({ homeDir: home, env: { SOME_PATH: '/x' }, projectDir: project }),
    );
    expect(error.message).toBe(
      `${path}: inputs: "api-key" has no value: set MCPHOST_INPUT_API_KEY (only the chat asks for it)`,
    );
  });

  it('reports a bad key in one line naming the file and the key, under "servers"', async () => {
    const path = await write(join(home, 'vscode.json'), {
      servers: { remote: { type: 'http', url: 'https://x', args: ['a'] } },
    });
    const error = await loadError(loadConfig({ homeDir: home, env: {}, configPath: path }));
    expect(error.message).toBe(`${path}: servers.remote.args: not a key of a remote server (it has a "url")`);
    const inputs = await write(join(home, 'inputs.json'), {
      inputs: [{ type: 'pickString', id: 'x', options: ['a'] }],
      servers: { s: { command: 'node', args: ['${input:y}'] } },
    });
    const inputError = await loadError(loadConfig({ homeDir: home, env: {}, configPath: inputs }));
    expect(inputError.message).toContain(
      `inputs[0].type: "pickString" is not supported (mcphost asks for "promptString" inputs)`,
    );
    expect(inputError.message).toContain('servers.s.args[0]: ${input:y} is not declared in "inputs"');
    const badType = await write(join(home, 'type.json'), { servers: { s: { type: 'pipe', command: 'x' } } });
    expect((await loadError(loadConfig({ homeDir: home, env: {}, configPath: badType }))).message).toMatch(
      new RegExp(
        `^${badType.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: servers\\.s\\.type: expected one of .*got "pipe"$`,
      ),
    );
  });

  it("uses a project's .vscode/mcp.json only once trusted, and asks its inputs only then", async () => {
    const path = await write(join(project, '.vscode', 'mcp.json'), vsCodeFile);
    const trustStore = fileTrustStore(join(home, 'trust.json'));
    const asked: string[] = [];
    const askInput = (input: ConfigInput) => {
      asked.push(input.id);
      return Promise.resolve('answer');
    };
    const shown: unknown[] = [];
    const untrusted = await loadConfig({
      homeDir: home,
      env: { SOME_PATH: '/x' },
      projectDir: project,
      trustStore,
      askInput,
      trustProject: (candidate) => {
        shown.push(candidate.servers.remote);
        return Promise.resolve(false);
      },
    });
    expect(untrusted.servers).toEqual({});
    expect(untrusted.warnings).toEqual([`${path}: not used (you did not trust it)`]);
    expect(asked).toEqual([]);
    // The trust question shows the input as written, never a value.
    expect(shown).toEqual([
      expect.objectContaining({ headers: { Authorization: 'Bearer ${input:api-key}' } }),
    ]);
    const trusted = await loadConfig({
      homeDir: home,
      env: { SOME_PATH: '/x' },
      projectDir: project,
      trustStore,
      askInput,
      trustProject: () => Promise.resolve(true),
    });
    expect(trusted.projectPath).toBe(path);
    expect(asked).toEqual(['region', 'api-key']);
    expect(trusted.servers.remote).toMatchObject({ headers: { Authorization: 'Bearer answer' } });
  });

  it('prefers a project file of our own form over .vscode/mcp.json', async () => {
    await write(join(project, '.vscode', 'mcp.json'), vsCodeFile);
    const ours = await write(join(project, '.mcp.json'), { mcpServers: { mine: { command: 'node' } } });
    const config = await loadConfig({
      homeDir: home,
      env: {},
      projectDir: project,
      trustStore: fileTrustStore(join(home, 'trust.json')),
      trustProject: () => Promise.resolve(true),
    });
    expect(config.projectPath).toBe(ours);
    expect(Object.keys(config.servers)).toEqual(['mine']);
  });

  it('finds the VS Code user file on macOS and Windows', () => {
    expect(vsCodeUserFile('/Users/ada', {}, 'darwin')).toBe(
      '/Users/ada/Library/Application Support/Code/User/mcp.json',
    );
    expect(vsCodeUserFile('/home/ada', { XDG_CONFIG_HOME: '/cfg' }, 'linux')).toBe('/cfg/Code/User/mcp.json');
    expect(vsCodeUserFile('C:/Users/ada', { APPDATA: 'C:/Users/ada/AppData/Roaming' }, 'win32')).toBe(
      join('C:/Users/ada/AppData/Roaming', 'Code', 'User', 'mcp.json'),
    );
  });
});
