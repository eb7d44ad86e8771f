/**
 * A loopback fake of the OpenAI Chat Completions API (`POST /v1/chat/completions`), driven by the
 * real `openai` SDK in tests. It answers with JSON or with SSE chunks (`data: {...}` … `data: [DONE]`)
 * the way OpenAI streams them — tool-call arguments in fragments, parallel calls interleaved, a
 * final usage chunk when `stream_options.include_usage` is set — and rejects with OpenAI's own
 * error bodies what the real API rejects (see openai-validation.ts).
 */
import { countFakeTokens } from './context-limit.js';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { readJsonBody, startLoopbackServer } from '../support/loopback.js';
import { validateChatRequest, type OpenAIWireError } from './openai-validation.js';
import { checkAuthorization, responseFormatProblem } from './structured-answer.js';
import { fragments, toolCallDeltas } from './openai-deltas.js';

/** A tool call the fake model makes; `arguments` is sent as is (it may be invalid JSON on purpose). */
export interface FakeToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

/** OpenAI's usage counts. */
export interface FakeUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
}

/**
 * Reasoning streamed before the answer, in the delta field each server uses: `reasoning_content`
 * (DeepSeek, vLLM, llama.cpp's server; the default) or `reasoning` (OpenRouter, Ollama's /v1),
 * with `content: null` beside it, as those servers send it.
 */
export interface FakeReasoning {
  readonly reasoning?: string;
  readonly reasoningField?: 'reasoning_content' | 'reasoning';
}

/** What the fake answers to one request. */
export type FakeOpenAIReply =
  /** A text answer, streamed a few characters per chunk. */
  | ({
      readonly type: 'text';
      readonly text: string;
      readonly finishReason?: string;
      readonly usage?: FakeUsage;
    } & FakeReasoning)
  /** Tool calls (after optional text); arguments in fragments, calls interleaved. */
  | ({
      readonly type: 'tool-calls';
      readonly calls: readonly FakeToolCall[];
      readonly text?: string;
      readonly finishReason?: string;
      readonly usage?: FakeUsage;
    } & FakeReasoning)
  /** Raw chunk objects, streamed as they are, then `[DONE]` (for odd servers and edge cases). */
  | { readonly type: 'chunks'; readonly chunks: readonly unknown[] }
  /** An HTTP error with OpenAI's error body. */
  | {
      readonly type: 'error';
      readonly status: number;
      readonly message: string;
      readonly errorType?: string;
      readonly code?: string | null;
      readonly headers?: Readonly<Record<string, string>>;
      /** Sent instead of OpenAI's error body (another server's error shape, an HTML page…). */
      readonly rawBody?: string;
    }
  /** Streams `text`, then an `error` event inside the stream (status 200 already sent). */
  | {
      readonly type: 'stream-error';
      readonly text: string;
      readonly errorType: string;
      readonly message: string;
    }
  /** Streams `text`, then neither finishes nor closes: for cancellation tests. */
  | { readonly type: 'stall'; readonly text: string }
  /** Streams `text`, then destroys the connection: a network failure mid-answer. */
  | { readonly type: 'drop'; readonly text: string }
  /**
   * Streams `text`, then closes the connection cleanly, with no finish_reason and no `[DONE]`: a
   * proxy or server that gave up mid-answer. The HTTP response itself ends normally.
   */
  | { readonly type: 'cut'; readonly text: string }
  /**
   * Structured output: `value` streamed as JSON text. The request must carry a `json_schema`
   * `response_format` whose schema `value` is valid against (ajv), else a 500 names the problems.
   */
  | { readonly type: 'json'; readonly value: unknown };

/** A request as the fake received it. */
export interface RecordedOpenAIRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The JSON body (unvalidated). */
  readonly body: Record<string, unknown>;
}

/** Replies in order, or a function of the request (and its 0-based number among valid requests). */
export type FakeOpenAIScript =
  readonly FakeOpenAIReply[] | ((request: RecordedOpenAIRequest, index: number) => FakeOpenAIReply);

