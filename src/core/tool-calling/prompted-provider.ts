/**
 * A provider that calls tools by prompt: wraps any provider so a model without native tool calling
 * gets the step's tools in its system prompt and answers `{"calls": [...], "answer": "..."}` under
 * the vendor's structured output (prompted-format.ts). It streams the answer's text as it arrives
 * (never the JSON around it) and yields the calls as ordinary tool-call events once the reply is
 * complete, so the Runner runs them as it runs native ones.
 */
import { hostToolCallId } from '../model-output.js';
import type { ChatRequest, FinishReason, Provider, ProviderEvent, ToolCallBlock, Usage } from '../types.js';
import { AnswerStream } from './answer-stream.js';
import { PROMPTED_FORMAT_NAME, promptedMessages, stepSchema, toolInstruction } from './prompted-format.js';

/** `provider`, calling tools by prompt. Requests without tools go through with the history mapped. */
export function promptedToolCalling(provider: Provider): Provider {
  return {
    name: provider.name,
    model: provider.model,
    chat: (request) => promptedChat(provider, request),
  };
}

/**
 * The request the wrapped provider gets: no `tools`, the instruction and the step's schema instead.
 * A step without tools (the model must answer now) is held to `{"answer": "..."}`: a model that has
 * answered in JSON all along writes JSON again, and free text would show it raw. A step with a
 * response format of its own (an output schema's follow-up) keeps it.
 */
export function promptedRequest(request: ChatRequest): ChatRequest {
  const messages = promptedMessages(request.messages);
  if (request.tools.length === 0) {
    if (request.responseFormat !== undefined && request.responseFormat.type !== 'text') {
      return { ...request, messages };
    }
    return {
      ...request,
      messages,
      responseFormat: { type: 'json-schema', name: PROMPTED_FORMAT_NAME, schema: ANSWER_ONLY_SCHEMA },
    };
  }
  const system = [request.system, toolInstruction(request.tools)].filter(
    (part): part is string => part !== undefined && part !== '',
  );
  return {
    ...request,
    system: system.join('\n\n'),
    messages,
    tools: [],
    responseFormat: { type: 'json-schema', name: PROMPTED_FORMAT_NAME, schema: stepSchema(request.tools) },
  };
}

/** A step's answer when no tools are offered. */
const ANSWER_ONLY_SCHEMA = {
  type: 'object',
  properties: { answer: { type: 'string' } },
  required: ['answer'],
  additionalProperties: false,
} as const;

async function* promptedChat(provider: Provider, request: ChatRequest): AsyncGenerator<ProviderEvent> {
  const sent = promptedRequest(request);
  if (
    sent.responseFormat?.type === 'json-schema' &&
    sent.responseFormat.schema !== ANSWER_ONLY_SCHEMA &&
    request.tools.length === 0
  ) {
    yield* provider.chat(sent);
    return;
  }
  const answer = new AnswerStream();
  let raw = '';
  let streamed = false;
  let finish: { reason: FinishReason; usage?: Usage } | undefined;
  for await (const event of provider.chat(sent)) {
    switch (event.type) {
      case 'text-delta': {
        raw += event.text;
        const text = answer.push(event.text);
        if (text !== '') {
          streamed = true;
          yield { type: 'text-delta', text };
        }
        break;
      }
      case 'tool-call':
        // A wrapped provider that called natively after all: its call is as good as any.
        yield event;
        break;
      case 'reasoning-delta':
        // Reasoning is apart from the JSON the step is held to: it passes as it comes.
        yield event;
        break;
      case 'tool-call-delta':
        // Part of a native call (above): passed on for the apps that show its input as it grows.
        yield event;
        break;
      case 'finish':
        finish = event.usage === undefined ? { reason: event.reason } : event;
        break;
      default: {
        const unexpected: never = event;
        throw new TypeError(`unknown provider event ${JSON.stringify(unexpected)}`);
      }
    }
  }
  if (finish === undefined) return; // the Runner reports a stream that never finished
  const step = readStep(raw);
  // Not the JSON asked for (the vendor ignored the format, or the answer was cut): the text as it
  // came, for the Runner (which may read a call written as text in it) and the user.
  if (step === undefined && !streamed && raw !== '') yield { type: 'text-delta', text: raw };
  const calls = step?.calls ?? [];
  for (const call of calls) yield { type: 'tool-call', call };
  const reason = calls.length > 0 ? 'tool-calls' : finish.reason;
  yield finish.usage === undefined
    ? { type: 'finish', reason }
    : { type: 'finish', reason, usage: finish.usage };
}

/** The calls of a complete step answer, or undefined when it is not the JSON asked for. */
function readStep(raw: string): { calls: ToolCallBlock[] } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const calls = (value as { calls?: unknown }).calls;
  if (calls === undefined) return { calls: [] };
  if (!Array.isArray(calls)) return undefined;
  return { calls: calls.map(toCall) };
}

/** One call as the Runner takes it; a missing name or arguments are left for its checks to answer. */
function toCall(item: unknown): ToolCallBlock {
  const record = typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : {};
  const name = typeof record.name === 'string' ? record.name : '';
  const input = record.arguments;
  const id = hostToolCallId();
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
    return { type: 'tool-call', id, name, input: input as Record<string, unknown> };
  }
  return {
    type: 'tool-call',
    id,
    name,
    input: {},
    rawInput: input === undefined ? '' : JSON.stringify(input),
  };
}
