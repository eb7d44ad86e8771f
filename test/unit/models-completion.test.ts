/** The shell completion of `mcphost models`: the script run by a real bash. */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { completionScript } from '../../src/cli/command-line/completion-script.js';

function complete(words: readonly string[]): string {
  const script = `${completionScript('bash')}
COMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _mcphost; echo "\${COMPREPLY[*]}"`;
  const result = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
  return result.stdout.trim();
}

describe('completion of mcphost models', () => {
  it('offers the command, its sub-commands and the short model names', () => {
    expect(complete(['mcphost', 'mo'])).toBe('models');
    expect(complete(['mcphost', 'models', ''])).toBe('list pull rm');
    expect(complete(['mcphost', 'models', 'pull', 'qwen3-'])).toBe('qwen3-1.7b qwen3-4b qwen3-0.6b');
    expect(complete(['mcphost', 'models', 'rm', 'll'])).toBe('llama3.2-3b');
  });
});
