/**
 * A loopback fake of the Gemini API (`POST /v1beta/models/{model}:generateContent` and
 * `:streamGenerateContent?alt=sse`), for the real @google/genai client to talk to.
 *
 * It checks the key (`x-goog-api-key` header or `key` query) and validates every request as the
 * real API does (gemini-validation.ts), records it, and answers from a script: a
 * `GenerateContentResponse` (streamed as `data: {…}` events, one part per event), or Google's error
 * body `{"error":{"code":…,"message":…,"status":…,"details":[…]}}` with its status. In Gemini 3
 * mode it signs the first function call of each answer (`thoughtSignature`) and requires the
 * signature back on later requests, as Gemini 3 models do.
 */
import { countFakeTokens } from './context-limit.js';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { readJsonBody, startLoopbackServer } from '../support/loopback.js';
import {
  signatureKey,
  validateApiKey,
  validateGenerateContentBody,
  type FakeGeminiError,
} from './gemini-validation.js';

/** A part of a scripted answer. */
export type FakeGeminiPart =
  | { readonly type: 'text'; readonly text: string; readonly thought?: boolean }
  | {
      readonly type: 'function-call';
      readonly name: string;
      readonly args?: Readonly<Record<string, unknown>>;
      /** Gemini usually sends no id; some models do. */
      readonly id?: string;
      /** Set to sign this call yourself; in Gemini 3 mode the first call is signed anyway. */
      readonly thoughtSignature?: string;
    };

/** Token counts as Gemini reports them. */
export interface FakeGeminiUsage {
  readonly promptTokenCount: number;
  readonly candidatesTokenCount: number;
  readonly thoughtsTokenCount?: number;
}

/** One scripted reply. */
export type FakeGeminiReply =
  /**
   * A complete answer; `finishReason` defaults to STOP. With no parts and another reason (as for
   * MALFORMED_FUNCTION_CALL), the candidate has no content, as the real API sends it.
   */
  | {
      readonly type: 'answer';
      readonly parts: readonly FakeGeminiPart[];
      readonly finishReason?: string;
      /** Gemini's explanation beside some finish reasons (`Malformed function call: …`). */
      readonly finishMessage?: string;
      readonly usage?: FakeGeminiUsage;
    }
  /**
   * Streams `parts` with no finish reason, then ends the response cleanly: a stream cut by a proxy
   * or a server that gave up, which the HTTP layer cannot tell from a whole one.
   */
  | { readonly type: 'cut'; readonly parts: readonly FakeGeminiPart[]; readonly usage?: FakeGeminiUsage }
  /** Streams `parts`, then drops the connection (a reset mid-answer, as a failing proxy does it). */
  | { readonly type: 'drop'; readonly parts: readonly FakeGeminiPart[] }
  /** The prompt was blocked: `promptFeedback.blockReason`, no candidates. */
  | { readonly type: 'blocked'; readonly blockReason: string }
  /** An HTTP error with Google's body. */
  | {
      readonly type: 'error';
      readonly code: number;
      readonly status: string;
      readonly message: string;
      readonly details?: readonly unknown[];
      readonly headers?: Readonly<Record<string, string>>;
    }
  /** A stream that sends `parts`, then an error object as the next event (the API does this mid-answer). */
  | {
      readonly type: 'stream-error';
      readonly parts: readonly FakeGeminiPart[];
      readonly code: number;
      readonly status: string;
      readonly message: string;
    }
  /** A stream that sends `parts`, then waits, never finishing, until the client goes away. */
  | { readonly type: 'stall'; readonly parts: readonly FakeGeminiPart[] }
  /** Streams `chunks` as they are, unsigned: for streams the real API would not send (the fuzzer's). */
  | { readonly type: 'chunks'; readonly chunks: readonly unknown[] };

/** A request as the fake received it. */
export interface RecordedGeminiRequest {
  /** `generateContent` or `streamGenerateContent`. */
  readonly method: string;
  /** The model from the path (`models/{model}:…`). */
  readonly model: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined when it was not JSON). */
  readonly body: unknown;
  /** The error the fake answered with when it refused the request. */
  readonly rejected?: FakeGeminiError;
}

/** Replies in order, or a function of each valid request (and its index among valid ones). */
export type FakeGeminiScript =
  readonly FakeGeminiReply[] | ((request: RecordedGeminiRequest, index: number) => FakeGeminiReply);

/** How the fake behaves beyond its script. */
export interface FakeGeminiOptions {
  /** The only key accepted. Defaults to {@link FAKE_GEMINI_KEY}. */
  readonly apiKey?: string;
  /** Gemini 3 mode: sign function calls, require the signatures back, take `functionResponse.parts`. */
  readonly gemini3?: boolean;
  /** Models that exist (others get 404 NOT_FOUND). Unset: every model exists. */
  readonly models?: readonly string[];
  /**
   * The model's input limit, in the fake's tokens ({@link countFakeTokens}): a longer request gets
   * Gemini's real refusal, a 400 `INVALID_ARGUMENT` "The input token count (N) exceeds the maximum
   * number of tokens allowed (LIMIT)."
   */
  readonly contextLimitTokens?: number;
}

