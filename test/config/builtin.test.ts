/** The Go mcphost's `"type": "builtin"` entries, read into built-in server definitions. */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../config/parse.js';

const env = { HOME: '/home/u', WORK: '/srv/work' };
const serversOf = (mcpServers: unknown) => parseConfig({ mcpServers }, '/home/u/.mcp.json', env).servers;

describe('builtin server entries', () => {
  it('reads each server with its options, in the Go mcphost form', () => {
    expect(
      serversOf({
        files: { type: 'builtin', name: 'fs', options: { allowed_directories: ['${WORK}', '/tmp'] } },
        shell: { type: 'builtin', name: 'bash', options: { timeoutMs: 5000, requireApproval: false } },
        plan: { type: 'builtin', name: 'todo' },
        web: {
          type: 'builtin',
          name: 'http',
          options: { allowedAddresses: ['10.0.0.0/8'] },
          toolTimeout: 9000,
        },
      }),
    ).toEqual({
      files: {
        transport: 'builtin',
        builtin: { name: 'fs', options: { allowedDirectories: ['/srv/work', '/tmp'] } },
      },
      shell: {
        transport: 'builtin',
        builtin: { name: 'bash', options: { timeoutMs: 5000, requireApproval: false } },
      },
      plan: { transport: 'builtin', builtin: { name: 'todo', options: {} } },
      web: {
        transport: 'builtin',
        builtin: { name: 'fetch', options: { allowedAddresses: ['10.0.0.0/8'] } },
        toolTimeoutMs: 9000,
      },
    });
  });

  it('refuses both spellings of the allowed directories at once', () => {
    expect(() =>
      serversOf({
        fs: {
          type: 'builtin',
          name: 'fs',
          options: { allowedDirectories: ['a'], allowed_directories: ['b'] },
        },
      }),
    ).toThrow('mcpServers.fs.options: give "allowedDirectories" or "allowed_directories", not both');
  });

  it('skips a disabled built-in server', () => {
    expect(serversOf({ shell: { type: 'builtin', name: 'bash', disabled: true } })).toEqual({});
  });
});
