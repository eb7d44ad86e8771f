/**
 * A loopback fake of Anthropic's Messages API (`POST /v1/messages`), for the real SDK to talk to.
 *
 * It validates every request as the real API does (see `anthropic-validation.ts`), records it, and
 * answers from a script: JSON, or with `stream: true` the real server-sent event sequence
 * (message_start, content_block_start / delta / stop, message_delta, message_stop, with pings),
 * or an error body `{"type":"error","error":{"type":…,"message":…}}` with its status.
 */
import { countFakeTokens } from './context-limit.js';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { readJsonBody, startLoopbackServer } from '../support/loopback.js';
import { validateHeaders, validateMessagesBody, type FakeApiError } from './anthropic-validation.js';

/** A block of a scripted answer. */
export type FakeAnthropicBlock =
  /** Text, streamed as `chunks` when given (they must join to `text`), else in one delta. */
  | { readonly type: 'text'; readonly text: string; readonly chunks?: readonly string[] }
  /**
   * A thinking block: `thinking_delta`s (`chunks`, else one), then its `signature_delta`, as the
   * real API streams one (it sends them when a request turns thinking on).
   */
  | { readonly type: 'thinking'; readonly thinking: string; readonly chunks?: readonly string[] }
  /**
   * A tool call. Streamed as `fragments` of `partial_json` when given (they need not join to
   * valid JSON: that is how a model's bad arguments look), else as the JSON of `input` in 3 pieces.
   */
  | {
      readonly type: 'tool_use';
      readonly id: string;
      readonly name: string;
      readonly input?: Readonly<Record<string, unknown>>;
      readonly fragments?: readonly string[];
      readonly waitBefore?: (index: number) => Promise<void>; // holds the stream, as a slow model would
    };

/** One scripted reply. */
export type FakeAnthropicReply =
  /** A complete answer. `stopReason` defaults to `tool_use` when there are tool calls, else `end_turn`. */
  | {
      readonly type: 'answer';
      readonly content: readonly FakeAnthropicBlock[];
      readonly stopReason?: string;
      readonly usage?: { readonly inputTokens: number; readonly outputTokens: number };
    }
  /** An HTTP error with the real body shape. */
  | {
      readonly type: 'error';
      readonly status: number;
      readonly errorType: string;
      readonly message: string;
      readonly headers?: Readonly<Record<string, string>>;
    }
  /** A stream that sends `content` and then an `event: error` (a JSON request gets it as HTTP 529). */
  | {
      readonly type: 'stream-error';
      readonly content?: readonly FakeAnthropicBlock[];
      readonly errorType: string;
      readonly message: string;
    }
  /** A stream that sends `content` and then waits, never finishing, until the client goes away. */
  | { readonly type: 'stall'; readonly content: readonly FakeAnthropicBlock[] }
  /**
   * After the usual `message_start`, sends `events` as they are (each under its own `type` as the
   * SSE event name), then closes: for events the real API would not send (malformed ones).
   */
  | { readonly type: 'events'; readonly events: ReadonlyArray<Readonly<Record<string, unknown>>> };

/** A request as the fake received it. */
export interface RecordedAnthropicRequest {
  readonly headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined when it was not JSON). */
  readonly body: unknown;
  /** The validation error the fake answered with, if the request was refused. */
  readonly rejected?: FakeApiError;
}

/** Replies in order, or a function of each valid request (and its index among valid ones). */
export type FakeAnthropicScript =
  readonly FakeAnthropicReply[] | ((request: RecordedAnthropicRequest, index: number) => FakeAnthropicReply);

/** A running fake. */
export interface FakeAnthropic {
  /** Base URL for the SDK (`baseURL`) or `--provider-url`: `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** Every request received, valid or not, in order. */
  readonly requests: readonly RecordedAnthropicRequest[];
  close(): Promise<void>;
}

/** A text answer, for short scripts. */
export function textAnswer(text: string): FakeAnthropicReply {
  return { type: 'answer', content: [{ type: 'text', text }] };
}

