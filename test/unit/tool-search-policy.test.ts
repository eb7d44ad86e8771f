/**
 * When `toolSearch: auto` turns the search on (issue 26): past a vendor's cap on tools, or past
 * `toolSearchAt` of a window that is known (override, the provider's figure, the vendors' table),
 * never on the fallback guess; and the line that says so. Scripted provider, fake tool host.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_TOOL_SEARCH_AT, type ToolMode } from '../../src/context/tool-catalog.js';
import { estimateToolsTokens } from '../../src/context/tokens.js';
import { TOOL_SEARCH_NAME } from '../../src/context/tool-search.js';
import { FALLBACK_CONTEXT_WINDOW } from '../../src/context/windows.js';
import { toolModeNotice, toolSearchNotice } from '../../src/cli/output/text.js';
import type { RunnerEvent } from '../../src/core/events.js';
import { Runner } from '../../src/core/runner.js';
import type {
  ChatRequest,
  Provider,
  ToolCallBlock,
  ToolHost,
  ToolResultBlock,
  ToolSpec,
} from '../../src/core/types.js';
import { ScriptedProvider, textReply } from '../support/scripted-provider.js';

/** `count` tools with descriptions long enough to weigh something (about 60 tokens each). */
function tools(count: number): ToolSpec[] {
  return Array.from({ length: count }, (_, index) => ({
    name: `server${index % 3}__tool_${index}`,
    description: `Does task number ${index}: ${'reads, writes and lists things in a careful way; '.repeat(3)}`,
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  }));
}

/** A host offering exactly these definitions. */
function hostOf(offered: readonly ToolSpec[]): ToolHost {
  return {
    tools: () => Promise.resolve(offered),
    call: (call: ToolCallBlock): Promise<ToolResultBlock> =>
      Promise.resolve({
        type: 'tool-result',
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: 'text', text: 'ok' }],
        isError: false,
      }),
  };
}

/** A provider under a vendor's name and model, with the window it reports (if any). */
function vendor(name: string, model: string, scripted: ScriptedProvider, reportedWindow?: number): Provider {
  return {
    name,
    model,
    chat: (request: ChatRequest) => scripted.chat(request),
    ...(reportedWindow === undefined ? {} : { contextWindow: () => Promise.resolve(reportedWindow) }),
  };
}

async function firstStep(
  provider: Provider,
  scripted: ScriptedProvider,
  offered: readonly ToolSpec[],
  context: ConstructorParameters<typeof Runner>[0]['context'] = {},
): Promise<{ names: string[]; mode: ToolMode | undefined }> {
  const runner = new Runner({ provider, tools: hostOf(offered), context });
  const events: RunnerEvent[] = [];
  await runner.run('hi', { onEvent: (event) => events.push(event) });
  const mode = events.find((event) => event.type === 'tool-mode');
  return {
    names: (scripted.requests[0]?.tools ?? []).map((tool) => tool.name),
    mode: mode?.type === 'tool-mode' ? mode.mode : undefined,
  };
}

