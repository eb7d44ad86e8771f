/**
 * Every provider end to end through the built CLI: the real vendor SDK against its loopback fake
 * (which refuses what the real service refuses), with real MCP servers — one of them under a name
 * with dots, spaces and more than 50 characters, which must still make valid, routable tool names.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic } from '../fakes/anthropic-server.js';
import { FAKE_GEMINI_KEY, startFakeGemini } from '../fakes/gemini-server.js';
import { startFakeOpenAI } from '../fakes/openai-server.js';
import {
  runCli,
  temporaryHome,
  type TemporaryHome,
  EVERYTHING_SERVER,
  npmServerConfig,
} from '../support/cli.js';

const ODD_SERVER = 'my.files server — with dots, spaces and a name well over fifty characters';
let home: TemporaryHome;
let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-provider-e2e-'));
  home = await temporaryHome();
  await home.writeConfig({
    mcpServers: {
      everything: EVERYTHING_SERVER,
      [ODD_SERVER]: npmServerConfig('filesystem', folder),
    },
  });
});
afterAll(async () => {
  await home.remove();
  await rm(folder, { recursive: true, force: true });
});

/** The offered names: the echo tool, and the odd server's list_allowed_directories. */
function pickTools(names: readonly string[]): { echo: string; directories: string } {
  const directories = names.find((name) => name.includes('list_allowed_directories'));
  if (directories === undefined || !names.includes('everything__echo')) {
    throw new Error(`expected tools not offered: ${names.join(', ')}`);
  }
  for (const name of names) expect(name).toMatch(/^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/);
  return { echo: 'everything__echo', directories };
}

function expectAnswered(run: { code: number | null; stdout: string; stderr: string }): void {
  expect(run.stderr).not.toMatch(/mcphost: .*(error|failed)/i);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('Echo: ping');
  expect(run.stdout).toContain(folder);
}

describe('each provider through the CLI with real MCP servers', () => {
  it('anthropic', async () => {
    const fake = await startFakeAnthropic((request, index) => {
      const body = request.body as { tools: Array<{ name: string }>; messages: unknown[] };
      if (index === 0) {
        const { echo, directories } = pickTools(body.tools.map((tool) => tool.name));
        return {
          type: 'answer',
          content: [
            { type: 'tool_use', id: 'toolu_1', name: echo, input: { message: 'ping' } },
            { type: 'tool_use', id: 'toolu_2', name: directories, input: {} },
          ],
        };
      }
      return { type: 'answer', content: [{ type: 'text', text: JSON.stringify(body.messages.at(-1)) }] };
    });
    try {
      const run = await runCli(
        ['-m', 'anthropic:claude-sonnet-4-5', '-p', 'go', '--root', folder, '--provider-url', fake.url],
        home.path,
        {
          env: { ANTHROPIC_API_KEY: 'sk-ant-test' },
        },
      );
      expectAnswered(run);
      expect(fake.requests.filter((request) => request.rejected !== undefined)).toEqual([]);
    } finally {
      await fake.close();
    }
  });

  it('openai', async () => {
    const fake = await startFakeOpenAI(
      (request, index) => {
        const body = request.body as { tools: Array<{ function: { name: string } }>; messages: unknown[] };
        if (index === 0) {
          const { echo, directories } = pickTools(body.tools.map((tool) => tool.function.name));
          return {
            type: 'tool-calls',
            calls: [
              { id: 'call_1', name: echo, arguments: '{"message":"ping"}' },
              { id: 'call_2', name: directories, arguments: '{}' },
            ],
          };
        }
        return { type: 'text', text: JSON.stringify(body.messages.slice(-2)) };
      },
      { apiKey: 'sk-test' },
    );
    try {
      const run = await runCli(['-m', 'openai:gpt-4.1-mini', '-p', 'go', '--root', folder], home.path, {
        env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.url },
      });
      expectAnswered(run);
    } finally {
      await fake.close();
    }
  });

  it('google (gemini alias), with Gemini 3 thought signatures sent back', async () => {
    const fake = await startFakeGemini(
      (request, index) => {
        const body = request.body as {
          tools: Array<{ functionDeclarations: Array<{ name: string }> }>;
          contents: unknown[];
        };
        if (index === 0) {
          const names = body.tools.flatMap((tool) =>
            tool.functionDeclarations.map((declaration) => declaration.name),
          );
          const { echo, directories } = pickTools(names);
          return {
            type: 'answer',
            parts: [
              { type: 'function-call', name: echo, args: { message: 'ping' } },
              { type: 'function-call', name: directories, args: {} },
            ],
          };
        }
        return { type: 'answer', parts: [{ type: 'text', text: JSON.stringify(body.contents.at(-1)) }] };
      },
      { gemini3: true },
    );
    try {
      const run = await runCli(
        ['-m', 'gemini:gemini-3-pro', '-p', 'go', '--root', folder, '--provider-url', fake.url],
        home.path,
        {
          env: { GEMINI_API_KEY: FAKE_GEMINI_KEY },
        },
      );
      expectAnswered(run);
      expect(fake.requests.filter((request) => request.rejected !== undefined)).toEqual([]);
    } finally {
      await fake.close();
    }
  });

  it('names the missing key variable before any request is made', async () => {
    const run = await runCli(['-m', 'anthropic:claude-sonnet-4-5', '-p', 'go', '--root', folder], home.path);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      'mcphost: ANTHROPIC_API_KEY: is not set; export it or pass --provider-api-key',
    );
  });
});
