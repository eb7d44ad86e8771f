/** Linking what the built-in servers did (a terminal, a file write) to the tool call that did it. */
import { describe, expect, it } from 'vitest';
import { ToolCallLinks } from '../../src/acp/tool-call-links.js';
import type { ToolCallBlock } from '../../src/core/types.js';

const call = (id: string, input: Record<string, unknown>): ToolCallBlock => ({
  type: 'tool-call',
  id,
  name: 'x',
  input,
});

describe('ToolCallLinks', () => {
  it('links a terminal to the first running call with that command that has none yet', () => {
    const links = new ToolCallLinks();
    links.started(call('a', { command: 'ls' }), 'bash');
    links.started(call('b', { command: 'ls' }), 'bash');
    expect(links.terminalStarted('ls', 't1')).toBe('a');
    expect(links.terminalStarted('ls', 't2')).toBe('b');
    expect(links.terminalStarted('ls', 't3')).toBeUndefined();
    expect(links.finished(call('b', { command: 'ls' }), 'run_command')).toEqual([
      { type: 'terminal', terminalId: 't2' },
    ]);
  });

  it('gives a write to the writing call of its path, relative or absolute, once', () => {
    const links = new ToolCallLinks();
    links.started(call('r', { path: 'notes/a.txt' }), 'fs');
    links.started(call('w', { path: './notes/a.txt' }), 'fs');
    links.wrote({ path: '/work/notes/a.txt', oldText: 'old', newText: 'new' });
    // A read of the same path is not the writer.
    expect(links.finished(call('r', { path: 'notes/a.txt' }), 'read_file')).toEqual([]);
    const diff = { type: 'diff', path: '/work/notes/a.txt', oldText: 'old', newText: 'new' };
    expect(links.finished(call('w', { path: './notes/a.txt' }), 'write_file')).toEqual([diff]);
    expect(links.finished(call('w', { path: './notes/a.txt' }), 'write_file')).toEqual([]);
  });

  it('does not take a write of another path whose name ends the same', () => {
    const links = new ToolCallLinks();
    links.wrote({ path: '/work/banana.txt', oldText: null, newText: 'b' });
    expect(links.finished(call('w', { path: 'ana.txt' }), 'write_file')).toEqual([]);
  });

  it('names the most recent running call of a server, and forgets everything at the turn end', () => {
    const links = new ToolCallLinks();
    links.started(call('a', {}), 'forms');
    links.started(call('b', {}), 'other');
    links.started(call('c', {}), 'forms');
    expect(links.runningCallOf('forms')).toBe('c');
    links.clear();
    expect(links.runningCallOf('forms')).toBeUndefined();
  });
});