describe('toolSearch: auto', () => {
  // 40 tools of about 60 tokens: past a quarter of the 8,192 fallback, within a quarter of 32k.
  const forty = tools(40);
  const weight = estimateToolsTokens(forty);

  it('has tools that weigh what the cases below need', () => {
    expect(weight).toBeGreaterThan(FALLBACK_CONTEXT_WINDOW * DEFAULT_TOOL_SEARCH_AT);
    expect(weight).toBeLessThan(32_768 * DEFAULT_TOOL_SEARCH_AT);
  });

  it('sends every definition when the window is only the fallback guess (an unknown model)', async () => {
    const scripted = new ScriptedProvider([textReply('ok')]);
    const step = await firstStep(vendor('openai', 'my-local-model', scripted), scripted, forty);
    expect(step.names).toHaveLength(40);
    expect(step.names).not.toContain(TOOL_SEARCH_NAME);
    expect(step.mode).toEqual({ kind: 'all', tools: 40 });
  });

  it('turns the search on past a quarter of a window the provider states', async () => {
    const scripted = new ScriptedProvider([textReply('ok')]);
    const step = await firstStep(vendor('ollama', 'mistral-small', scripted, 4_096), scripted, forty);
    expect(step.names).toEqual([TOOL_SEARCH_NAME]);
    expect(step.mode).toMatchObject({
      kind: 'search',
      reason: 'window-share',
      window: { tokens: 4_096, source: 'provider' },
      budgetTokens: 1_024,
    });
  });

  it('sends every definition within a quarter of a stated 32k window (filesystem + memory + everything size)', async () => {
    const scripted = new ScriptedProvider([textReply('ok')]);
    const step = await firstStep(vendor('ollama', 'mistral-small', scripted, 32_768), scripted, forty);
    expect(step.names).toHaveLength(40);
  });

  it('judges the override and the vendors’ table as known windows', async () => {
    const overridden = new ScriptedProvider([textReply('ok')]);
    const withOverride = await firstStep(vendor('openai', 'my-local-model', overridden), overridden, forty, {
      contextWindow: 8_192,
    });
    expect(withOverride.mode).toMatchObject({ kind: 'search', window: { source: 'override' } });
    const tabled = new ScriptedProvider([textReply('ok')]);
    // gpt-4 has an 8,192 window in the table.
    const fromTable = await firstStep(vendor('openai', 'gpt-4', tabled), tabled, forty);
    expect(fromTable.mode).toMatchObject({ kind: 'search', window: { tokens: 8_192, source: 'table' } });
  });

  it("still turns the search on past the vendor's cap when the window is a guess", async () => {
    const scripted = new ScriptedProvider([textReply('ok')]);
    const step = await firstStep(vendor('openai', 'my-local-model', scripted), scripted, tools(129));
    expect(step.names).toEqual([TOOL_SEARCH_NAME]);
    expect(step.mode).toMatchObject({ kind: 'search', reason: 'vendor-limit', vendorLimit: 128 });
  });

  it('follows toolSearchAt, and never / always over everything', async () => {
    const low = new ScriptedProvider([textReply('ok')]);
    const lowShare = await firstStep(vendor('ollama', 'm', low, 32_768), low, forty, { toolSearchAt: 0.05 });
    expect(lowShare.mode).toMatchObject({ kind: 'search', reason: 'window-share', share: 0.05 });
    const never = new ScriptedProvider([textReply('ok')]);
    const neverStep = await firstStep(vendor('ollama', 'm', never, 1_000), never, forty, {
      toolSearch: 'never',
    });
    expect(neverStep.names).toHaveLength(40);
    const always = new ScriptedProvider([textReply('ok')]);
    const alwaysStep = await firstStep(vendor('openai', 'unknown', always), always, tools(2), {
      toolSearch: 'always',
    });
    expect(alwaysStep.names).toEqual([TOOL_SEARCH_NAME]);
  });

  it('tells the mode before any model call (runner.toolMode, for the banner and /tools)', async () => {
    const scripted = new ScriptedProvider([]);
    const runner = new Runner({ provider: vendor('ollama', 'm', scripted, 4_096), tools: hostOf(forty) });
    expect(await runner.toolMode()).toMatchObject({ kind: 'search', reason: 'window-share', total: 40 });
    expect(scripted.requests).toHaveLength(0);
    expect(await new Runner({ provider: scripted }).toolMode()).toBeUndefined();
  });
});

describe('the tool-search line', () => {
  const window = { tokens: 131_072, source: 'table' } as const;
  it('says why and how to turn it off, in one line', () => {
    const share: ToolMode = {
      kind: 'search',
      reason: 'window-share',
      total: 212,
      loaded: 0,
      toolTokens: 31_400,
      budgetTokens: 32_768,
      window,
      share: 0.25,
    };
    expect(toolSearchNotice(share)).toBe(
      'tool search on: 212 tool definitions (about 31k tokens) pass 25% of the 131k window; --tool-search never turns it off',
    );
    expect(toolSearchNotice({ ...share, reason: 'vendor-limit', vendorLimit: 128 })).toBe(
      "tool search on: 212 tools pass the vendor's limit of 128 a request; --tool-search never turns it off (the vendor then refuses the request)",
    );
    expect(toolSearchNotice({ ...share, reason: 'always' })).toBe(
      'tool search on: toolSearch is "always" (212 tools); --tool-search auto turns it on only when needed',
    );
    expect(toolModeNotice({ ...share, loaded: 3 })).toMatch(
      / \(the model gets tool_search and the 3 tools it loaded\)$/,
    );
    expect(toolModeNotice({ kind: 'all', tools: 40 })).toBe(
      'tools: all 40 definitions are sent at each step',
    );
  });
});
