/**
 * The fuzzer's findings, each as a test: ids and names repaired, deep arguments bounded where they
 * are accepted and where they are shown, no listener warning with many calls in a step, notes and
 * error lines on one clean line.
 */
import { describe, expect, it } from 'vitest';
import { argumentsText } from '../../src/cli/activity.js';
import { describeError } from '../../src/cli/exit-codes.js';
import { retryNotice } from '../../src/cli/output/text.js';
import { ProviderError } from '../../src/core/errors.js';
import {
  INVALID_TOOL_NAME,
  MAX_ARGUMENT_DEPTH,
  checkToolCalls,
  problemWithArguments,
} from '../../src/core/model-output.js';
import { Runner } from '../../src/core/runner.js';
import type { ToolCallBlock } from '../../src/core/types.js';
import { FakeToolHost } from '../support/fake-tool-host.js';
import { ScriptedProvider, textReply, toolReply } from '../support/scripted-provider.js';

const call = (id: string, name = 'echo', input: Record<string, unknown> = {}): ToolCallBlock => ({
  type: 'tool-call',
  id,
  name,
  input,
});

function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let level = 0; level < levels; level++) value = { inner: value };
  return value;
}

describe('checkToolCalls', () => {
  let counter = 0;
  const makeId = () => `host_${++counter}`;

  it('keeps good ids and replaces empty, malformed and repeated ones (also against the history)', () => {
    const used = new Set(['earlier']);
    const checked = checkToolCalls(
      [call('a'), call('a'), call(''), call('has space'), call('earlier'), call('x'.repeat(65))],
      used,
      makeId,
    );
    const ids = checked.toolCalls.map((block) => block.id);
    expect(ids[0]).toBe('a');
    expect(new Set(ids).size).toBe(6);
    expect(ids.slice(1).every((id) => id.startsWith('host_'))).toBe(true);
    expect([...checked.replacedIds.values()]).toEqual(['a', '', 'has space', 'earlier', 'x'.repeat(65)]);
    expect(checked.refused.size).toBe(0);
    for (const id of ids) expect(used.has(id)).toBe(true);
  });

  it('refuses bad names, and keeps a vendor-valid name in the history', () => {
    const checked = checkToolCalls(
      [call('1', ''), call('2', 'a\u0000b'), call('3', 'x y'), call('4', '9lives'), call('5', 'ok_name')],
      new Set(),
      makeId,
    );
    expect(checked.toolCalls.map((block) => block.name)).toEqual([
      INVALID_TOOL_NAME,
      INVALID_TOOL_NAME,
      INVALID_TOOL_NAME,
      INVALID_TOOL_NAME,
      'ok_name',
    ]);
    expect(checked.refused.get('1')).toContain('(empty)');
    expect(checked.refused.get('2')).toContain('\\u0000');
    expect(checked.refused.has('5')).toBe(false);
  });

  it('refuses arguments too deep or too big, and drops them from the history', () => {
    const deep = call('d', 'echo', nested(MAX_ARGUMENT_DEPTH + 1));
    const fine = call('f', 'echo', nested(MAX_ARGUMENT_DEPTH - 1));
    const big = call('b', 'echo', { text: 'x'.repeat(1_100_000) });
    const checked = checkToolCalls([deep, fine, big], new Set(), makeId);
    expect(checked.refused.get('d')).toMatch(/nested more than 64 levels/);
    expect(checked.refused.has('f')).toBe(false);
    expect(checked.refused.get('b')).toMatch(/larger than/);
    expect(checked.toolCalls[0]?.input).toEqual({});
  });

  it('measures depth without recursion (100,000 levels)', () => {
    expect(problemWithArguments(nested(100_000))).toMatch(/levels deep/);
    expect(problemWithArguments([1])).toBe('were not a JSON object');
  });
});

describe('the Runner with hostile output', () => {
  it('runs 12 calls of one step with no MaxListenersExceededWarning', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const calls = Array.from({ length: 12 }, (_, index) => ({ id: `c${index}`, name: 'wait', input: {} }));
      const provider = new ScriptedProvider([toolReply(...calls), textReply('done')]);
      const host = new FakeToolHost({
        wait: (_input, signal) =>
          new Promise<string>((resolve) => {
            // Like an SDK call: one abort listener per call, removed when it ends.
            const onAbort = () => resolve('aborted');
            signal?.addEventListener('abort', onAbort, { once: true });
            setTimeout(() => {
              signal?.removeEventListener('abort', onAbort);
              resolve('ok');
            }, 20);
          }),
      });
      const runner = new Runner({ provider, tools: host });
      const result = await runner.run('go', { signal: new AbortController().signal });
      expect(result.toolCalls).toHaveLength(12);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('what is shown stays one bounded line', () => {
  it('arguments thousands of levels deep are shown as a note, not a crash', () => {
    expect(argumentsText(call('x', 'echo', nested(5000)))).toBe(
      '(arguments that were nested more than 64 levels deep)',
    );
  });

  it('a retry note quoting an HTML body is one line', () => {
    const error = new ProviderError('openai', 'HTTP 502: <html>\r\n<body>Bad\ngateway</body>\n</html>', {
      retryable: true,
    });
    const line = retryNotice({ type: 'retry', attempt: 1, delayMs: 1000, error });
    expect(line).not.toMatch(/[\r\n]/);
    expect(line).toContain('<body>Bad gateway</body>');
  });

  it('error lines lose control and bidi characters', () => {
    const error = new ProviderError('anthropic', 'bad \u001b[31mred\u001b[0m \u202eevil\u202c name\u0007', {
      retryable: false,
    });
    const line = describeError(error, false);
    expect(line).toBe('mcphost: bad red evil name');
  });
});
