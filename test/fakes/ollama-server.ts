/**
 * A loopback fake of the Ollama server: `/api/chat` (NDJSON streaming and plain JSON), `/api/show`,
 * `/api/tags`, `/api/ps`, `/api/pull` (streamed progress), `/api/delete`, `/api/version`. Each chat request takes the next reply from a script; a reply may be a function
 * of the request, so a test can answer with a call to one of the tools it was offered. Requests
 * that a real Ollama would refuse get its status and `{"error": "…"}` body (see ollama-validation.ts).
 */
import { countFakeTokens } from './context-limit.js';
import type { ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { startLoopbackServer } from '../support/loopback.js';
import { normalizeModelName, validateChatBody, type FakeChatRequest } from './ollama-validation.js';
import { schemaProblem } from './structured-answer.js';
import { finalLine, readBody, sendText, textLine } from './ollama-lines.js';
import {
  answerDelete,
  answerPs,
  answerPull,
  FAKE_OLLAMA_LIBRARY,
  modelNameIn,
  sendJson,
  startStream,
  tagEntry,
  writeLine,
} from './ollama-model-routes.js';

export type { FakeChatMessage, FakeChatRequest, FakeChatTool } from './ollama-validation.js';
export { FAKE_OLLAMA_LIBRARY } from './ollama-model-routes.js';

/** A tool call the fake model makes. `arguments` is sent as is (a non-object tests bad arguments). */
export interface FakeToolCall {
  readonly name: string;
  readonly arguments: unknown;
}

/** What the fake answers one chat request with. */
export type FakeOllamaReply =
  /** A normal answer: text (one chunk per string), then tool calls (one chunk each), then the final line. */
  | {
      readonly type: 'answer';
      /** Reasoning, streamed first: one line each in `message.thinking`, as Ollama streams qwen3's. */
      readonly thinking?: readonly string[];
      readonly text?: string | readonly string[];
      readonly toolCalls?: readonly FakeToolCall[];
      /** `stop` unless given (`length` when cut by `num_predict`). */
      readonly doneReason?: string;
      readonly promptEvalCount?: number;
      readonly evalCount?: number;
      /** Pause between streamed lines. */
      readonly chunkDelayMs?: number;
      /** Text lines sent after the final line (as a buggy proxy can), each after `chunkDelayMs` (20). */
      readonly afterDone?: readonly string[];
    }
  /** An HTTP error: Ollama's `{"error": error}` JSON, or `body` as is (with `contentType`). */
  | {
      readonly type: 'error';
      readonly status: number;
      readonly error?: string;
      readonly body?: string;
      readonly contentType?: string;
      readonly headers?: Readonly<Record<string, string>>;
    }
  /** A 200 stream that sends some text, then Ollama's in-stream `{"error": …}` line. */
  | { readonly type: 'stream-error'; readonly text?: readonly string[]; readonly error: string }
  /** Sends some text, then holds the connection open until the client goes away (for abort tests). */
  | { readonly type: 'stall'; readonly text?: readonly string[] }
  /** Closes the connection without answering (a transient network failure for the client). */
  | { readonly type: 'hang-up' }
  /** A 200 answer whose body is exactly `body` (for malformed streams). */
  | { readonly type: 'raw'; readonly body: string; readonly contentType?: string }
  /**
   * Structured output: `value` (or what `choose` makes of the request's `format`), streamed as JSON
   * text in small pieces, as a model under Ollama's grammar writes it. The request must carry a
   * `format` schema and `value` must be valid against it (ajv), else the fake answers 500 with the
   * problems, so a test cannot pass with a schema that would refuse the model's answer.
   */
  | { readonly type: 'format'; readonly value: unknown };

/** A script entry: a reply, or a function of the (valid) request giving one. */
export type FakeOllamaScriptItem =
  FakeOllamaReply | ((request: FakeChatRequest) => FakeOllamaReply | Promise<FakeOllamaReply>);

/**
 * A reply the fake holds back until `release()`: the test can read the screen (or the output)
 * while the model "thinks".
 */
export function heldReply(reply: FakeOllamaReply): { item: FakeOllamaScriptItem; release: () => void } {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const item: FakeOllamaScriptItem = async () => {
    await released;
    return reply;
  };
  return { item, release };
}

/** Any request the fake received, valid or not, in order. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  /** The parsed JSON body, the raw text when it was not JSON, or undefined when empty. */
  readonly body: unknown;
  /** The `Authorization` header, when the request had one. */
  readonly authorization?: string;
}

