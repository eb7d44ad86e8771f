/** The pieces the fake OpenAI streams (openai-server.ts): text fragments and tool-call deltas. */
import type { FakeToolCall } from './openai-server.js';

/** How many characters of text or arguments go in one chunk: small, so that assembly is exercised. */
const FRAGMENT_LENGTH = 7;

/** Splits text into small pieces (at least one piece for non-empty text). */
export function fragments(text: string): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += FRAGMENT_LENGTH)
    pieces.push(text.slice(start, start + FRAGMENT_LENGTH));
  return pieces;
}

/**
 * Tool-call deltas: first every call's opening fragment (index, id, name, empty arguments), then
 * argument fragments round-robin across calls, so parallel calls interleave.
 */
export function toolCallDeltas(calls: readonly FakeToolCall[]): Array<Record<string, unknown>> {
  const deltas: Array<Record<string, unknown>> = calls.map((call, index) => ({
    index,
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: '' },
  }));
  const pieces = calls.map((call) => fragments(call.arguments));
  const longest = Math.max(0, ...pieces.map((list) => list.length));
  for (let round = 0; round < longest; round++) {
    for (const [index, list] of pieces.entries()) {
      const piece = list[round];
      if (piece !== undefined) deltas.push({ index, function: { arguments: piece } });
    }
  }
  return deltas;
}
