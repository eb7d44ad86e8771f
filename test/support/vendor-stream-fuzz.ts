/**
 * Generated vendor streams — valid, malformed, cut, reordered — for each provider's parser, and the
 * property they must keep: the parser either yields events or throws one of our errors; the Runner
 * answers every call; and the next request, mapped for the vendor, passes the vendor fake's
 * validation (unique, well-formed ids; string arguments; every call answered). Shared by the
 * property tests (few runs), `npm run fuzz` (many) and its `--cli` mode, whose vendor fakes serve
 * the generated streams as they are (cli-fuzz-run.ts).
 */
import fc from 'fast-check';
import { fromAnthropicStream } from '../../providers/anthropic-stream.js';
import { toAnthropicRequest } from '../../providers/anthropic-request.js';
import { fromGeminiStream } from '../../providers/google-stream.js';
import { toGeminiRequest } from '../../providers/google-request.js';
import { toOllamaRequest } from '../../providers/ollama-mapping.js';
import { toOpenAIRequest } from '../../providers/openai-request.js';
import { OpenAIStreamAccumulator } from '../../providers/openai-stream.js';
import { describeToolCall, describeToolResult } from '../../src/cli/activity.js';
import { McpHostError } from '../../src/core/errors.js';
import { Runner } from '../../src/core/runner.js';
import type { ChatRequest, Message, ProviderEvent } from '../../src/core/types.js';
import { validateMessagesBody } from '../fakes/anthropic-validation.js';
import { validateGenerateContentBody } from '../fakes/gemini-validation.js';
import { validateChatBody } from '../fakes/ollama-validation.js';
import { validateChatRequest } from '../fakes/openai-validation.js';
import type { StreamKind } from './cli-fuzz-summary.js';
import { FakeToolHost } from './fake-tool-host.js';
import { ollamaOverWire } from './ollama-wire-fuzz.js';
import { ScriptedProvider, textReply } from './scripted-provider.js';

export type Vendor = 'anthropic' | 'openai' | 'google' | 'ollama';
export const VENDORS: readonly Vendor[] = ['anthropic', 'openai', 'google', 'ollama'];

/** One generated tool call, before it is written in a vendor's shape. */
interface GeneratedCall {
  readonly id: string | undefined;
  readonly name: string;
  readonly argumentsText: string;
  readonly argumentsValue: unknown;
}

const nestedArguments = fc.integer({ min: 1, max: 4000 }).map((depth) => {
  let value: unknown = {};
  for (let level = 0; level < depth; level++) value = { inner: value };
  return value;
});

const argumentsValue = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: nestedArguments },
);

const generatedCall: fc.Arbitrary<GeneratedCall> = fc
  .record({
    id: fc.oneof(
      fc.constant(undefined),
      fc.constant(''),
      fc.constant('dup_1'),
      fc.constantFrom('toolu_01', 'call_abc', 'bad id!', 'x'.repeat(80), 'ü-id'),
      fc.string({ maxLength: 12 }),
    ),
    name: fc.oneof(
      { weight: 4, arbitrary: fc.constant('echo') },
      { weight: 1, arbitrary: fc.constantFrom('', 'ec\u0007ho', 'e\u202echo', '9lives', 'a b') },
      { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
    ),
    argumentsValue,
    cut: fc.boolean(),
    garbage: fc.boolean(),
  })
  .map(({ id, name, argumentsValue: value, cut, garbage }) => {
    let text = JSON.stringify(value);
    if (garbage) text = `${text.slice(0, 5)}}{not json`;
    else if (cut) text = text.slice(0, Math.max(0, text.length - 2));
    return { id, name, argumentsText: text, argumentsValue: garbage || cut ? undefined : value };
  });

/** A generated answer: text pieces, calls, and how the stream is spoiled. */
export interface GeneratedAnswer {
  readonly text: readonly string[];
  readonly calls: readonly GeneratedCall[];
  /** Stop the stream after this many events (undefined: whole). */
  readonly cutAt: number | undefined;
  /** Swap two events (a reordered stream). */
  readonly swap: readonly [number, number] | undefined;
  /**
   * One more event after the last (a text chunk after Ollama's `done: true` line, after Anthropic's
   * `message_stop`…), as a proxy or a buggy server can send: it once crashed mcphost (issue 40).
   */
  readonly afterEnd: boolean;
}

export const generatedAnswer: fc.Arbitrary<GeneratedAnswer> = fc.record({
  text: fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 }),
  calls: fc.array(generatedCall, { maxLength: 12 }),
  cutAt: fc.option(fc.nat({ max: 30 }), { nil: undefined }),
  swap: fc.option(fc.tuple(fc.nat({ max: 30 }), fc.nat({ max: 30 })), { nil: undefined }),
  afterEnd: fc.oneof(
    { weight: 3, arbitrary: fc.constant(false) },
    { weight: 1, arbitrary: fc.constant(true) },
  ),
});

