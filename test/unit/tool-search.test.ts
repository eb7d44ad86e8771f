/**
 * The tool search with the scripted provider: all definitions below the thresholds; the search tool
 * past a vendor's cap or a share of the window; loading by search and by calling; loaded tools kept
 * through a compaction and a resumed conversation; the ranking itself.
 */
import { describe, expect, it } from 'vitest';
import { SUMMARY_TEMPLATE } from '../../src/context/compaction.js';
import { ToolCatalog, type ToolMode } from '../../src/context/tool-catalog.js';
import { TOOL_SEARCH_NAME, ToolIndex } from '../../src/context/tool-search.js';
import type { RunnerEvent } from '../../src/core/events.js';
import { Runner } from '../../src/core/runner.js';
import type {
  ChatRequest,
  Message,
  Provider,
  ToolCallBlock,
  ToolHost,
  ToolResultBlock,
  ToolSpec,
} from '../../src/core/types.js';
import { ScriptedProvider, textReply, toolReply } from '../support/scripted-provider.js';

/** A host offering the given definitions; each call answers with the tool's name. */
class CatalogHost implements ToolHost {
  readonly calls: string[] = [];
  readonly #tools: readonly ToolSpec[];
  constructor(tools: readonly ToolSpec[]) {
    this.#tools = tools;
  }
  async tools(): Promise<readonly ToolSpec[]> {
    return this.#tools;
  }
  async call(call: ToolCallBlock): Promise<ToolResultBlock> {
    this.calls.push(call.name);
    return {
      type: 'tool-result',
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: 'text', text: `ran ${call.name}` }],
      isError: false,
    };
  }
}

const spec = (name: string, description: string): ToolSpec => ({
  name,
  description,
  inputSchema: { type: 'object', properties: { value: { type: 'string' } } },
});

/** `count` tools over several servers, plus a few whose words a search can find. */
function manyTools(count: number): ToolSpec[] {
  const tools = [
    spec('weather__get_forecast', 'Get the weather forecast for a city for the next days.'),
    spec('fs__read_file', 'Read the complete contents of a file from the file system.'),
    spec('github__create_issue', 'Create a new issue in a GitHub repository.'),
  ];
  for (let index = tools.length; index < count; index++) {
    tools.push(
      spec(`server${index % 39}__tool_${index}`, `Does task number ${index} of server ${index % 39}.`),
    );
  }
  return tools;
}

/** The scripted provider under another vendor's name (the vendor's cap goes by the name). */
function asVendor(name: string, scripted: ScriptedProvider): Provider {
  return { name, model: 'test', chat: (request: ChatRequest) => scripted.chat(request) };
}

const names = (request: ChatRequest | undefined): string[] => (request?.tools ?? []).map((tool) => tool.name);
const modes = (events: readonly RunnerEvent[]): ToolMode[] =>
  events.flatMap((event) => (event.type === 'tool-mode' ? [event.mode] : []));
const resultText = (message: Message | undefined): string =>
  message?.role === 'tool' && message.content[0]?.content[0]?.type === 'text'
    ? message.content[0].content[0].text
    : '';

