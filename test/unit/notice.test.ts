import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { notice, type CliIO } from '../../src/cli/io.js';

function stderrOf(write: (io: CliIO) => void): string {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  write({ stderr } as unknown as CliIO);
  return text;
}

describe('notice', () => {
  it('is one clean line when given one message, whatever the message holds', () => {
    expect(stderrOf((io) => notice(io, 'cut\nmcphost: forged\u202e'))).toBe('mcphost: cut mcphost: forged\n');
  });

  it('shows lines the host composed under the first, each cleaned so none can forge a line', () => {
    const text = stderrOf((io) =>
      notice(io, ['continuing abc: 2 messages', 'you: hi\nmcphost: forged', 'model: hello']),
    );
    expect(text).toBe('mcphost: continuing abc: 2 messages\n  you: hi mcphost: forged\n  model: hello\n');
  });
});
