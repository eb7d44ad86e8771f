/** A tool host whose tools are plain functions, for Runner tests. */
import type { ToolCallBlock, ToolHost, ToolResultBlock, ToolSpec } from '../../src/core/types.js';

export type FakeTool = (
  input: Readonly<Record<string, unknown>>,
  signal?: AbortSignal,
) => Promise<string> | string;

export class FakeToolHost implements ToolHost {
  readonly calls: ToolCallBlock[] = [];
  readonly #tools: Record<string, FakeTool>;

  constructor(tools: Record<string, FakeTool>) {
    this.#tools = tools;
  }

  async tools(): Promise<readonly ToolSpec[]> {
    return Object.keys(this.#tools).map((name) => ({
      name,
      description: `fake ${name}`,
      inputSchema: { type: 'object', properties: {} },
    }));
  }

  async call(call: ToolCallBlock, signal?: AbortSignal): Promise<ToolResultBlock> {
    this.calls.push(call);
    const tool = this.#tools[call.name];
    const base = { type: 'tool-result' as const, toolCallId: call.id, toolName: call.name };
    if (tool === undefined)
      return { ...base, content: [{ type: 'text', text: 'no such tool' }], isError: true };
    try {
      return { ...base, content: [{ type: 'text', text: await tool(call.input, signal) }], isError: false };
    } catch (error) {
      return { ...base, content: [{ type: 'text', text: String(error) }], isError: true };
    }
  }
}
