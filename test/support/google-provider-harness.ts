/** Starts the loopback Gemini fake with a GoogleProvider pointed at it, and reads what it saw. */
import { expect } from 'vitest';
import { GoogleProvider } from '../../providers/google.js';
import { ProviderError } from '../../src/core/errors.js';
import type { ChatRequest, ProviderEvent, ToolCallBlock } from '../../src/core/types.js';
import {
  FAKE_GEMINI_KEY,
  startFakeGemini,
  type FakeGemini,
  type FakeGeminiOptions,
  type FakeGeminiScript,
} from '../fakes/gemini-server.js';
import { TOOLS } from '../fixtures/conversation.js';

export const MODEL = 'gemini-2.5-flash';
let fake: FakeGemini | undefined;

/** For `afterEach`: closes the fake the last {@link start} opened. */
export async function closeFake(): Promise<void> {
  await fake?.close();
  fake = undefined;
}

/** A fake without a provider, for tests that build their own; closed by {@link closeFake}. */
export async function startFake(script: FakeGeminiScript, options?: FakeGeminiOptions): Promise<FakeGemini> {
  fake = await startFakeGemini(script, options);
  return fake;
}

export async function start(
  script: FakeGeminiScript,
  options?: FakeGeminiOptions,
): Promise<{ fake: FakeGemini; provider: GoogleProvider }> {
  fake = await startFakeGemini(script, options);
  const provider = new GoogleProvider({
    model: MODEL,
    baseUrl: fake.url,
    env: { GEMINI_API_KEY: FAKE_GEMINI_KEY },
  });
  return { fake, provider };
}

export const ask = (text: string, overrides: Partial<ChatRequest> = {}): ChatRequest => ({
  messages: [{ role: 'user', content: [{ type: 'text', text }] }],
  tools: TOOLS,
  settings: {},
  ...overrides,
});

export async function collect(provider: GoogleProvider, request: ChatRequest): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of provider.chat(request)) events.push(event);
  return events;
}

export async function failure(provider: GoogleProvider, request: ChatRequest): Promise<unknown> {
  return collect(provider, request).then(
    () => expect.fail('the call should have failed'),
    (error: unknown) => error,
  );
}

export function asProviderError(error: unknown): ProviderError {
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

export const callsOf = (events: readonly ProviderEvent[]): ToolCallBlock[] =>
  events.flatMap((event) => (event.type === 'tool-call' ? [event.call] : []));

export type Json = Record<string, unknown>;
export const bodyOf = (server: FakeGemini, index: number): Json => server.requests[index]?.body as Json;