function spoil<T>(events: T[], answer: GeneratedAnswer, afterEnd: T): T[] {
  const result = answer.afterEnd ? [...events, afterEnd] : [...events];
  if (answer.swap !== undefined) {
    const [a, b] = answer.swap;
    if (a < result.length && b < result.length) [result[a], result[b]] = [result[b] as T, result[a] as T];
  }
  return answer.cutAt === undefined ? result : result.slice(0, answer.cutAt);
}

async function* iterate(items: readonly unknown[]): AsyncIterable<unknown> {
  for (const item of items) yield item;
}

export function anthropicEvents(answer: GeneratedAnswer): unknown[] {
  const events: unknown[] = [
    { type: 'message_start', message: { usage: { input_tokens: 5, output_tokens: 1 } } },
  ];
  let index = 0;
  for (const text of answer.text) {
    events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
    events.push({ type: 'content_block_stop', index: index++ });
  }
  for (const call of answer.calls) {
    events.push({
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
    });
    events.push({
      type: 'content_block_delta',
      index,
      delta: { type: 'input_json_delta', partial_json: call.argumentsText },
    });
    events.push({ type: 'content_block_stop', index: index++ });
  }
  events.push({
    type: 'message_delta',
    delta: { stop_reason: answer.calls.length > 0 ? 'tool_use' : 'end_turn' },
    usage: { output_tokens: 3 },
  });
  events.push({ type: 'message_stop' });
  return spoil(events, answer, {
    type: 'content_block_delta',
    index: 0,
    delta: { type: 'text_delta', text: 'after the end' },
  });
}

export function openAIChunks(answer: GeneratedAnswer): unknown[] {
  const chunks: unknown[] = answer.text.map((text) => ({
    choices: [{ index: 0, delta: { content: text } }],
  }));
  answer.calls.forEach((call, index) => {
    const half = Math.floor(call.argumentsText.length / 2);
    chunks.push({
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              {
                index,
                id: call.id,
                type: 'function',
                function: { name: call.name, arguments: call.argumentsText.slice(0, half) },
              },
            ],
          },
        },
      ],
    });
    chunks.push({
      choices: [
        {
          index: 0,
          delta: { tool_calls: [{ index, function: { arguments: call.argumentsText.slice(half) } }] },
        },
      ],
    });
  });
  chunks.push({
    choices: [{ index: 0, delta: {}, finish_reason: answer.calls.length > 0 ? 'tool_calls' : 'stop' }],
  });
  return spoil(chunks, answer, { choices: [{ index: 0, delta: { content: 'after the end' } }] });
}

export function geminiChunks(answer: GeneratedAnswer): unknown[] {
  const parts: unknown[] = answer.text.map((text) => ({ text }));
  for (const call of answer.calls) {
    parts.push({
      functionCall: {
        ...(call.id === undefined ? {} : { id: call.id }),
        name: call.name,
        args: call.argumentsValue ?? {},
      },
    });
  }
  const chunks: unknown[] = parts.map((part) => ({
    candidates: [{ content: { role: 'model', parts: [part] } }],
  }));
  chunks.push({
    candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP' }],
    usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2 },
  });
  return spoil(chunks, answer, {
    candidates: [{ content: { role: 'model', parts: [{ text: 'after the end' }] } }],
  });
}

export function ollamaChunks(answer: GeneratedAnswer): unknown[] {
  const chunks: unknown[] = answer.text.map((text) => ({
    model: 'm',
    message: { role: 'assistant', content: text },
    done: false,
  }));
  for (const call of answer.calls) {
    chunks.push({
      model: 'm',
      message: {
        role: 'assistant',
        content: '',
        tool_calls: [{ function: { name: call.name, arguments: call.argumentsValue ?? call.argumentsText } }],
      },
      done: false,
    });
  }
  chunks.push({
    model: 'm',
    message: { role: 'assistant', content: '' },
    done: true,
    done_reason: 'stop',
    prompt_eval_count: 3,
    eval_count: 2,
  });
  return spoil(chunks, answer, {
    model: 'm',
    message: { role: 'assistant', content: 'after the end' },
    done: false,
  });
}

/** The stream a vendor fake serves for the answer: events, chunks, spoiled as the answer says. */
export function vendorStream(vendor: Vendor, answer: GeneratedAnswer): unknown[] {
  switch (vendor) {
    case 'anthropic':
      return anthropicEvents(answer);
    case 'openai':
      return openAIChunks(answer);
    case 'google':
      return geminiChunks(answer);
    case 'ollama':
      return ollamaChunks(answer);
    default: {
      const unexpected: never = vendor;
      throw new TypeError(`unknown vendor ${String(unexpected)}`);
    }
  }
}

