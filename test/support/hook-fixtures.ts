/**
 * The hook tests' set-up: a temporary folder per test, hook runners with a fixed context and a
 * minimal environment (closed after each test), a fake tool host, and reading what `record.sh` wrote.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { HookRunner, type HooksConfig } from '../../src/safety/hooks.js';
import type { ToolCallBlock, ToolResultBlock } from '../../src/core/types.js';
import { FakeToolHost } from './fake-tool-host.js';

/** The current test's temporary folder (a live binding: set before each test by `useHookFolder`). */
export let folder: string;
let runners: HookRunner[] = [];

/**
 * Registers, in the calling test file, the per-test set-up: a fresh temporary folder before each
 * test, and after it every hook runner `hookRunner()` made closed and the folder removed.
 */
export function useHookFolder(): void {
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'mcphost-hooks-'));
  });
  afterEach(async () => {
    for (const runner of runners) runner.close();
    runners = [];
    await rm(folder, { recursive: true, force: true });
  });
}

const env = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: '/home/ada',
  ANTHROPIC_API_KEY: 'sk-ant-secret-value',
};

export function hookRunner(config: HooksConfig, warnings: string[] = []): HookRunner {
  const runner = new HookRunner({
    config,
    context: { sessionId: 'session-1', model: 'ollama:test', interactive: false, cwd: folder },
    env,
    onWarning: (message) => warnings.push(message),
    now: () => 1_700_000_000_000,
  });
  runners.push(runner);
  return runner;
}

export function one(command: string, matcher?: string, timeoutSeconds?: number) {
  return [
    {
      ...(matcher === undefined ? {} : { matcher }),
      hooks: [{ command, ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }) }],
    },
  ];
}

export function tools() {
  return new FakeToolHost({
    files__write: (input) => `wrote ${String(input.path)}`,
    files__read: () => 'the secret word is mango',
  });
}

export function call(name: string, input: Record<string, unknown> = {}): ToolCallBlock {
  return { type: 'tool-call', id: `id-${name}`, name, input };
}

export function text(result: ToolResultBlock): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

export async function recorded(file: string): Promise<Array<Record<string, unknown>>> {
  const content = await readFile(file, 'utf8');
  return content
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
