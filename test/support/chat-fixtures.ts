/**
 * The chat loop with injected streams: `startChat` runs it on a fake terminal (stdin/stdout that
 * say they are TTYs, keys written as bytes) or plain pipes, with a scripted provider and a fake tool
 * host, in a temporary folder per test (`useChatFolder`).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { afterEach, beforeEach } from 'vitest';
import { runChat, type ChatOptions } from '../../src/cli/interactive.js';
import { Runner } from '../../src/core/runner.js';
import type { ChatRequest } from '../../src/core/types.js';
import { FakeToolHost, type FakeTool } from './fake-tool-host.js';
import { ScriptedProvider, type ScriptedReply } from './scripted-provider.js';

export const ESC = '\u001B';
export const SGR = new RegExp(`${ESC}\\[[0-9;]*m`);
export const KEYS = { enter: '\r', ctrlC: '\u0003', ctrlD: '\u0004', up: `${ESC}[A` };

/**
 * The current test's temporary folder, the chat's HOME and working folder (a live binding: set
 * before each test by `useChatFolder`).
 */
export let folder: string;

/** Registers, in the calling test file, a fresh temporary folder before each test, removed after it. */
export function useChatFolder(): void {
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'mcphost-chat-'));
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });
}

interface ChatSetup {
  readonly replies: readonly ScriptedReply[];
  readonly tools?: Record<string, FakeTool>;
  /** Streams that say they are terminals (readline's terminal mode), or plain pipes. */
  readonly terminal?: boolean;
  readonly env?: Record<string, string>;
  readonly options?: Partial<ChatOptions>;
}

export function startChat(setup: ChatSetup) {
  const terminal = setup.terminal ?? true;
  const stdin = Object.assign(new PassThrough(), {
    isTTY: terminal,
    isRaw: false,
    setRawMode(mode: boolean) {
      stdin.isRaw = mode;
      return stdin;
    },
  });
  const stdout = Object.assign(new PassThrough(), { isTTY: terminal, columns: 80, rows: 24 });
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const provider = new ScriptedProvider(setup.replies);
  const host = new FakeToolHost(setup.tools ?? {});
  const runner = new Runner({ provider, tools: host });
  const controller = new AbortController();
  const historyPath = join(folder, 'state', 'history');
  const finished = runChat(
    {
      runner,
      describeTools: async () =>
        (await host.tools()).map((tool) => ({
          exposedName: tool.name,
          ...originOf(tool.name),
          description: tool.description,
        })),
      servers: () => [],
    },
    // CI keeps the spinner off: its frames are timing, not content.
    { stdin, stdout, stderr, env: { CI: '1', ...setup.env }, homeDir: folder, cwd: folder },
    { debug: false, signal: controller.signal, historyPath, ...setup.options },
  );
  /** Resolves once `predicate` holds for what was written (colors taken out), or fails after a deadline. */
  const until = async (predicate: (output: string) => boolean, what: string): Promise<void> => {
    const deadline = Date.now() + 5_000;
    while (!predicate(stripVTControlCharacters(out))) {
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}; output so far:\n${out}\n${err}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  return {
    stdin,
    provider,
    host,
    runner,
    controller,
    finished,
    historyPath,
    /** What was written, colors and cursor movements taken out. */
    out: () => stripVTControlCharacters(out),
    raw: () => out,
    err: () => err,
    type: (text: string) => stdin.write(text),
    until,
    /** Waits for the `count`-th prompt (prompts are counted from the start). */
    prompt: (count: number) =>
      until((output) => output.split('scripted:test › ').length > count, `prompt ${count}`),
  };
}

/** The text of the user messages the provider was sent in its last request. */
export function userTexts(request: ChatRequest | undefined): string[] {
  return (request?.messages ?? [])
    .filter((message) => message.role === 'user')
    .map((message) => message.content.map((block) => (block.type === 'text' ? block.text : '')).join(''));
}

/** The fake tools are all named `server__tool` with plain parts; a real chat asks the pool's table. */
function originOf(exposedName: string): { server: string; tool: string } {
  const separator = exposedName.indexOf('__');
  return { server: exposedName.slice(0, separator), tool: exposedName.slice(separator + 2) };
}
