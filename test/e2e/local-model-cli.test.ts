/**
 * `mcphost -p -m local:/path/model.gguf` end to end: the built CLI, the real llama.cpp binding,
 * the tiny generated model, and a real MCP server from npm. One thread (MCPHOST_LOCAL_THREADS=1):
 * the tiny model is fastest so, and the machine is shared.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EVERYTHING_SERVER, runCli, temporaryHome, type TemporaryHome } from '../support/cli.js';
import { TINY_GGUF_SHAPE, writeTinyGguf } from '../fixtures/tiny-gguf.js';
import { startFakeHub } from '../fakes/hugging-face-server.js';
import { unusedPort } from '../support/loopback.js';

let folder: string;
let noiseModel: string;
let quotingModel: string;
let home: TemporaryHome;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-local-cli-'));
  noiseModel = await writeTinyGguf(join(folder, 'noise.gguf'));
  // Leans to `"`, so the string argument of a forced call ends (see TinyGgufShape.favouredByte). Its
  // tokens are single bytes: a window of 4,096 holds the system prompt with server-everything's tools,
  // which now include the host's two resource tools (the server has resources). Qwen3's template:
  // its chat wrapper has a function-call syntax, so `toolCalling: auto` calls natively (ChatML's
  // has none, and would be prompted).
  quotingModel = await writeTinyGguf(join(folder, 'quoting.gguf'), {
    ...TINY_GGUF_SHAPE,
    favouredByte: '"',
    contextLength: 4096,
    chatTemplate: 'qwen3',
  });
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});
beforeEach(async () => {
  home = await temporaryHome();
});
afterEach(async () => {
  await home.remove();
});

interface JsonResult {
  readonly ok: boolean;
  readonly stopReason: string;
  readonly steps: number;
  readonly model: string;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
  readonly toolCalls: ReadonlyArray<{
    readonly name: string;
    readonly arguments: Record<string, unknown>;
    readonly result: string;
    readonly isError: boolean;
  }>;
}

describe('mcphost -p with the embedded model', () => {
  it('answers from a model file with no servers, counting tokens', async () => {
    const run = await runCli(
      ['-m', `local:${noiseModel}`, '-p', 'hello', '--max-tokens', '16', '--output-format', 'json'],
      home.path,
      { env: { MCPHOST_LOCAL_THREADS: '1' } },
    );
    expect(run.stderr).not.toMatch(/error/i);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as JsonResult;
    expect(result.ok).toBe(true);
    expect(result.model).toBe(`local:${noiseModel}`);
    expect(result.stopReason).toBe('length');
    expect(result.usage.outputTokens).toBe(16);
    expect(result.usage.inputTokens).toBeGreaterThan(5);
  });

  it('sends a grammar-written tool call to a real MCP server and answers after its result', async () => {
    await home.writeConfig({ mcpServers: { everything: { ...EVERYTHING_SERVER, allowedTools: ['echo'] } } });
    const run = await runCli(
      [
        '-m',
        `local:${quotingModel}`,
        '-p',
        'echo something',
        '--max-tokens',
        '60',
        '--output-format',
        'json',
      ],
      home.path,
      { env: { MCPHOST_LOCAL_THREADS: '1', MCPHOST_LOCAL_TEST_FORCE_TOOL_CALL: '1' }, timeoutMs: 60_000 },
    );
    expect(run.code).toBe(0);
    // Qwen's chat wrapper has a function-call syntax: `toolCalling: auto` stays native.
    expect(run.stderr).not.toContain('prompted tool calling');
    const result = JSON.parse(run.stdout) as JsonResult;
    expect(result.toolCalls).toHaveLength(1);
    const [call] = result.toolCalls;
    expect(call?.name).toBe('everything__echo');
    expect(call?.arguments).toEqual({ message: '' });
    // server-everything answered: the call went through the pool to the real process.
    expect(call?.result).toBe('Echo: ');
    expect(call?.isError).toBe(false);
    // The second step read the result and answered (the quoting model writes quotes).
    expect(result.steps).toBe(2);
  });

  it('with nothing configured and nothing reachable, fails at once naming the endpoint (exit 3)', async () => {
    const endpoint = `http://127.0.0.1:${await unusedPort()}`;
    const run = await runCli(['-p', 'hi'], home.path, { env: { HF_ENDPOINT: endpoint } });
    expect(run.stderr).toContain(`cannot download qwen3-1.7b: ${endpoint}/ is unreachable`);
    expect(run.stderr).not.toContain('Ollama');
    expect(run.code).toBe(3);
  });

  it('with nothing configured, downloads the default model once with progress, answers, then runs from the cache', async () => {
    const model = await readFile(noiseModel);
    const hub = await startFakeHub({
      'unsloth/Qwen3-1.7B-GGUF': {
        files: { 'Qwen3-1.7B-Q4_K_M.gguf': { content: model } },
        tags: { Q4_K_M: 'Qwen3-1.7B-Q4_K_M.gguf' },
      },
    });
    try {
      // The README's first command, as a fresh machine runs it (no -m, no config), with the Hub
      // answered by the loopback fake.
      const env = { HF_ENDPOINT: hub.url, MCPHOST_LOCAL_THREADS: '1' };
      const first = await runCli(['-p', 'hello', '--max-tokens', '8'], home.path, { env, timeoutMs: 60_000 });
      expect(first.stderr).toContain('mcphost: downloading qwen3-1.7b');
      expect(first.stderr).toMatch(/qwen3-1\.7b: 100%/);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout.length).toBeGreaterThan(0);
      const requests = hub.requests.length;
      expect(requests).toBeGreaterThan(0);

      const second = await runCli(['-p', 'hello', '--max-tokens', '8'], home.path, {
        env,
        timeoutMs: 60_000,
      });
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).not.toContain('downloading');
      expect(hub.requests.length).toBe(requests);
    } finally {
      await hub.close();
    }
  });

  it('says clearly when the model file is missing, before any server starts', async () => {
    const missing = join(folder, 'absent.gguf');
    const run = await runCli(['-m', `local:${missing}`, '-p', 'hi'], home.path);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`no model file at ${missing}`);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });
});