/** How the fake behaves beyond its script. */
export interface FakeAnthropicOptions {
  /**
   * The model's context window, in the fake's tokens ({@link countFakeTokens}): a longer request
   * gets Anthropic's real refusal, a 400 `invalid_request_error` "prompt is too long: N tokens >
   * LIMIT maximum", and uses no scripted reply.
   */
  readonly contextLimitTokens?: number;
}

/** Starts a fake on a free loopback port. */
export async function startFakeAnthropic(
  script: FakeAnthropicScript,
  options: FakeAnthropicOptions = {},
): Promise<FakeAnthropic> {
  const requests: RecordedAnthropicRequest[] = [];
  let answered = 0;
  const nextReply = (request: RecordedAnthropicRequest): FakeAnthropicReply => {
    const index = answered++;
    if (typeof script === 'function') return script(request, index);
    return (
      script[index] ?? {
        type: 'error',
        status: 500,
        errorType: 'api_error',
        message: `fake: no reply scripted for request ${index}`,
      }
    );
  };
  const server = await startLoopbackServer(async (request, response) => {
    if (request.method !== 'POST' || request.url?.split('?')[0] !== '/v1/messages') {
      sendError(response, {
        status: 404,
        type: 'not_found_error',
        message: `Not found: ${request.method} ${request.url}`,
      });
      return;
    }
    let body: unknown;
    try {
      body = await readJsonBody(request);
    } catch {
      body = undefined;
    }
    const version = request.headers['anthropic-version'];
    const rejected =
      validateHeaders(request.headers) ??
      validateMessagesBody(body, typeof version === 'string' ? version : '') ??
      overContextLimit(body, options.contextLimitTokens);
    const recorded: RecordedAnthropicRequest = {
      headers: request.headers,
      body,
      ...(rejected ? { rejected } : {}),
    };
    requests.push(recorded);
    if (rejected !== undefined) {
      sendError(response, rejected);
      return;
    }
    const streaming = (body as { stream?: boolean }).stream === true;
    const model = String((body as { model: unknown }).model);
    await reply(response, nextReply(recorded), streaming, model);
  });
  return { url: server.url, requests, close: () => server.close() };
}

function overContextLimit(body: unknown, limit: number | undefined): FakeApiError | undefined {
  if (limit === undefined) return undefined;
  const tokens = countFakeTokens(body);
  if (tokens <= limit) return undefined;
  return {
    status: 400,
    type: 'invalid_request_error',
    message: `prompt is too long: ${tokens} tokens > ${limit} maximum`,
  };
}

let counter = 0;
const newId = (prefix: string) => `${prefix}_fake${String(++counter).padStart(6, '0')}`;

function sendError(
  response: ServerResponse,
  error: FakeApiError,
  headers: Readonly<Record<string, string>> = {},
): void {
  const requestId = newId('req');
  response.writeHead(error.status, {
    'content-type': 'application/json',
    'request-id': requestId,
    ...headers,
  });
  response.end(
    JSON.stringify({
      type: 'error',
      error: { type: error.type, message: error.message },
      request_id: requestId,
    }),
  );
}

