/** Which of the executable's code caches (src/cli/code-cache.ts) a command line uses. */
import { describe, expect, it } from 'vitest';
import { runKindOf } from '../../src/cli/code-cache.js';

describe('which cache a command line uses', () => {
  it.each([
    [['--help'], 'help'],
    [['mcp', 'add', 'x', '--help'], 'help'],
    [['-v'], 'help'],
    [['mcp', 'list'], 'mcp'],
    [['auth', 'status'], 'auth'],
    [['completion', 'zsh'], 'completion'],
    [['script', 'a.sh'], 'script'],
    [['models', 'list'], 'models'],
    [['batch', 'jobs.jsonl', '--out', 'r.jsonl'], 'batch'],
    [['jobs', 'list'], 'jobs'],
    [['worker'], 'worker'],
    [['-m', 'ollama:x', '-p', 'hi'], 'prompt'],
    [['--prompt=hi'], 'prompt'],
    [['-m', 'ollama:x'], 'chat'],
    [[], 'chat'],
  ])('%j → %s', (argv, kind) => {
    expect(runKindOf(argv)).toBe(kind);
  });
});