/** A running fake. */
export interface FakeGemini {
  /** Base URL for the SDK (`httpOptions.baseUrl`) or `--provider-url`: `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** Every request received, valid or not, in order. */
  readonly requests: readonly RecordedGeminiRequest[];
  close(): Promise<void>;
}

/** The key the fake accepts unless told otherwise. */
export const FAKE_GEMINI_KEY = 'fake-gemini-key';

/** A text answer, for short scripts. */
export function textAnswer(text: string): FakeGeminiReply {
  return { type: 'answer', parts: [{ type: 'text', text }] };
}

const PATH = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

/** Starts a fake on a free loopback port. */
export async function startFakeGemini(
  script: FakeGeminiScript,
  options: FakeGeminiOptions = {},
): Promise<FakeGemini> {
  const requests: RecordedGeminiRequest[] = [];
  const issuedSignatures = new Map<string, string[]>();
  let answered = 0;
  let signatures = 0;
  const nextReply = (request: RecordedGeminiRequest): FakeGeminiReply => {
    const index = answered++;
    if (typeof script === 'function') return script(request, index);
    return (
      script[index] ?? {
        type: 'error',
        code: 500,
        status: 'INTERNAL',
        message: `fake: no reply scripted for request ${index}`,
      }
    );
  };
  const sign = (parts: readonly FakeGeminiPart[]): FakeGeminiPart[] => {
    let first = true;
    return parts.map((part) => {
      if (part.type !== 'function-call') return part;
      const signature =
        part.thoughtSignature ??
        (options.gemini3 === true && first ? `c2lnbmF0dXJl-${++signatures}` : undefined);
      first = false;
      if (signature === undefined) return part;
      const key = signatureKey(part.name, part.args);
      issuedSignatures.set(key, [...(issuedSignatures.get(key) ?? []), signature]);
      return { ...part, thoughtSignature: signature };
    });
  };
  const server = await startLoopbackServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const match = PATH.exec(url.pathname);
    if (request.method !== 'POST' || match === null) {
      sendError(response, {
        code: 404,
        status: 'NOT_FOUND',
        message: `Not found: ${request.method} ${url.pathname}`,
      });
      return;
    }
    const [, model = '', method = ''] = match;
    let body: unknown;
    try {
      body = await readJsonBody(request);
    } catch {
      body = undefined;
    }
    const rejected =
      validateApiKey(request.headers, url.searchParams, options.apiKey ?? FAKE_GEMINI_KEY) ??
      unknownModel(model, method, options.models) ??
      validateGenerateContentBody(body, { gemini3: options.gemini3 === true, issuedSignatures }) ??
      overContextLimit(body, options.contextLimitTokens);
    const recorded: RecordedGeminiRequest = {
      method,
      model,
      query: url.searchParams,
      headers: request.headers,
      body,
      ...(rejected === undefined ? {} : { rejected }),
    };
    requests.push(recorded);
    if (rejected !== undefined) {
      sendError(response, rejected);
      return;
    }
    const scripted = nextReply(recorded);
    const reply =
      scripted.type === 'answer' ||
      scripted.type === 'stall' ||
      scripted.type === 'stream-error' ||
      scripted.type === 'cut' ||
      scripted.type === 'drop'
        ? { ...scripted, parts: sign(scripted.parts) }
        : scripted;
    const streaming = method === 'streamGenerateContent';
    await send(response, reply, streaming, url.searchParams.get('alt') === 'sse', model);
  });
  return { url: server.url, requests, close: () => server.close() };
}

function overContextLimit(body: unknown, limit: number | undefined): FakeGeminiError | undefined {
  if (limit === undefined) return undefined;
  const tokens = countFakeTokens(body);
  if (tokens <= limit) return undefined;
  return {
    code: 400,
    status: 'INVALID_ARGUMENT',
    message: `The input token count (${tokens}) exceeds the maximum number of tokens allowed (${limit}).`,
  };
}

function unknownModel(
  model: string,
  method: string,
  models: readonly string[] | undefined,
): FakeGeminiError | undefined {
  if (models === undefined || models.includes(model)) return undefined;
  return {
    code: 404,
    status: 'NOT_FOUND',
    message: `models/${model} is not found for API version v1beta, or is not supported for ${method}. Call ListModels to see the list of available models and their supported methods.`,
  };
}

function sendError(
  response: ServerResponse,
  error: FakeGeminiError,
  headers: Readonly<Record<string, string>> = {},
): void {
  response.writeHead(error.code, { 'content-type': 'application/json; charset=UTF-8', ...headers });
  const body = {
    code: error.code,
    message: error.message,
    status: error.status,
    ...(error.details ? { details: error.details } : {}),
  };
  response.end(JSON.stringify({ error: body }, null, 2));
}

