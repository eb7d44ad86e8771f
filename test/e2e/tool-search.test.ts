/**
 * The tool search end to end: `-p` with the real OpenAI SDK against the fake (which refuses more
 * than 128 tools with OpenAI's real error body) and a real MCP server offering 200 tools. With every
 * definition sent, the vendor refuses the run; with the search, the model finds the tool it needs,
 * gets it loaded and calls it.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { REPOSITORY, runCli, temporaryHome, type TemporaryHome } from '../support/cli.js';

const MANY_TOOLS = {
  command: process.execPath,
  args: [join(REPOSITORY, 'test/fixtures/servers/many-tools.mjs'), '200'],
};

type OpenAIBody = {
  tools?: Array<{ function: { name: string; description?: string } }>;
  messages: Array<{ role: string; content?: unknown }>;
};
const toolNames = (body: OpenAIBody): string[] => (body.tools ?? []).map((tool) => tool.function.name);

let home: TemporaryHome;
let fake: FakeOpenAI;
let offered: string[][] = [];

beforeAll(async () => {
  home = await temporaryHome();
  fake = await startFakeOpenAI(
    (request, index) => {
      const body = request.body as OpenAIBody;
      offered.push(toolNames(body));
      if (index === 0 && toolNames(body).includes('tool_search')) {
        return {
          type: 'tool-calls',
          calls: [{ id: 'call_1', name: 'tool_search', arguments: '{"query":"weather forecast"}' }],
        };
      }
      if (
        toolNames(body).includes('many__get_weather') &&
        body.messages.at(-1)?.role === 'tool' &&
        index === 1
      ) {
        return {
          type: 'tool-calls',
          calls: [{ id: 'call_2', name: 'many__get_weather', arguments: '{"city":"Oslo"}' }],
        };
      }
      return { type: 'text', text: `last: ${JSON.stringify(body.messages.at(-1)?.content)}` };
    },
    { apiKey: 'sk-test' },
  );
});
afterAll(async () => {
  await fake.close();
  await home.remove();
});

async function run(config: Record<string, unknown>, ...flags: string[]) {
  offered = [];
  await home.writeConfig({ mcpServers: { many: MANY_TOOLS }, ...config });
  return runCli(['-m', 'openai:gpt-4.1-mini', '-p', 'weather in Oslo?', ...flags], home.path, {
    env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.url },
    timeoutMs: 60_000,
  });
}

describe('200 tools with OpenAI (which takes at most 128)', () => {
  it('fails with the vendor error when every definition is sent (toolSearch: never)', async () => {
    const result = await run({ toolSearch: 'never' });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      "Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length 200 instead.",
    );
  });

  it('fails the same way with the flag --tool-search never over the config', async () => {
    const result = await run({ toolSearch: 'always' }, '--tool-search', 'never');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('array too long');
    const wrong = await run({}, '--tool-search', 'sometimes');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--tool-search: "sometimes" is not one of auto, always, never');
  });

  it('succeeds with the tool search: search, load, call, answer; stderr says so in one line', async () => {
    const result = await run({});
    expect(result.stderr).toContain(
      "mcphost: tool search on: 200 tools pass the vendor's limit of 128 a request; --tool-search never turns it off (the vendor then refuses the request)\n",
    );
    expect(result.code).toBe(0);
    expect(offered[0]).toEqual(['tool_search']);
    expect(offered[1]).toEqual(['tool_search', 'many__get_weather']);
    expect(offered[2]).toEqual(['tool_search', 'many__get_weather']);
    expect(result.stdout).toContain('sunny in Oslo');
    expect(offered).toHaveLength(3);
  });
});

describe('--context-window', () => {
  it('overrides the config and the table: 20 small tools pass 25% of a 2,000-token window', async () => {
    offered = [];
    await home.writeConfig({
      mcpServers: { many: { ...MANY_TOOLS, args: [MANY_TOOLS.args[0] ?? '', '20'] } },
      contextWindow: 1_000_000,
    });
    const result = await runCli(
      ['-m', 'openai:gpt-4.1-mini', '-p', 'weather in Oslo?', '--context-window', '2000', '--debug'],
      home.path,
      { env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.url }, timeoutMs: 60_000 },
    );
    expect(result.stderr).toMatch(
      /tool search on: 20 tool definitions \(about [\d.k]+ tokens\) pass 25% of the 2.0k window; --tool-search never turns it off \(the model gets tool_search and the 0 tools it loaded\)/,
    );
    expect(result.code).toBe(0);
    expect(offered[0]).toEqual(['tool_search']);
  });

  it('stream-json reports the search as a tool-search event', async () => {
    offered = [];
    await home.writeConfig({
      mcpServers: { many: { ...MANY_TOOLS, args: [MANY_TOOLS.args[0] ?? '', '20'] } },
    });
    const result = await runCli(
      ['-m', 'openai:gpt-4.1-mini', '-p', 'hi', '--context-window', '2000', '--output-format', 'stream-json'],
      home.path,
      { env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.url }, timeoutMs: 60_000 },
    );
    expect(result.code).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; [key: string]: unknown });
    expect(events.find((event) => event.type === 'tool-search')).toMatchObject({
      type: 'tool-search',
      step: 1,
      reason: 'window-share',
      tools: 20,
      budgetTokens: 500,
      windowTokens: 2000,
      message: expect.stringMatching(/^tool search on: 20 tool definitions/) as string,
    });
  });
});
