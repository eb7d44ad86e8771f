/**
 * The fake model's part in a job over server-memory, for the per-job isolation tests of batches and
 * workers: "remember NAME" stores NAME in memory and reads the graph; "recall" reads the graph;
 * then the answer is the last tool result (so a job's answer shows what its graph held).
 */
import {
  textReply,
  toolCallReply,
  type FakeChatRequest,
  type FakeOllamaReply,
} from '../fakes/ollama-server.js';
import { unwrapped } from './untrusted.js';

export function memoryScript(request: FakeChatRequest): FakeOllamaReply {
  const prompt = unwrapped(request.messages.find((message) => message.role === 'user')?.content ?? '');
  const results = request.messages.filter((message) => message.role === 'tool');
  const remember = /^remember (\w+)/.exec(prompt)?.[1];
  if (remember !== undefined && results.length === 0) {
    return toolCallReply([
      'memory__create_entities',
      { entities: [{ name: remember, entityType: 'word', observations: ['seen'] }] },
    ]);
  }
  if (results.length === (remember === undefined ? 0 : 1)) return toolCallReply(['memory__read_graph', {}]);
  return textReply(`graph: ${unwrapped(results.at(-1)?.content ?? '')}`);
}
