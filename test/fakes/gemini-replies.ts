/**
 * The Gemini fake's answers: the scripted reply types, and how each is encoded as Gemini sends it (a
 * `GenerateContentResponse`, streamed as `data: {…}` SSE events or a JSON array, or Google's error body).
 * The routes and request checks are in gemini-server.ts.
 */
import type { ServerResponse } from 'node:http';
import type { FakeGeminiError } from './gemini-validation.js';

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

/** A text answer, for short scripts. */
export function textAnswer(text: string): FakeGeminiReply {
  return { type: 'answer', parts: [{ type: 'text', text }] };
}

export function sendError(
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

/** Answers a valid request with its scripted reply, as a whole JSON response or streamed chunks. */
export async function send(
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