export interface FakeOllamaOptions {
  /** Installed models; names without a tag mean `:latest`. */
  readonly models?: readonly string[];
  /** Answers every chat request once the script is used up (by default such a request gets a 400). */
  readonly fallback?: FakeOllamaScriptItem;
  /** What `/api/version` says. */
  readonly version?: string;
  /**
   * The `num_ctx` the model runs with, as `/api/show` reports it in `parameters`. Like Ollama, a
   * chat longer than this (in the fake's tokens, {@link countFakeTokens}) is not refused: its
   * beginning is dropped in silence, which the fake records in `truncatedChats`.
   */
  readonly numCtx?: number;
  /** The model's trained window, as `/api/show` reports it in `model_info`. Default 131072. */
  readonly trainedContextLength?: number;
  /** The names `/api/pull` can fetch (Ollama's library); others fail as Ollama's do. */
  readonly library?: readonly string[];
  /** Pause between a pull's progress lines (for a test that watches the progress bar). */
  readonly pullDelayMs?: number;
  /**
   * Models without the `tools` capability (Gemma 3, DeepSeek-R1…): `/api/show` lists no `tools`,
   * and a chat that carries tools gets Ollama's 400 "<model> does not support tools".
   */
  readonly withoutTools?: readonly string[];
}

export interface FakeOllama {
  /** Base URL, `http://127.0.0.1:PORT`, for `--provider-url` or `OLLAMA_HOST`. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: readonly RecordedRequest[];
  /** The chat requests that passed validation (and were answered from the script), in order. */
  readonly chatRequests: readonly FakeChatRequest[];
  /** Indexes (in `chatRequests`) of the chats longer than `numCtx`, which real Ollama would have cut. */
  readonly truncatedChats: readonly number[];
  /** Adds replies to the end of the script. */
  push(...items: FakeOllamaScriptItem[]): void;
  /** Script entries not used yet. */
  pending(): number;
  /** Resolves once no chat answer is being sent (a client that stopped reading has hung up). */
  waitForIdle(): Promise<void>;
  close(): Promise<void>;
}

/** The models a fresh fake has (mcphost's default model among them). */
export const FAKE_OLLAMA_MODELS: readonly string[] = ['mistral-small', 'qwen2.5:3b', 'llama3.2'];

/** A text answer. */
export function textReply(...text: string[]): FakeOllamaReply {
  return { type: 'answer', text };
}

/** An answer that calls tools (each `[name, arguments]`). */
export function toolCallReply(...calls: ReadonlyArray<readonly [string, unknown]>): FakeOllamaReply {
  return { type: 'answer', toolCalls: calls.map(([name, input]) => ({ name, arguments: input })) };
}

/** A structured answer: `value` as JSON, checked against the request's `format`. */
export function formatReply(value: unknown): FakeOllamaReply {
  return { type: 'format', value };
}

/** An HTTP error with Ollama's JSON body. */
export function errorReply(status: number, error: string): FakeOllamaReply {
  return { type: 'error', status, error };
}

