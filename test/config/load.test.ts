import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONFIG_FILE_NAMES, loadConfig } from '../../config/index.js';
import { ConfigError } from '../../src/core/errors.js';

let home: string;
const env = { HOME: '/home/ada', ROOT: '/srv' };

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'mcphost-config-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

async function write(name: string, text: string): Promise<string> {
  const path = join(home, name);
  await writeFile(path, text);
  return path;
}

async function loadError(options: { configPath?: string }): Promise<ConfigError> {
  const error: unknown = await loadConfig({ ...options, homeDir: home, env }).then(
    () => new Error('expected a ConfigError'),
    (rejection: unknown) => rejection,
  );
  if (!(error instanceof ConfigError)) throw error;
  return error;
}

const desktopFile = JSON.stringify({
  globalShortcut: 'Ctrl+Space',
  mcpServers: { files: { command: 'npx', args: ['-y', 'server-filesystem', '${ROOT}'] } },
});

describe('loadConfig: discovery', () => {
  it('runs with no servers when there is no file', async () => {
    const config = await loadConfig({ homeDir: home, env });
    expect(config).toEqual({
      path: undefined,
      servers: {},
      disabledServers: [],
      warnings: [],
      generation: {},
    });
  });

  it('reads ~/.mcp.json in the Claude Desktop format', async () => {
    const path = await write('.mcp.json', desktopFile);
    const config = await loadConfig({ homeDir: home, env });
    expect(config.path).toBe(path);
    expect(config.servers).toEqual({
      files: {
        transport: 'stdio',
        command: 'npx',
        args: ['-y', 'server-filesystem', '/srv'],
        env: {},
        inheritEnv: false,
      },
    });
  });

  it.each(CONFIG_FILE_NAMES.map((name, index) => [name, CONFIG_FILE_NAMES.slice(index)] as const))(
    'uses %s before the names after it',
    async (expected, present) => {
      for (const name of present) {
        const yaml = name.endsWith('.json') ? `{"model": "from ${name}"}` : `model: from ${name}\n`;
        await write(name, yaml);
      }
      const config = await loadConfig({ homeDir: home, env });
      expect(config.path).toBe(join(home, expected));
      expect(config.model).toBe(`from ${expected}`);
    },
  );

  it('reads a YAML file, Go mcphost keys and forms included', async () => {
    await write(
      '.mcphost.yml',
      [
        '# comments are fine in YAML',
        'mcpServers:',
        '  filesystem:',
        '    type: local',
        '    command: ["npx", "-y", "@modelcontextprotocol/server-filesystem", "${env://ROOT}"]',
        '    environment:',
        '      DEBUG: "true"',
        '  search:',
        '    type: remote',
        '    url: https://api.example.com/mcp',
        '    headers: ["Authorization: Bearer ${env://TOKEN:-none}"]',
        'model: ollama:qwen2.5:3b',
        'max-steps: 20',
        'temperature: 0.7',
        'stop-sequences: ["Human:"]',
        '',
      ].join('\n'),
    );
    const config = await loadConfig({ homeDir: home, env });
    expect(config).toMatchObject({
      model: 'ollama:qwen2.5:3b',
      maxSteps: 20,
      generation: { temperature: 0.7, stopSequences: ['Human:'] },
      servers: {
        filesystem: {
          transport: 'stdio',
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv'],
          env: { DEBUG: 'true' },
        },
        search: {
          transport: 'http',
          url: 'https://api.example.com/mcp',
          headers: { Authorization: 'Bearer none' },
        },
      },
    });
  });

  it("reads the Go mcphost's generated template (mcpServers: with nothing under it)", async () => {
    await write('.mcphost.yml', '# MCPHost Configuration File\n\nmcpServers:\n\n# model: "anthropic:x"\n');
    const config = await loadConfig({ homeDir: home, env });
    expect(config.servers).toEqual({});
    expect(config.path).toBe(join(home, '.mcphost.yml'));
  });

  it('skips a directory that has a config file name', async () => {
    await mkdir(join(home, '.mcp.json'));
    const path = await write('.mcphost.json', '{"model": "m"}');
    expect((await loadConfig({ homeDir: home, env })).path).toBe(path);
  });

  it('takes an empty file as a config with nothing in it, and says so', async () => {
    const path = await write('.mcp.json', '  \n');
    const config = await loadConfig({ homeDir: home, env });
    expect(config.path).toBe(path);
    expect(config.servers).toEqual({});
    expect(config.warnings).toEqual([`${path}: the file is empty`]);
  });

  it('ignores a byte-order mark', async () => {
    await write('.mcp.json', `\uFEFF${desktopFile}`);
    expect(Object.keys((await loadConfig({ homeDir: home, env })).servers)).toEqual(['files']);
  });
});