/**
 * Whether the served stream is the answer's whole stream, cut short, or reordered. A cut or swap
 * that changes nothing (past the end, two equal events) leaves it whole.
 */
export function streamKind(vendor: Vendor, answer: GeneratedAnswer): StreamKind {
  const whole = vendorStream(vendor, { ...answer, cutAt: undefined, swap: undefined, afterEnd: false });
  const served = vendorStream(vendor, answer);
  if (served.length < whole.length) return 'cut';
  return JSON.stringify(served) === JSON.stringify(whole) ? 'whole' : 'reordered';
}

/** The provider events a vendor's parser makes of the answer, or the error it threw. */
export async function parse(vendor: Vendor, answer: GeneratedAnswer): Promise<ProviderEvent[] | Error> {
  const events: ProviderEvent[] = [];
  try {
    switch (vendor) {
      case 'anthropic':
        for await (const event of fromAnthropicStream(iterate(anthropicEvents(answer)))) events.push(event);
        break;
      case 'openai': {
        const accumulator = new OpenAIStreamAccumulator();
        for (const chunk of openAIChunks(answer)) events.push(...accumulator.push(chunk));
        events.push(...accumulator.finish());
        break;
      }
      case 'google':
        for await (const event of fromGeminiStream(iterate(geminiChunks(answer)))) events.push(event);
        break;
      case 'ollama':
        // Over a real socket through the real provider: the wire is where a chunk after `done`
        // once crashed the process (ollama-wire-fuzz.ts).
        return await ollamaOverWire(ollamaChunks(answer));
      default: {
        const unexpected: never = vendor;
        throw new TypeError(String(unexpected));
      }
    }
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
  return events;
}

const ECHO_TOOL = { name: 'echo', description: 'echo', inputSchema: { type: 'object', properties: {} } };

/** Why the next request would be refused by the vendor, or undefined. */
export function vendorRejection(vendor: Vendor, messages: readonly Message[]): string | undefined {
  const request: ChatRequest = { messages, tools: [ECHO_TOOL], settings: {} };
  switch (vendor) {
    case 'anthropic':
      return validateMessagesBody(toAnthropicRequest(request, 'claude-test'), '2023-06-01')?.message;
    case 'openai':
      return validateChatRequest(toOpenAIRequest(request, 'gpt-test').params)?.message;
    case 'google': {
      const parameters = toGeminiRequest(request, 'gemini-2.5-flash');
      const body = { contents: parameters.contents, tools: parameters.config?.tools };
      return validateGenerateContentBody(JSON.parse(JSON.stringify(body)), { gemini3: false })?.message;
    }
    case 'ollama': {
      const validation = validateChatBody(
        JSON.parse(JSON.stringify(toOllamaRequest(request, 'm'))),
        new Set(['m:latest']),
      );
      return validation.ok ? undefined : validation.error;
    }
    default: {
      const unexpected: never = vendor;
      return String(unexpected);
    }
  }
}

/** The outcome of one generated answer: a problem to report, or undefined when all held. */
export async function checkOne(vendor: Vendor, answer: GeneratedAnswer): Promise<string | undefined> {
  const events = await parse(vendor, answer);
  if (events instanceof Error) {
    return events instanceof McpHostError
      ? undefined
      : `${vendor} parser threw ${events.name}: ${events.message}`;
  }
  const host = new FakeToolHost({ echo: (input) => JSON.stringify(input).slice(0, 50) });
  const runner = new Runner({ provider: new ScriptedProvider([events, textReply('ok')]), tools: host });
  const shown: string[] = [];
  try {
    // What -p prints for each event (the fuzzer's deep arguments crashed here once).
    await runner.run('go', {
      onEvent: (event) => {
        if (event.type === 'tool-call') shown.push(describeToolCall(event.call));
        if (event.type === 'tool-result') describeToolResult(event.record);
      },
    });
  } catch (error) {
    if (!(error instanceof McpHostError)) return `the Runner threw ${String(error)}`;
    return undefined;
  }
  // eslint-disable-next-line no-control-regex -- looking for control characters is the point
  const unsafe = shown.find((line) => /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(line));
  if (unsafe !== undefined) return `a tool-call line is not one clean line: ${JSON.stringify(unsafe)}`;
  const rejection = vendorRejection(vendor, runner.history);
  return rejection === undefined ? undefined : `${vendor} would reject the next request: ${rejection}`;
}