export async function startFakeOllama(
  script: readonly FakeOllamaScriptItem[] = [],
  options: FakeOllamaOptions = {},
): Promise<FakeOllama> {
  const queue = [...script];
  const requests: RecordedRequest[] = [];
  const chatRequests: FakeChatRequest[] = [];
  const truncatedChats: number[] = [];
  const models = options.models ?? FAKE_OLLAMA_MODELS;
  const installed = new Set(models.map(normalizeModelName));
  const withoutTools = new Set((options.withoutTools ?? []).map(normalizeModelName));
  const library = new Set((options.library ?? FAKE_OLLAMA_LIBRARY).map(normalizeModelName));
  /** Models a chat has used, as `/api/ps` lists them. */
  const loaded = new Set<string>();
  let openAnswers = 0;
  let idleWaiters: Array<() => void> = [];
  const track = (response: ServerResponse): void => {
    openAnswers++;
    response.once('close', () => {
      openAnswers--;
      if (openAnswers > 0) return;
      for (const resolve of idleWaiters) resolve();
      idleWaiters = [];
    });
  };

  const answerChatRequest = async (body: unknown, response: ServerResponse): Promise<void> => {
    const validation = validateChatBody(body, installed);
    if (!validation.ok) {
      sendJson(response, validation.status, { error: validation.error });
      return;
    }
    const chat = validation.request;
    if (withoutTools.has(normalizeModelName(chat.model)) && (chat.tools?.length ?? 0) > 0) {
      // Ollama's words, with the model's full name as it gives it.
      const full = normalizeModelName(chat.model);
      sendJson(response, 400, { error: `registry.ollama.ai/library/${full} does not support tools` });
      return;
    }
    if (chat.messages.length === 0) {
      // Ollama treats a chat without messages as "load the model" and answers at once.
      sendJson(response, 200, finalLine(chat.model, 'load', 0, 0));
      return;
    }
    chatRequests.push(chat);
    loaded.add(normalizeModelName(chat.model));
    // Ollama runs the request's num_ctx, else the Modelfile's (and cuts the prompt to it in silence).
    const window = typeof chat.options?.num_ctx === 'number' ? chat.options.num_ctx : options.numCtx;
    if (window !== undefined && countFakeTokens(chat.messages) > window) {
      truncatedChats.push(chatRequests.length - 1);
    }
    track(response);
    const item = queue.shift() ?? options.fallback;
    if (item === undefined) {
      sendJson(response, 400, { error: `fake ollama: no reply scripted for chat #${chatRequests.length}` });
      return;
    }
    await answerChat(response, chat, typeof item === 'function' ? await item(chat) : item);
  };

  const server = await startLoopbackServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://fake').pathname;
    const method = request.method ?? 'GET';
    const body = await readBody(request);
    const { authorization } = request.headers;
    requests.push({ method, path, body, ...(authorization === undefined ? {} : { authorization }) });
    const route = `${method} ${path}`;
    if (route === 'POST /api/chat') await answerChatRequest(body, response);
    else if (route === 'GET /' || route === 'HEAD /') sendText(response, 200, 'Ollama is running');
    else if (route === 'POST /api/show') answerShow(body, response);
    else if (route === 'POST /api/pull') await answerPull(body, response, { installed, library, options });
    else if (route === 'DELETE /api/delete') answerDelete(body, response, installed);
    else if (route === 'GET /api/ps') answerPs(response, loaded, installed);
    else if (route === 'GET /api/version') sendJson(response, 200, { version: options.version ?? '0.12.6' });
    else if (route === 'GET /api/tags') {
      sendJson(response, 200, { models: [...installed].map(tagEntry) });
    }
    // Ollama's router (gin) answers unknown routes and wrong methods alike.
    else sendText(response, 404, '404 page not found');
  });

  /** `/api/show`, with the fields mcphost reads (the real answer also has the template, license…). */
  function answerShow(body: unknown, response: ServerResponse): void {
    const name = modelNameIn(body);
    if (name === '') {
      sendJson(response, 400, { error: 'model is required' });
      return;
    }
    if (!installed.has(normalizeModelName(name))) {
      sendJson(response, 404, { error: `model '${name}' not found` });
      return;
    }
    sendJson(response, 200, {
      parameters:
        options.numCtx === undefined ? 'stop "<|eot_id|>"' : `num_ctx ${options.numCtx}\nstop "<|eot_id|>"`,
      details: { format: 'gguf', family: 'llama' },
      model_info: {
        'general.architecture': 'llama',
        'llama.context_length': options.trainedContextLength ?? 131_072,
      },
      capabilities: withoutTools.has(normalizeModelName(name)) ? ['completion'] : ['completion', 'tools'],
    });
  }

  return {
    url: server.url,
    requests,
    chatRequests,
    truncatedChats,
    push: (...items) => queue.push(...items),
    pending: () => queue.length,
    waitForIdle: () =>
      openAnswers === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve)),
    close: () => server.close(),
  };
}