describe('loadConfig: --config', () => {
  it('wins over the files in the home directory', async () => {
    await write('.mcp.json', '{"model": "home"}');
    const other = await mkdtemp(join(tmpdir(), 'mcphost-other-'));
    try {
      const path = join(other, 'claude_desktop_config.json');
      await writeFile(path, '{"model": "named"}');
      const config = await loadConfig({ configPath: path, homeDir: home, env });
      expect(config.path).toBe(path);
      expect(config.model).toBe('named');
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it('is an error naming the file when it does not exist, even if the home has one', async () => {
    await write('.mcp.json', desktopFile);
    const missing = join(home, 'nope.json');
    const error = await loadError({ configPath: missing });
    expect(error.message).toBe(`${missing}: no such file`);
    expect(error.source).toBe(missing);
  });

  it('is an error when it names a directory', async () => {
    const error = await loadError({ configPath: home });
    expect(error.message).toBe(`${home}: is a directory, not a config file`);
  });

  it('decides the syntax by content when the name has no known extension', async () => {
    const jsonPath = await write('mcprc', desktopFile);
    const yamlPath = await write('mcphost-config', 'mcpServers:\n  a:\n    command: x\n');
    expect(Object.keys((await loadConfig({ configPath: jsonPath, homeDir: home, env })).servers)).toEqual([
      'files',
    ]);
    expect(Object.keys((await loadConfig({ configPath: yamlPath, homeDir: home, env })).servers)).toEqual([
      'a',
    ]);
  });
});

describe('loadConfig: error messages', () => {
  it('gives a JSON syntax error on one line, with line and column', async () => {
    const path = await write('.mcp.json', '{\n  "mcpServers": {\n    "a": }\n}\n');
    const error = await loadError({});
    expect(error.message).toBe(
      `${path}: invalid JSON at line 3, column 10: unexpected "}" (expected a value)`,
    );
    expect(error.source).toBe(path);
  });

  it('points at a trailing comma', async () => {
    const path = await write('.mcp.json', '{\n  "mcpServers": {\n    "a": { "command": "x", }\n  }\n}\n');
    expect((await loadError({})).message).toBe(
      `${path}: invalid JSON at line 3, column 26: trailing comma before "}"`,
    );
  });

  it('reads a .json file as JSON even when YAML would accept it', async () => {
    const path = await write('.mcphost.json', '{"mcpServers": {"a": {"command": x}}}');
    expect((await loadError({})).message).toBe(
      `${path}: invalid JSON at line 1, column 34: unexpected "x" (expected a value; text needs double quotes)`,
    );
  });

  it('gives a YAML syntax error on one line, with line and column', async () => {
    const path = await write('.mcphost.yml', 'mcpServers:\n  a:\n    command: [x\n  b: 1\n');
    const error = await loadError({});
    expect(error.message).toBe(
      `${path}: invalid YAML at line 4, column 3: missed comma between flow collection entries`,
    );
    expect(error.message).not.toContain('\n');
  });

  it('reports YAML duplicate keys and indentation slips', async () => {
    const path = await write('.mcphost.yml', 'model: a\nmodel: b\n');
    expect((await loadError({})).message).toBe(
      `${path}: invalid YAML at line 2, column 1: duplicated mapping key`,
    );
  });

  it('reports a YAML indentation slip', async () => {
    const path = await write('.mcphost.yaml', 'mcpServers:\n  a:\n    command: x\n   args: [y]\n');
    expect((await loadError({})).message).toBe(
      `${path}: invalid YAML at line 4, column 4: bad indentation of a mapping entry`,
    );
  });

  it('names the file and the key for a schema error', async () => {
    const path = await write('.mcp.json', '{"mcpServers": {"files": {"command": "npx", "args": ["-y", 1]}}}');
    expect((await loadError({})).message).toBe(
      `${path}: mcpServers.files.args[1]: expected string, got number`,
    );
  });

  it('names the file, server and variable for a missing variable', async () => {
    const path = await write(
      '.mcp.json',
      '{"mcpServers": {"my files": {"command": "x", "args": ["${NOPE}"]}}}',
    );
    expect((await loadError({})).message).toBe(
      `${path}: mcpServers["my files"].args[0]: environment variable NOPE is not set (used as \${NOPE} with no default)`,
    );
  });

  // root reads any file whatever its mode, so there the check cannot be made.
  it.skipIf(process.getuid?.() === 0)('says so when a file exists but cannot be read', async () => {
    const path = await write('.mcp.json', desktopFile);
    await chmod(path, 0o000);
    expect((await loadError({})).message).toBe(`${path}: cannot read it: permission denied`);
  });
});
