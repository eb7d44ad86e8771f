/**
 * GuardedToolHost under a real Runner: a refused call reaches the model as a tool result, and the
 * run goes on.
 */
import { describe, expect, it } from 'vitest';
import { Runner } from '../../src/core/runner.js';
import { GuardedToolHost } from '../../src/safety/guarded-tool-host.js';
import { fakeHost, locate, text } from '../support/guard-fixtures.js';
import { ScriptedProvider, textReply, toolReply } from '../support/scripted-provider.js';

describe('GuardedToolHost under a Runner', () => {
  it('answers a denied call to the model, which goes on', async () => {
    const host = fakeHost();
    const guard = new GuardedToolHost({
      host,
      locate,
      safety: { approval: [{ source: 'cfg', rules: [{ tool: 'files__delete', decision: 'deny' }] }] },
    });
    const provider = new ScriptedProvider([
      toolReply(
        { id: 't1', name: 'files__delete', input: { path: '/' } },
        { id: 't2', name: 'files__read', input: {} },
      ),
      textReply('ok'),
    ]);
    const runner = new Runner({ provider, tools: guard });
    const result = await runner.run('clean up');
    expect(result.text).toBe('ok');
    expect(host.calls.map((c) => c.name)).toEqual(['files__read']);
    const toolMessage = provider.requests[1]?.messages.at(-1);
    expect(toolMessage?.role).toBe('tool');
    if (toolMessage?.role !== 'tool') throw new Error('expected the tool results');
    expect(toolMessage.content.map((block) => [block.toolName, block.isError])).toEqual([
      ['files__delete', true],
      ['files__read', false],
    ]);
    expect(text(toolMessage.content[0]!)).toContain('does not allow files__delete');
  });
});