async function answerChat(
  response: ServerResponse,
  chat: FakeChatRequest,
  reply: FakeOllamaReply,
): Promise<void> {
  switch (reply.type) {
    case 'error': {
      const contentType =
        reply.contentType ??
        (reply.body === undefined ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8');
      response.writeHead(reply.status, { 'content-type': contentType, ...reply.headers });
      response.end(reply.body ?? JSON.stringify({ error: reply.error ?? 'fake ollama error' }));
      return;
    }
    case 'hang-up':
      response.socket?.destroy();
      return;
    case 'raw':
      response.writeHead(200, { 'content-type': reply.contentType ?? 'application/x-ndjson' });
      response.end(reply.body);
      return;
    case 'stream-error':
      if (!chat.stream) {
        sendJson(response, 500, { error: reply.error });
        return;
      }
      startStream(response);
      for (const text of reply.text ?? []) writeLine(response, textLine(chat.model, text));
      writeLine(response, { error: reply.error });
      response.end();
      return;
    case 'stall':
      startStream(response);
      for (const text of reply.text ?? []) writeLine(response, textLine(chat.model, text));
      await new Promise<void>((resolve) =>
        response.once('close', () => {
          resolve();
        }),
      );
      return;
    case 'answer':
      return sendAnswer(response, chat, reply);
    case 'format': {
      const problem = await schemaProblem(chat.format, reply.value, 'format');
      if (problem !== undefined) {
        sendJson(response, 500, { error: `fake ollama: ${problem}` });
        return;
      }
      const text = JSON.stringify(reply.value);
      // Pieces of a few characters: the client must stream the answer out of the JSON as it comes.
      const pieces = text.match(/[\s\S]{1,7}/g) ?? [];
      return sendAnswer(response, chat, { type: 'answer', text: pieces });
    }
    default: {
      const unexpected: never = reply;
      throw new TypeError(`unknown fake reply ${JSON.stringify(unexpected)}`);
    }
  }
}

async function sendAnswer(
  response: ServerResponse,
  chat: FakeChatRequest,
  reply: Extract<FakeOllamaReply, { type: 'answer' }>,
): Promise<void> {
  const texts = typeof reply.text === 'string' ? [reply.text] : (reply.text ?? []);
  const calls = (reply.toolCalls ?? []).map((call) => ({
    function: { name: call.name, arguments: call.arguments },
  }));
  const final = finalLine(
    chat.model,
    reply.doneReason ?? 'stop',
    reply.promptEvalCount ?? 10 * chat.messages.length,
    reply.evalCount ?? texts.length + calls.length,
  );
  if (!chat.stream) {
    const thinking = (reply.thinking ?? []).join('');
    const message = {
      role: 'assistant',
      content: texts.join(''),
      ...(thinking === '' ? {} : { thinking }),
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    };
    sendJson(response, 200, { ...final, message });
    return;
  }
  startStream(response);
  const lines = [
    ...(reply.thinking ?? []).map((thinking) => ({
      ...textLine(chat.model, ''),
      message: { role: 'assistant', content: '', thinking },
    })),
    ...texts.map((text) => textLine(chat.model, text)),
    ...calls.map((call) => ({
      ...textLine(chat.model, ''),
      message: { role: 'assistant', content: '', tool_calls: [call] },
    })),
    final,
  ];
  for (const line of lines) {
    if (response.destroyed) return;
    if (reply.chunkDelayMs !== undefined) await delay(reply.chunkDelayMs);
    writeLine(response, line);
  }
  for (const text of reply.afterDone ?? []) {
    await delay(reply.chunkDelayMs ?? 20);
    if (!response.destroyed) writeLine(response, textLine(chat.model, text));
  }
  response.end();
}