describe('the tools of a step', () => {
  it('sends every definition when they are few and small, and says so', async () => {
    const scripted = new ScriptedProvider([textReply('ok')]);
    const host = new CatalogHost(manyTools(5));
    const runner = new Runner({
      provider: asVendor('openai', scripted),
      tools: host,
      context: { contextWindow: 128_000 },
    });
    const events: RunnerEvent[] = [];
    await runner.run('hi', { onEvent: (event) => events.push(event) });
    expect(names(scripted.requests[0])).toEqual((await host.tools()).map((tool) => tool.name));
    expect(modes(events)).toEqual([{ kind: 'all', tools: 5 }]);
  });

  it("past OpenAI's 128 tools: the search tool, then what it found, then the call runs", async () => {
    const scripted = new ScriptedProvider([
      toolReply({ id: 'c1', name: TOOL_SEARCH_NAME, input: { query: 'weather forecast', limit: 2 } }),
      toolReply({ id: 'c2', name: 'weather__get_forecast', input: { value: 'Oslo' } }),
      textReply('Sunny.'),
    ]);
    const host = new CatalogHost(manyTools(200));
    const runner = new Runner({
      provider: asVendor('openai', scripted),
      tools: host,
      context: { contextWindow: 1_000_000 },
    });
    const events: RunnerEvent[] = [];
    const result = await runner.run('weather in Oslo?', { onEvent: (event) => events.push(event) });

    expect(result.text).toBe('Sunny.');
    expect(names(scripted.requests[0])).toEqual([TOOL_SEARCH_NAME]);
    expect(scripted.requests[0]?.tools[0]?.description).toContain('200 tools are available');
    expect(resultText(result.messages[2])).toMatch(
      /^Loaded 1 tool;[^]*- weather__get_forecast: Get the weather forecast/,
    );
    expect(names(scripted.requests[1])).toEqual([TOOL_SEARCH_NAME, 'weather__get_forecast']);
    expect(names(scripted.requests[2])).toEqual([TOOL_SEARCH_NAME, 'weather__get_forecast']);
    expect(host.calls).toEqual(['weather__get_forecast']); // the search itself never reaches the host
    expect(modes(events)).toEqual([
      {
        kind: 'search',
        reason: 'vendor-limit',
        total: 200,
        loaded: 0,
        toolTokens: expect.any(Number) as number,
        budgetTokens: 250_000,
        window: { tokens: 1_000_000, source: 'override' },
        share: 0.25,
        vendorLimit: 128,
      },
    ]);
    expect(runner.loadedTools).toEqual(['weather__get_forecast']);
  });

  it('past a quarter of a small window (Ollama at 4,096): the search tool, with no vendor cap', async () => {
    const scripted = new ScriptedProvider([textReply('ok')]);
    const runner = new Runner({
      provider: asVendor('ollama', scripted),
      tools: new CatalogHost(manyTools(40)),
      context: { contextWindow: 4_096 },
    });
    const events: RunnerEvent[] = [];
    await runner.run('hi', { onEvent: (event) => events.push(event) });
    expect(names(scripted.requests[0])).toEqual([TOOL_SEARCH_NAME]);
    const [mode] = modes(events);
    expect(mode?.kind === 'search' && mode.reason).toBe('window-share');
    expect(mode?.kind === 'search' && mode.budgetTokens).toBe(1_024);
    expect(mode?.kind === 'search' && mode.toolTokens).toBeGreaterThan(1_024);
  });

  it('runs and loads a tool called without a search; an unknown name is still an error', async () => {
    const scripted = new ScriptedProvider([
      toolReply(
        { id: 'c1', name: 'fs__read_file', input: { value: 'a.txt' } },
        { id: 'c2', name: 'fs__no_such_tool', input: {} },
      ),
      textReply('done'),
    ]);
    const host = new CatalogHost(manyTools(200));
    const runner = new Runner({
      provider: asVendor('openai', scripted),
      tools: host,
      context: { contextWindow: 1_000_000 },
    });
    const result = await runner.run('read a.txt');
    const results = result.messages[2]?.role === 'tool' ? result.messages[2].content : [];
    expect(results.map((block) => block.isError)).toEqual([false, true]);
    expect(results[1]?.content[0]).toMatchObject({
      text: expect.stringMatching(/^Unknown tool "fs__no_such_tool"/) as string,
    });
    expect(host.calls).toEqual(['fs__read_file']);
    expect(names(scripted.requests[1])).toEqual([TOOL_SEARCH_NAME, 'fs__read_file']);
  });

  it('answers a search without a query with an error result the model can read', async () => {
    const scripted = new ScriptedProvider([
      toolReply({ id: 'c1', name: TOOL_SEARCH_NAME, input: { limit: 3 } }),
      textReply('ok'),
    ]);
    const runner = new Runner({
      provider: asVendor('openai', scripted),
      tools: new CatalogHost(manyTools(130)),
    });
    const result = await runner.run('x');
    const block = result.messages[2]?.role === 'tool' ? result.messages[2].content[0] : undefined;
    expect(block?.isError).toBe(true);
    expect(resultText(result.messages[2])).toBe(
      'tool_search needs "query": keywords or tool names, as a string.',
    );
  });

  it('keeps loaded tools through a compaction, and loads again what a resumed conversation called', async () => {
    const scripted = new ScriptedProvider([
      toolReply({ id: 'c1', name: TOOL_SEARCH_NAME, input: { query: 'github__create_issue' } }),
      textReply('Loaded.'),
      textReply('Anything else?'),
      (request) => {
        expect(JSON.stringify(request.messages)).toContain(SUMMARY_TEMPLATE.slice(0, 40));
        return textReply('## Goal\nfile an issue');
      },
      textReply('Still here.'),
    ]);
    const host = new CatalogHost(manyTools(200));
    const runner = new Runner({
      provider: asVendor('openai', scripted),
      tools: host,
      context: { contextWindow: 1_000_000, keepRecentTokens: 1 },
    });
    await runner.run('find the issue tool');
    await runner.run('and now?');
    const compaction = await runner.compact();
    expect(compaction?.replacedMessages).toBeGreaterThan(0);
    expect(JSON.stringify(runner.history)).not.toContain('github__create_issue');
    await runner.run('go on');
    expect(names(scripted.requests.at(-1))).toEqual([TOOL_SEARCH_NAME, 'github__create_issue']);
    expect(runner.loadedTools).toEqual(['github__create_issue']);
    const resumed = new Runner({
      provider: asVendor('openai', new ScriptedProvider([textReply('ok')])),
      tools: host,
      history: [
        { role: 'user', content: [{ type: 'text', text: 'read it' }] },
        { role: 'assistant', content: [{ type: 'tool-call', id: 'c9', name: 'fs__read_file', input: {} }] },
      ],
    });
    expect(resumed.loadedTools).toEqual(['fs__read_file']);
    runner.reset();
    expect(runner.loadedTools).toEqual([]);
  });

  it("'never' sends every definition (the vendor may refuse); 'always' searches even for two tools", () => {
    const tools = manyTools(200);
    const host = new CatalogHost(tools);
    const never = new ToolCatalog({ setting: 'never' }).select(host, tools, {
      provider: 'openai',
      window: { tokens: 1_000, source: 'override' },
    });
    expect(never.mode).toEqual({ kind: 'all', tools: 200 });
    expect(never.offered).toBe(tools);
    const always = new ToolCatalog({ setting: 'always' }).select(host, tools.slice(0, 2), {
      provider: 'anthropic',
      window: { tokens: 200_000, source: 'table' },
    });
    expect(always.offered.map((tool) => tool.name)).toEqual([TOOL_SEARCH_NAME]);
    expect(always.mode.kind === 'search' && always.mode.reason).toBe('always');
    expect(always.callable.has('weather__get_forecast')).toBe(true);
  });

  it("keeps the loaded tools within the vendor's cap, dropping the oldest first", async () => {
    const tools = manyTools(600);
    const catalog = new ToolCatalog();
    const first = catalog.select(new CatalogHost(tools), tools, {
      provider: 'openai',
      window: { tokens: 10_000_000, source: 'override' },
    });
    const loadAll = tools
      .slice(0, 300)
      .map((tool) => tool.name)
      .join(' ');
    for (let offset = 0; offset < 300; offset += 20) {
      const query = loadAll
        .split(' ')
        .slice(offset, offset + 20)
        .join(' ');
      await first.host.call({
        type: 'tool-call',
        id: `s${offset}`,
        name: TOOL_SEARCH_NAME,
        input: { query, limit: 20 },
      });
    }
    const next = catalog.select(new CatalogHost(tools), tools, {
      provider: 'openai',
      window: { tokens: 10_000_000, source: 'override' },
    });
    expect(next.offered).toHaveLength(128);
    expect(next.offered[1]?.name).toBe(tools[300 - 127]?.name);
    expect(next.offered.at(-1)?.name).toBe(tools[299]?.name);
  });

  it('rejects a bad toolSearch or toolSearchAt naming the option', () => {
    const provider = new ScriptedProvider([]);
    expect(() => new Runner({ provider, context: { toolSearchAt: 0 } })).toThrow(
      'context.toolSearchAt must be a share of the window in (0, 1], got 0',
    );
    expect(() => new Runner({ provider, context: { toolSearch: 'sometimes' as 'auto' } })).toThrow(
      `context.toolSearch must be 'auto', 'always' or 'never', got "sometimes"`,
    );
  });
});

describe('the search', () => {
  const index = new ToolIndex([
    spec('fs__read_file', 'Read the complete contents of a file.'),
    spec('fs__write_file', 'Create or overwrite a file.'),
    spec('notes__readNote', 'Returns one note, as markdown.'),
    spec('github__search_code', 'Search for code across repositories; reads file contents.'),
    ...manyTools(468).slice(3),
  ]);

  it('ranks words of the name above words of the description', () => {
    expect(index.search('read file', 3).map((tool) => tool.name)).toEqual([
      'fs__read_file',
      'fs__write_file',
      'notes__readNote', // "read" in its name outranks "reads file" in a description
    ]);
  });

  it('finds camelCase and plural words, and exact names first', () => {
    expect(index.search('notes', 1).map((tool) => tool.name)).toEqual(['notes__readNote']);
    expect(index.search('fs__write_file reading', 2).map((tool) => tool.name)).toEqual([
      'fs__write_file',
      'fs__read_file',
    ]);
  });

  it('returns nothing for words no tool has', () => {
    expect(index.search('kubernetes', 5)).toEqual([]);
  });
});