export interface FakeOpenAIOptions {
  /** When set, requests must carry `Authorization: Bearer <apiKey>` (401 otherwise, like OpenAI). */
  readonly apiKey?: string;
  /**
   * The model's context window, in the fake's tokens ({@link countFakeTokens}): a longer request
   * gets OpenAI's real refusal, a 400 with code `context_length_exceeded`.
   */
  readonly contextLimitTokens?: number;
  /** The longest tool description taken: OpenAI's 1024 by default; null for a server with no limit. */
  readonly maxDescriptionLength?: number | null;
  /**
   * A server that takes no tools for this model: any request with `tools` gets a 400 with this
   * message (vLLM without a tool parser, llama.cpp's server without `--jinja`, Ollama's /v1).
   */
  readonly rejectTools?: string;
}

export interface FakeOpenAI {
  /** Base URL to give the SDK (`--provider-url`, `OPENAI_BASE_URL`): `http://127.0.0.1:PORT/v1`. */
  readonly url: string;
  /** Every request received, valid or not, in order. */
  readonly requests: RecordedOpenAIRequest[];
  close(): Promise<void>;
}

/** Starts the fake on a loopback port. */
export async function startFakeOpenAI(
  script: FakeOpenAIScript,
  options: FakeOpenAIOptions = {},
): Promise<FakeOpenAI> {
  const requests: RecordedOpenAIRequest[] = [];
  let answered = 0;
  const nextReply = (request: RecordedOpenAIRequest): FakeOpenAIReply => {
    const index = answered++;
    if (typeof script === 'function') return script(request, index);
    const reply = script[index];
    if (reply !== undefined) return reply;
    // Fail fast (400, not retried) so that a test with too few replies says so instead of hanging.
    return {
      type: 'error',
      status: 400,
      message: `fake OpenAI: no scripted reply for request ${index + 1}`,
      errorType: 'fake_script_exhausted',
    };
  };

  const server = await startLoopbackServer(async (incoming, response) => {
    const path = (incoming.url ?? '/').split('?')[0] ?? '/';
    const body = await readJsonBody(incoming).catch(() => undefined);
    const request: RecordedOpenAIRequest = {
      method: incoming.method ?? 'GET',
      path,
      headers: incoming.headers,
      body: typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {},
    };
    requests.push(request);
    if (request.method !== 'POST' || path !== '/v1/chat/completions') {
      sendError(response, {
        status: 404,
        message: `Invalid URL (${request.method} ${path})`,
        type: 'invalid_request_error',
        param: null,
        code: null,
      });
      return;
    }
    const authError = checkAuthorization(incoming, options.apiKey);
    if (authError) {
      sendError(response, authError);
      return;
    }
    const problem = validateChatRequest(body, {
      ...(options.maxDescriptionLength === undefined
        ? {}
        : { maxDescriptionLength: options.maxDescriptionLength }),
    });
    if (problem) {
      sendError(response, problem);
      return;
    }
    const tools = (body as { tools?: unknown }).tools;
    if (options.rejectTools !== undefined && Array.isArray(tools) && tools.length > 0) {
      sendError(response, {
        status: 400,
        message: options.rejectTools,
        type: 'BadRequestError',
        param: null,
        code: null,
      });
      return;
    }
    const tokens = countFakeTokens(body);
    if (options.contextLimitTokens !== undefined && tokens > options.contextLimitTokens) {
      sendError(response, {
        status: 400,
        message: `This model's maximum context length is ${options.contextLimitTokens} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      });
      return;
    }
    const scripted = nextReply(request);
    if (scripted.type === 'json') {
      const problem = await responseFormatProblem(request.body, scripted.value);
      reply(
        response,
        request.body,
        problem === undefined
          ? { type: 'text', text: JSON.stringify(scripted.value) }
          : { type: 'error', status: 500, message: `fake OpenAI: ${problem}` },
      );
      return;
    }
    reply(response, request.body, scripted);
  });
  return { url: `${server.url}/v1`, requests, close: () => server.close() };
}

function sendError(
  response: ServerResponse,
  error: OpenAIWireError,
  headers: Readonly<Record<string, string>> = {},
  rawBody?: string,
): void {
  response.writeHead(error.status, { 'content-type': 'application/json', ...headers });
  const { message, type, param, code } = error;
  response.end(rawBody ?? JSON.stringify({ error: { message, type, param, code } }));
}

/** OpenAI's error `type` for a status, when a script does not say. */
function defaultErrorType(status: number): string {
  if (status === 429) return 'requests';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function reply(response: ServerResponse, body: Record<string, unknown>, scripted: FakeOpenAIReply): void {
  if (scripted.type === 'error') {
    const error: OpenAIWireError = {
      status: scripted.status,
      message: scripted.message,
      type: scripted.errorType ?? defaultErrorType(scripted.status),
      param: null,
      code: scripted.code ?? null,
    };
    sendError(response, error, scripted.headers, scripted.rawBody);
    return;
  }
  const model = typeof body.model === 'string' ? body.model : 'fake';
  const streaming = body.stream === true;
  const includeUsage =
    (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
  if (!streaming) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(toCompletion(scripted, model)));
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (data: unknown): void => {
    response.write(`data: ${JSON.stringify(data)}\n\n`);
  };
  const chunk = (
    delta: Record<string, unknown>,
    finishReason: string | null = null,
  ): Record<string, unknown> => ({
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    system_fingerprint: 'fp_fake',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
  });
  const finish = (finishReason: string, usage: FakeUsage): void => {
    send(chunk({}, finishReason));
    if (includeUsage) {
      send({
        id: 'chatcmpl-fake',
        object: 'chat.completion.chunk',
        created: 1_700_000_000,
        model,
        choices: [],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      });
    }
    response.end('data: [DONE]\n\n');
  };

  const sendReasoning = (reasoning: FakeReasoning): void => {
    const field = reasoning.reasoningField ?? 'reasoning_content';
    for (const piece of fragments(reasoning.reasoning ?? '')) send(chunk({ content: null, [field]: piece }));
  };

  switch (scripted.type) {
    case 'text':
      send(chunk({ role: 'assistant', content: '', refusal: null }));
      sendReasoning(scripted);
      for (const piece of fragments(scripted.text)) send(chunk({ content: piece }));
      finish(scripted.finishReason ?? 'stop', scripted.usage ?? defaultUsage(scripted.text));
      return;
    case 'tool-calls':
      send(chunk({ role: 'assistant', content: null, refusal: null }));
      sendReasoning(scripted);
      for (const piece of fragments(scripted.text ?? '')) send(chunk({ content: piece }));
      for (const delta of toolCallDeltas(scripted.calls)) send(chunk({ tool_calls: [delta] }));
      finish(
        scripted.finishReason ?? 'tool_calls',
        scripted.usage ?? defaultUsage(JSON.stringify(scripted.calls)),
      );
      return;
    case 'chunks':
      for (const raw of scripted.chunks) send(raw);
      response.end('data: [DONE]\n\n');
      return;
    case 'stream-error':
      send(chunk({ role: 'assistant', content: '' }));
      for (const piece of fragments(scripted.text)) send(chunk({ content: piece }));
      send({ error: { message: scripted.message, type: scripted.errorType, param: null, code: null } });
      response.end();
      return;
    case 'stall':
      send(chunk({ role: 'assistant', content: '' }));
      for (const piece of fragments(scripted.text)) send(chunk({ content: piece }));
      // Left open on purpose: the client's abort (or close()) ends it.
      return;
    case 'drop':
      send(chunk({ role: 'assistant', content: '' }));
      for (const piece of fragments(scripted.text)) send(chunk({ content: piece }));
      // Let the chunks leave before the connection breaks.
      response.socket?.end(() => response.socket?.destroy());
      return;
    case 'cut':
      send(chunk({ role: 'assistant', content: '' }));
      for (const piece of fragments(scripted.text)) send(chunk({ content: piece }));
      response.end();
      return;
    case 'json':
      throw new Error('fake OpenAI: a json reply is checked and turned to text before reply()');
    default: {
      const unexpected: never = scripted;
      throw new Error(`unknown reply ${JSON.stringify(unexpected)}`);
    }
  }
}

function defaultUsage(output: string): FakeUsage {
  return { prompt_tokens: 42, completion_tokens: Math.max(1, Math.ceil(output.length / 4)) };
}

/** The non-streaming answer (`stream: false`). */
function toCompletion(
  scripted: Exclude<FakeOpenAIReply, { type: 'error' }>,
  model: string,
): Record<string, unknown> {
  const text = 'text' in scripted ? (scripted.text ?? '') : '';
  const calls = scripted.type === 'tool-calls' ? scripted.calls : [];
  const usage = ('usage' in scripted ? scripted.usage : undefined) ?? defaultUsage(text);
  const finishReason =
    ('finishReason' in scripted ? scripted.finishReason : undefined) ??
    (calls.length > 0 ? 'tool_calls' : 'stop');
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text === '' && calls.length > 0 ? null : text,
          refusal: null,
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((call) => ({
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: finishReason,
      },
    ],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}
