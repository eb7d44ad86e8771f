/** What the chat and `-p` see of a reply that starts like a call written as text, while it streams. */
import { describe, expect, it } from 'vitest';
import type { RunnerEvent } from '../../src/core/events.js';
import { TextCallHold } from '../../src/core/tool-calling/text-call-hold.js';

function streamed(chunks: readonly string[]): string[] {
  const seen: string[] = [];
  const hold = new TextCallHold((event: RunnerEvent) => {
    if (event.type === 'text-delta') seen.push(event.text);
  });
  for (const text of chunks) hold.emit({ type: 'text-delta', text });
  return seen;
}

describe('a reply held while it may be a call', () => {
  it('is let go once a JSON value has more text after it, before the reply ends', () => {
    expect(streamed(['{"pid": 1, "note": "a } in a string"}', '\nline 0\n', 'line 1\n'])).toEqual([
      '{"pid": 1, "note": "a } in a string"}\nline 0\n',
      'line 1\n',
    ]);
  });

  it('is let go at once for a fence of another language, and after a json fence with text behind it', () => {
    expect(streamed(['```python\n', 'print(1)\n'])).toEqual(['```python\n', 'print(1)\n']);
    expect(streamed(['```json\n{"a": 1}\n```', '\nso that is it'])).toEqual([
      '```json\n{"a": 1}\n```\nso that is it',
    ]);
  });

  it('is held while it is nothing but a JSON value, a json fence or a tagged call', () => {
    expect(streamed(['{"name": "memory__read_graph",', ' "arguments": {}}', '  \n'])).toEqual([]);
    expect(streamed(['```json\n{"name": "x", "arguments": {}}\n```'])).toEqual([]);
    expect(streamed(['<tool_call>{"name": "x"}</tool_call>', '\nmore'])).toEqual([]);
    expect(streamed(['[TOOL_CALLS]x[ARGS]{}'])).toEqual([]);
  });

  it('streams prose at once', () => {
    expect(streamed(['Hello', ' there'])).toEqual(['Hello', ' there']);
  });
});