async function reply(
  response: ServerResponse,
  scripted: FakeAnthropicReply,
  streaming: boolean,
  model: string,
) {
  switch (scripted.type) {
    case 'error':
      sendError(
        response,
        { status: scripted.status, type: scripted.errorType, message: scripted.message },
        scripted.headers,
      );
      return;
    case 'answer': {
      const stopReason =
        scripted.stopReason ??
        (scripted.content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
      const usage = scripted.usage ?? { inputTokens: 25, outputTokens: 12 };
      if (!streaming) {
        sendJson(response, messageJson(model, scripted.content, stopReason, usage));
        return;
      }
      startStream(response, model, usage.inputTokens);
      await streamBlocks(response, scripted.content);
      sendEvent(response, 'message_delta', {
        type: 'message_delta',
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { output_tokens: usage.outputTokens },
      });
      sendEvent(response, 'message_stop', { type: 'message_stop' });
      response.end();
      return;
    }
    case 'stream-error': {
      if (!streaming) {
        sendError(response, { status: 529, type: scripted.errorType, message: scripted.message });
        return;
      }
      startStream(response, model, 25);
      await streamBlocks(response, scripted.content ?? []);
      sendEvent(response, 'error', {
        type: 'error',
        error: { type: scripted.errorType, message: scripted.message },
      });
      response.end();
      return;
    }
    case 'stall':
      if (streaming) {
        startStream(response, model, 25);
        await streamBlocks(response, scripted.content);
      }
      // Hold the connection until the client aborts (or the fake closes).
      await new Promise<void>((resolve) => response.on('close', resolve));
      return;
    case 'events':
      if (!streaming) {
        sendError(response, {
          status: 400,
          type: 'invalid_request_error',
          message: 'fake: events need stream',
        });
        return;
      }
      startStream(response, model, 25);
      for (const event of scripted.events) sendEvent(response, String(event.type), event);
      response.end();
      return;
    default: {
      const unknown: never = scripted;
      throw new TypeError(`unknown reply ${JSON.stringify(unknown)}`);
    }
  }
}

function sendJson(response: ServerResponse, body: unknown): void {
  response.writeHead(200, { 'content-type': 'application/json', 'request-id': newId('req') });
  response.end(JSON.stringify(body));
}

function messageJson(
  model: string,
  content: readonly FakeAnthropicBlock[],
  stopReason: string,
  usage: { inputTokens: number; outputTokens: number },
) {
  return {
    id: newId('msg'),
    type: 'message',
    role: 'assistant',
    model,
    content: content.map((block) => {
      switch (block.type) {
        case 'text':
          return { type: 'text', text: block.text, citations: null };
        case 'thinking':
          return { type: 'thinking', thinking: block.thinking, signature: FAKE_SIGNATURE };
        case 'tool_use':
          return {
            type: 'tool_use',
            id: block.id,
            name: block.name,
            input: block.input ?? {},
            caller: { type: 'direct' },
          };
        default: {
          const unexpected: never = block;
          throw new TypeError(`unknown fake block ${JSON.stringify(unexpected)}`);
        }
      }
    }),
    stop_reason: stopReason,
    stop_sequence: null,
    stop_details: null,
    usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens },
  };
}

function startStream(response: ServerResponse, model: string, inputTokens: number): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'request-id': newId('req'),
  });
  sendEvent(response, 'message_start', {
    type: 'message_start',
    message: {
      ...messageJson(model, [], '', { inputTokens, outputTokens: 1 }),
      stop_reason: null,
    },
  });
  sendEvent(response, 'ping', { type: 'ping' });
}

/** What a thinking block's `signature` looks like to the client: opaque base64. */
const FAKE_SIGNATURE = 'RXF1YWxseSBvcGFxdWUgdG8gdGhlIGNsaWVudA==';

async function streamBlocks(response: ServerResponse, content: readonly FakeAnthropicBlock[]) {
  for (const [index, block] of content.entries()) {
    if (block.type === 'thinking') {
      sendEvent(response, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      });
      for (const thinking of block.chunks ?? [block.thinking]) {
        sendEvent(response, 'content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'thinking_delta', thinking },
        });
      }
      sendEvent(response, 'content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'signature_delta', signature: FAKE_SIGNATURE },
      });
    } else if (block.type === 'text') {
      sendEvent(response, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '', citations: null },
      });
      for (const text of block.chunks ?? [block.text]) {
        sendEvent(response, 'content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'text_delta', text },
        });
      }
    } else {
      sendEvent(response, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: {
          type: 'tool_use',
          id: block.id,
          name: block.name,
          input: {},
          caller: { type: 'direct' },
        },
      });
      const fragments = block.fragments ?? splitInThree(JSON.stringify(block.input ?? {}));
      for (const [fragment, partial_json] of fragments.entries()) {
        await block.waitBefore?.(fragment);
        sendEvent(response, 'content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json },
        });
      }
    }
    sendEvent(response, 'content_block_stop', { type: 'content_block_stop', index });
  }
}

/** The real API starts a tool's input with an empty fragment, then cuts the JSON anywhere. */
function splitInThree(json: string): string[] {
  const third = Math.ceil(json.length / 3);
  return ['', json.slice(0, third), json.slice(third, 2 * third), json.slice(2 * third)];
}

function sendEvent(response: ServerResponse, event: string, data: unknown): void {
  response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}
