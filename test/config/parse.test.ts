import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../config/parse.js';

const env = { HOME: '/home/ada', TOKEN: 's3cret', ROOT: '/srv/files', SECRET_KEY: 'k' };
const parse = (raw: unknown) => parseConfig(raw, '/home/ada/.mcp.json', env);

describe('parseConfig: server forms', () => {
  it('reads the Claude Desktop / Claude Code stdio form', () => {
    const config = parse({
      mcpServers: {
        files: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', '${ROOT}'],
          env: { API_KEY: '${TOKEN}', LEVEL: 'debug' },
          cwd: '${HOME}/work',
        },
        typed: { type: 'stdio', command: 'node' },
      },
    });
    expect(config.servers).toEqual({
      files: {
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv/files'],
        env: { API_KEY: 's3cret', LEVEL: 'debug' },
        cwd: '/home/ada/work',
        inheritEnv: false,
      },
      typed: { transport: 'stdio', command: 'node', args: [], env: {}, inheritEnv: false },
    });
  });

  it('reads the Go mcphost local form: the command list split into command and args', () => {
    const config = parse({
      mcpServers: {
        sqlite: {
          type: 'local',
          command: ['uvx', 'mcp-server-sqlite', '--db-path', '${env://HOME}/db.sqlite'],
          environment: { SQLITE_DEBUG: '${env://DEBUG:-0}' },
          inheritEnv: true,
        },
      },
    });
    expect(config.servers).toEqual({
      sqlite: {
        transport: 'stdio',
        command: 'uvx',
        args: ['mcp-server-sqlite', '--db-path', '/home/ada/db.sqlite'],
        env: { SQLITE_DEBUG: '0' },
        inheritEnv: true,
      },
    });
  });

  it('takes a command list without a type as the local form', () => {
    const config = parse({ mcpServers: { echo: { command: ['node', 'server.js'] } } });
    expect(config.servers.echo).toMatchObject({ transport: 'stdio', command: 'node', args: ['server.js'] });
  });

  it.each([
    [{}, 'http'],
    [{ type: 'http' }, 'http'],
    [{ type: 'streamable-http' }, 'http'],
    [{ type: 'remote' }, 'http'],
    [{ type: 'sse' }, 'sse'],
  ])('reads a remote server %j as transport %s', (extra, transport) => {
    const config = parse({
      mcpServers: {
        web: { ...extra, url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
      },
    });
    expect(config.servers).toEqual({
      web: { transport, url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer s3cret' } },
    });
  });

  it('reads the Go mcphost header list ("Name: value") and expands its values', () => {
    const config = parse({
      mcpServers: {
        web: {
          url: 'http://127.0.0.1:${PORT:-8080}/sse',
          type: 'sse',
          headers: ['Authorization: Bearer ${env://TOKEN}', 'X-Trace:  on: yes '],
        },
      },
    });
    expect(config.servers.web).toEqual({
      transport: 'sse',
      url: 'http://127.0.0.1:8080/sse',
      headers: { Authorization: 'Bearer s3cret', 'X-Trace': 'on: yes' },
    });
  });

  it('keeps tool filters and timeouts, and fills in the config-wide timeouts', () => {
    const config = parse({
      initTimeout: 5000,
      toolTimeout: 60000,
      mcpServers: {
        slow: { command: 'slow-server', initTimeout: 20000, allowedTools: ['read_file'] },
        fast: { url: 'http://localhost:3000/mcp', toolTimeout: 1000, excludedTools: ['delete'] },
      },
    });
    expect(config.servers).toEqual({
      slow: {
        transport: 'stdio',
        command: 'slow-server',
        args: [],
        env: {},
        inheritEnv: false,
        allowedTools: ['read_file'],
        initTimeoutMs: 20000,
        toolTimeoutMs: 60000,
      },
      fast: {
        transport: 'http',
        url: 'http://localhost:3000/mcp',
        headers: {},
        excludedTools: ['delete'],
        initTimeoutMs: 5000,
        toolTimeoutMs: 1000,
      },
    });
    expect(config.initTimeoutMs).toBe(5000);
    expect(config.toolTimeoutMs).toBe(60000);
  });

  it('drops disabled servers but lists them, without needing their variables', () => {
    const config = parse({
      mcpServers: {
        on: { command: 'a', disabled: false },
        off: { command: 'b', args: ['${NOT_SET_ANYWHERE}'], disabled: true },
      },
    });
    expect(Object.keys(config.servers)).toEqual(['on']);
    expect(config.disabledServers).toEqual(['off']);
  });

  it('keeps server names with dots, spaces and odd characters as they are', () => {
    const name = 'my server.v2 (files) — with a rather long name of more than fifty characters';
    const config = parse({ mcpServers: { [name]: { command: 'x' }, 'a.b': { url: 'http://h/' } } });
    expect(Object.keys(config.servers)).toEqual([name, 'a.b']);
  });

  it('keeps a server named __proto__ as a server, not a prototype', () => {
    const config = parse(JSON.parse('{"mcpServers": {"__proto__": {"command": "x"}}}'));
    expect(Object.keys(config.servers)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(config.servers)).toBe(Object.prototype);
  });

  it('treats keys set to null (YAML "key:" with nothing after) as not set', () => {
    const config = parse({ model: null, mcpServers: { a: { command: 'x', args: null, env: null } } });
    expect(config.model).toBeUndefined();
    expect(config.servers.a).toMatchObject({ args: [], env: {} });
    expect(parse({ mcpServers: null }).servers).toEqual({});
  });

  it('warns about server keys it does not know, naming the file, server and key', () => {
    const config = parse({ mcpServers: { files: { command: 'x', autoApprove: [], timeout: 30 } } });
    expect(config.servers.files).toBeDefined();
    expect(config.warnings).toEqual([
      '/home/ada/.mcp.json: mcpServers.files.autoApprove: unknown key, ignored',
      '/home/ada/.mcp.json: mcpServers.files.timeout: unknown key, ignored',
    ]);
  });
});

describe('parseConfig: top-level settings', () => {
  it('reads every setting, typed', () => {
    const config = parse({
      mcpServers: {},
      model: 'ollama:qwen2.5:3b',
      systemPrompt: 'Be brief.',
      maxSteps: 12,
      providerUrl: 'http://127.0.0.1:11434',
      providerApiKey: 'key',
      maxTokens: 1000,
      temperature: 0.2,
      topP: 0.9,
      topK: 40,
      stopSequences: ['END'],
      initTimeout: 1000,
      toolTimeout: 2000,
    });
    expect(config).toEqual({
      servers: {},
      disabledServers: [],
      warnings: [],
      model: 'ollama:qwen2.5:3b',
      systemPrompt: 'Be brief.',
      maxSteps: 12,
      providerUrl: 'http://127.0.0.1:11434',
      providerApiKey: 'key',
      generation: { maxTokens: 1000, temperature: 0.2, topP: 0.9, topK: 40, stopSequences: ['END'] },
      initTimeoutMs: 1000,
      toolTimeoutMs: 2000,
    });
  });

  it("accepts the Go mcphost's kebab-case keys", () => {
    const config = parse({
      'max-steps': 3,
      'system-prompt': '/home/ada/prompt.md',
      'provider-url': 'http://localhost:1234/v1',
      'max-tokens': 50,
      'top-p': 0.5,
      'top-k': 5,
      'stop-sequences': ['Human:'],
    });
    expect(config).toMatchObject({
      maxSteps: 3,
      systemPrompt: '/home/ada/prompt.md',
      providerUrl: 'http://localhost:1234/v1',
      generation: { maxTokens: 50, topP: 0.5, topK: 5, stopSequences: ['Human:'] },
    });
  });

  it('ignores top-level keys it does not know (Claude Desktop files carry others)', () => {
    const config = parse({
      mcpServers: { a: { command: 'x' } },
      globalShortcut: 'Ctrl+Space',
      preferences: { theme: 'dark' },
      debug: true,
      toString: 5,
    });
    expect(Object.keys(config.servers)).toEqual(['a']);
    expect(config.warnings).toEqual([]);
  });

  it('reads an empty or missing config as no servers and no settings', () => {
    const empty = { servers: {}, disabledServers: [], warnings: [], generation: {} };
    expect(parse(undefined)).toEqual(empty);
    expect(parse(null)).toEqual(empty);
    expect(parse({})).toEqual(empty);
  });

  it('does not expand variables outside server definitions', () => {
    const config = parse({ model: '${MODEL}', systemPrompt: 'Use ${HOME}' });
    expect(config.model).toBe('${MODEL}');
    expect(config.systemPrompt).toBe('Use ${HOME}');
  });
});
