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
import type { IncomingHttpHeaders } from 'node:http';
import { readJsonBody, startLoopbackServer } from '../support/loopback.js';
import { send, sendError, type FakeGeminiPart, type FakeGeminiReply } from './gemini-replies.js';
import {
  signatureKey,
  validateApiKey,
  validateGenerateContentBody,
  type FakeGeminiError,
} from './gemini-validation.js';

export {
  textAnswer,
  type FakeGeminiPart,
  type FakeGeminiReply,
  type FakeGeminiUsage,
} from './gemini-replies.js';

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