async function send(
  response: ServerResponse,
  reply: FakeGeminiReply,
  streaming: boolean,
  sse: boolean,
  model: string,
) {
  switch (reply.type) {
    case 'error':
      sendError(
        response,
        {
          code: reply.code,
          status: reply.status,
          message: reply.message,
          ...(reply.details ? { details: reply.details } : {}),
        },
        reply.headers,
      );
      return;
    case 'blocked': {
      const chunk = {
        promptFeedback: { blockReason: reply.blockReason },
        usageMetadata: usageJson(undefined),
        modelVersion: model,
      };
      if (streaming) sendChunks(response, [chunk], sse);
      else sendJson(response, chunk);
      return;
    }
    case 'answer': {
      const finishReason = reply.finishReason ?? 'STOP';
      const finish = { finishReason, finishMessage: reply.finishMessage };
      if (reply.parts.length === 0 && finishReason !== 'STOP') {
        const chunk = responseJson(model, undefined, finish, reply.usage);
        if (streaming) sendChunks(response, [chunk], sse);
        else sendJson(response, chunk);
        return;
      }
      if (!streaming) {
        sendJson(response, responseJson(model, reply.parts.map(partJson), finish, reply.usage));
        return;
      }
      const parts: Array<Record<string, unknown>> =
        reply.parts.length === 0 ? [{ text: '' }] : reply.parts.map(partJson);
      const chunks = parts.map((part, index) =>
        responseJson(model, [part], index === parts.length - 1 ? finish : undefined, reply.usage),
      );
      sendChunks(response, chunks, sse);
      return;
    }
    case 'cut': {
      const chunks = reply.parts.map((part) => responseJson(model, [partJson(part)], undefined, reply.usage));
      if (streaming) sendChunks(response, chunks, sse);
      // A whole JSON answer cannot be cut cleanly: the request is answered as if the stream broke.
      else response.socket?.destroy();
      return;
    }
    case 'drop': {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const part of reply.parts) {
        response.write(
          `data: ${JSON.stringify(responseJson(model, [partJson(part)], undefined, undefined))}\r\n\r\n`,
        );
      }
      // Flushed first, so the client has begun reading the answer when the connection goes.
      setTimeout(() => response.socket?.destroy(), 50);
      return;
    }
    case 'stream-error': {
      const error = { code: reply.code, message: reply.message, status: reply.status };
      if (!streaming) {
        sendError(response, error);
        return;
      }
      const chunks = reply.parts.map((part) => responseJson(model, [partJson(part)], undefined, undefined));
      sendChunks(response, [...chunks, { error }], sse);
      return;
    }
    case 'chunks':
      sendChunks(response, reply.chunks, sse);
      return;
    case 'stall': {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const part of reply.parts)
        response.write(
          `data: ${JSON.stringify(responseJson(model, [partJson(part)], undefined, undefined))}\r\n\r\n`,
        );
      // Never ends: the client must abort (close() ends it too).
      await new Promise<void>((resolve) => response.on('close', resolve));
      return;
    }
    default: {
      const unexpected: never = reply;
      throw new Error(`fake: unknown reply ${JSON.stringify(unexpected)}`);
    }
  }
}

/** SSE with `alt=sse` (what the SDK asks for); without it, the API streams one JSON array. */
function sendChunks(response: ServerResponse, chunks: readonly unknown[], sse: boolean): void {
  if (!sse) {
    sendJson(response, chunks);
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const chunk of chunks) response.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
  response.end();
}

function sendJson(response: ServerResponse, body: unknown): void {
  response.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
  response.end(JSON.stringify(body));
}

function partJson(part: FakeGeminiPart): Record<string, unknown> {
  if (part.type === 'text')
    return part.thought === true ? { text: part.text, thought: true } : { text: part.text };
  const functionCall = {
    ...(part.id === undefined ? {} : { id: part.id }),
    name: part.name,
    args: part.args ?? {},
  };
  return part.thoughtSignature === undefined
    ? { functionCall }
    : { functionCall, thoughtSignature: part.thoughtSignature };
}

/** A response (or one streamed chunk). No `parts`: a candidate without content. */
function responseJson(
  model: string,
  parts: readonly unknown[] | undefined,
  finish: { readonly finishReason: string; readonly finishMessage?: string | undefined } | undefined,
  usage: FakeGeminiUsage | undefined,
) {
  return {
    candidates: [
      {
        ...(parts === undefined ? {} : { content: { parts, role: 'model' } }),
        ...(finish === undefined ? {} : { finishReason: finish.finishReason }),
        ...(finish?.finishMessage === undefined ? {} : { finishMessage: finish.finishMessage }),
        index: 0,
      },
    ],
    // Like the real API, every chunk repeats the running totals.
    usageMetadata: usageJson(usage),
    modelVersion: model,
    responseId: 'fake-response',
  };
}

function usageJson(usage: FakeGeminiUsage | undefined) {
  const {
    promptTokenCount,
    candidatesTokenCount,
    thoughtsTokenCount = 0,
  } = usage ?? { promptTokenCount: 12, candidatesTokenCount: 5 };
  return {
    promptTokenCount,
    candidatesTokenCount,
    ...(thoughtsTokenCount === 0 ? {} : { thoughtsTokenCount }),
    totalTokenCount: promptTokenCount + candidatesTokenCount + thoughtsTokenCount,
  };
}
