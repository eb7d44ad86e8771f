/**
 * The programmatic API (issue 7) with real MCP servers and the real Ollama client against its fake:
 * createRunner's options and failure modes, stream() cancelled mid-answer, and the Runner's
 * lifecycle (history copy, reset, idempotent close, `await using`).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AbortedError,
  ConfigError,
  createRunner,
  McpHostError,
  ServerError,
  type RunnerEvent,
} from '../../src/index.js';
import { startFakeOllama, textReply, toolCallReply, type FakeOllama } from '../fakes/ollama-server.js';
import { isAlive, REPOSITORY, temporaryHome, EVERYTHING_SERVER } from '../support/cli.js';
import { liveChildren } from '../support/processes.js';
import { unwrapped } from '../support/untrusted.js';

const fixture = (name: string) => join(REPOSITORY, 'test/fixtures/servers', name);
let ollama: FakeOllama | undefined;

afterEach(async () => {
  await ollama?.close();
  ollama = undefined;
});

describe('createRunner', () => {
  it('runs with inline servers, shares one conversation across runs, and closes once', async () => {
    ollama = await startFakeOllama([
      toolCallReply(['everything__echo', { message: 'api' }]),
      (request) => textReply(`got ${unwrapped(request.messages.at(-1)?.content ?? '')}`),
      (request) => textReply(`history of ${request.messages.length} messages`),
    ]);
    const runner = await createRunner({
      model: 'ollama:mistral-small',
      providerUrl: ollama.url,
      mcpServers: { everything: EVERYTHING_SERVER },
      env: {},
    });
    expect(runner.servers).toMatchObject([{ name: 'everything', state: 'ready' }]);
    const first = await runner.run('echo api');
    expect(first).toMatchObject({ text: 'got Echo: api', steps: 2, stopReason: 'end' });
    expect(first.toolCalls[0]?.call.name).toBe('everything__echo');
    const second = await runner.run('and now?');
    // The system prompt (the default untrusted-content clause), then the 5 of the conversation.
    expect(second.text).toBe('history of 6 messages');

    const copy = runner.history as unknown[];
    copy.length = 0;
    expect(runner.history).toHaveLength(6);
    runner.reset();
    expect(runner.history).toEqual([]);

    const pid = runner.servers[0]?.pid;
    expect(pid).toBeTypeOf('number');
    await Promise.all([runner.close(), runner.close()]);
    await runner.close();
    expect(isAlive(pid!)).toBe(false);
  });

  it('reports servers that failed in `servers` instead of throwing', async () => {
    ollama = await startFakeOllama([]);
    await using runner = await createRunner({
      providerUrl: ollama.url,
      mcpServers: {
        broken: { command: process.execPath, args: [fixture('fail-on-start.mjs')] },
        everything: EVERYTHING_SERVER,
      },
      env: {},
    });
    const states = Object.fromEntries(runner.servers.map((server) => [server.name, server.state]));
    expect(states).toEqual({ broken: 'failed', everything: 'ready' });
  });

  it('throws ServerError with requireServers when every server failed', async () => {
    const error = await createRunner({
      providerUrl: 'http://127.0.0.1:9',
      mcpServers: { broken: { command: process.execPath, args: [fixture('fail-on-start.mjs')] } },
      requireServers: true,
      env: {},
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toBeInstanceOf(McpHostError);
    expect((error as Error).message).toContain('none of the 1 configured servers started');
  });

  it('cancels a start that hangs when its signal aborts, ending what was started', async () => {
    const controller = new AbortController();
    // Aborted once the server is surely running: it has written its first stderr line (a fixed
    // delay would abort before the spawn on a loaded machine, and catch nothing).
    let childrenWhenAborted: number[] = [];
    const starting = createRunner({
      providerUrl: 'http://127.0.0.1:9',
      mcpServers: { hangs: { command: process.execPath, args: [fixture('never-initializes.mjs')] } },
      env: {},
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type !== 'server-log') return;
        const { entry } = event;
        if (
          entry.server !== 'hangs' ||
          !entry.message.includes('stuck waiting') ||
          controller.signal.aborted
        ) {
          return;
        }
        childrenWhenAborted = liveChildren();
        controller.abort();
      },
    });
    await expect(starting).rejects.toBeInstanceOf(AbortedError);
    // The hanging server was running (our child) when the start was cancelled, and is gone again.
    expect(childrenWhenAborted).toHaveLength(1);
    expect(liveChildren()).toEqual([]);
  });

  it('ends the servers it started when the set-up beside them fails, without waiting for them', async () => {
    // The servers start while the provider is made; a missing key must not wait out their start
    // (this one never answers `initialize`: its init timeout is 30 s) nor leave them running.
    const home = await temporaryHome();
    const startedMark = join(home.path, 'started');
    try {
      const error = await createRunner({
        model: 'anthropic:claude-sonnet-4-5',
        mcpServers: {
          hangs: {
            command: '/bin/sh',
            args: [
              '-c',
              `echo > '${startedMark}'; exec '${process.execPath}' '${fixture('never-initializes.mjs')}'`,
            ],
          },
        },
        env: {},
      }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message).toMatch(/ANTHROPIC_API_KEY/);
      // The server did start (before the provider was made), and is gone again.
      expect(existsSync(startedMark)).toBe(true);
      expect(liveChildren()).toEqual([]);
    } finally {
      await home.remove();
    }
  });

  it('rejects bad options with a ConfigError before starting anything', async () => {
    const home = await temporaryHome();
    try {
      await expect(createRunner({ model: 'nope:model', homeDir: home.path, env: {} })).rejects.toBeInstanceOf(
        ConfigError,
      );
      await expect(createRunner({ mcpServers: { bad: { command: 42 } }, env: {} })).rejects.toThrow(
        /mcpServers option: mcpServers\.bad\.command/,
      );
    } finally {
      await home.remove();
    }
  });
});

describe('runner.stream', () => {
  it('stops mid-answer when its signal aborts, and leaves the history without the turn', async () => {
    ollama = await startFakeOllama([{ type: 'stall', text: ['Once ', 'upon '] }]);
    await using runner = await createRunner({ providerUrl: ollama.url, mcpServers: {}, env: {} });
    const controller = new AbortController();
    const seen: RunnerEvent['type'][] = [];
    let text = '';
    const consume = async () => {
      for await (const event of runner.stream('tell a story', { signal: controller.signal })) {
        seen.push(event.type);
        if (event.type === 'text-delta') {
          text += event.text;
          if (text === 'Once upon ') controller.abort();
        }
      }
    };
    await expect(consume()).rejects.toBeInstanceOf(AbortedError);
    expect(text).toBe('Once upon ');
    expect(seen).not.toContain('done');
    expect(runner.history).toEqual([]);
  });
});

describe('the examples', () => {
  const runExample = (name: string, env: Record<string, string>, args: string[] = []) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', join(REPOSITORY, 'examples', name), ...args],
        {
          cwd: REPOSITORY,
          env: { PATH: process.env.PATH ?? '', ...env },
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });

  it('custom-provider.ts runs with its own provider and tools', async () => {
    const run = await runExample('custom-provider.ts', {});
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/\[calling clock__now\]\nThe tool says it is \d\d:\d\d UTC\.\n\[2 steps\]/);
  });

  it('one-shot.ts answers through createRunner and the configured servers', async () => {
    const home = await temporaryHome();
    await home.writeConfig({ mcpServers: { everything: EVERYTHING_SERVER } });
    ollama = await startFakeOllama([
      toolCallReply(['everything__echo', { message: 'from the example' }]),
      (request) => textReply(`done: ${unwrapped(request.messages.at(-1)?.content ?? '')}`),
    ]);
    try {
      const run = await runExample('one-shot.ts', { HOME: home.path, OLLAMA_HOST: ollama.url }, ['echo it']);
      expect(run.code).toBe(0);
      expect(run.stdout).toBe('done: Echo: from the example\n');
      expect(run.stderr).toContain('(2 steps, 1 tool calls');
    } finally {
      await home.remove();
    }
  });
});
