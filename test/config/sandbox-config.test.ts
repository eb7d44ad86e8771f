/** The `sandbox` key of a stdio server entry and of the built-in bash server's options. */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../config/parse.js';
import { ConfigError } from '../../src/core/errors.js';

const source = '/home/u/.mcp.json';
const env = { HOME: '/home/u', WORK: '/srv/work' };

function servers(mcpServers: Record<string, unknown>) {
  return parseConfig({ mcpServers }, source, env).servers;
}

function errorFor(mcpServers: Record<string, unknown>): string {
  try {
    parseConfig({ mcpServers }, source, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('sandbox settings', () => {
  it('are read on a stdio entry, with ${VAR} expanded in their paths', () => {
    const parsed = servers({
      files: {
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-filesystem', '${WORK}'],
        sandbox: { writable: ['${WORK}', '~/.npm'], hidden: ['~/private'], network: false },
      },
    });
    expect(parsed.files).toMatchObject({
      transport: 'stdio',
      sandbox: { writable: ['/srv/work', '~/.npm'], hidden: ['~/private'], network: false },
    });
  });

  it('are read in the Go form and on the built-in bash server', () => {
    const parsed = servers({
      local: { type: 'local', command: ['node', 'server.js'], sandbox: { network: true } },
      shell: { type: 'builtin', name: 'bash', options: { sandbox: { writable: ['${WORK}/out'] } } },
    });
    expect(parsed.local).toMatchObject({ sandbox: { network: true } });
    expect(parsed.shell).toMatchObject({
      transport: 'builtin',
      builtin: { name: 'bash', options: { sandbox: { writable: ['/srv/work/out'] } } },
    });
  });

  it('take true for the defaults, and false for none', () => {
    const parsed = servers({
      on: { command: 'node', sandbox: true },
      off: { command: 'node', sandbox: false },
      shell: { type: 'builtin', name: 'bash', options: { sandbox: true } },
    });
    expect(parsed.on).toMatchObject({ sandbox: {} });
    expect(parsed.off).not.toHaveProperty('sandbox');
    expect(parsed.shell).toMatchObject({ builtin: { options: { sandbox: {} } } });
  });

  it.each([
    [
      { files: { command: 'node', sandbox: { writeable: ['/srv'] } } },
      '/home/u/.mcp.json: mcpServers.files.sandbox: Unrecognized key: "writeable"',
    ],
    [
      { shell: { type: 'builtin', name: 'bash', options: { sandbox: { net: true } } } },
      '/home/u/.mcp.json: mcpServers.shell.options.sandbox: Unrecognized key: "net"',
    ],
    [
      { files: { command: 'node', sandbox: { network: 'yes' } } },
      '/home/u/.mcp.json: mcpServers.files.sandbox.network: expected boolean, got string',
    ],
    [
      { files: { command: 'node', sandbox: { writable: '/srv' } } },
      '/home/u/.mcp.json: mcpServers.files.sandbox.writable: expected array, got string',
    ],
    [
      { files: { command: 'node', sandbox: 'on' } },
      '/home/u/.mcp.json: mcpServers.files.sandbox: expected object, got string',
    ],
  ])('a mistake is one line naming the key: %j', (mcpServers, message) => {
    expect(errorFor(mcpServers)).toBe(message);
  });

  it('is not a key of a remote server', () => {
    expect(errorFor({ api: { url: 'https://example.com/mcp', sandbox: {} } })).toContain(
      'mcpServers.api.sandbox',
    );
  });
});
