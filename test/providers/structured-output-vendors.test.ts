/**
 * Answers that match a schema, through each vendor's real SDK client against its loopback fake:
 * the Runner with a tool, a first answer in prose (refused by the Runner's check), then the
 * answer step without tools, where each vendor's native structured output applies. Each fake
 * checks the structured-output fields as its vendor does, and the tests show what it refuses.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../providers/anthropic.js';
import { FINAL_ANSWER_TOOL } from '../../providers/anthropic-final-answer.js';
import { GoogleProvider } from '../../providers/google.js';
import { OllamaProvider } from '../../providers/ollama.js';
import { OpenAIProvider } from '../../providers/openai.js';
import { Runner } from '../../src/core/runner.js';
import type { JsonSchemaObject, Provider } from '../../src/core/types.js';
import { startFakeAnthropic, textAnswer } from '../fakes/anthropic-server.js';
import { FAKE_GEMINI_KEY, startFakeGemini, type FakeGeminiReply } from '../fakes/gemini-server.js';
import { startFakeOllama, textReply, toolCallReply } from '../fakes/ollama-server.js';
import { startFakeOpenAI } from '../fakes/openai-server.js';
import { FakeToolHost } from '../support/fake-tool-host.js';

/** Keeps OpenAI's strict rules: every property required, no extra properties. */
const city: JsonSchemaObject = {
  title: 'city',
  type: 'object',
  properties: { name: { type: 'string' }, population: { type: 'integer' } },
  required: ['name', 'population'],
  additionalProperties: false,
};
/** Valid JSON Schema that OpenAI's strict mode refuses (an optional property, `minLength`). */
const looseCity: JsonSchemaObject = {
  type: 'object',
  properties: { name: { type: 'string', minLength: 1 }, population: { type: 'integer' } },
  required: ['name'],
};
const ANSWER = '{"name":"Lyon","population":522000}';
const VALUE = { name: 'Lyon', population: 522000 };

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function runnerFor(provider: Provider, outputSchema: JsonSchemaObject): Runner {
  const tools = new FakeToolHost({ atlas__lookup: () => 'Lyon: 522,000 people' });
  return new Runner({ provider, tools, outputSchema });
}

describe('OpenAI: response_format json_schema', () => {
  it('sends the schema on every step, strict when it keeps strict rules, and returns the value', async () => {
    const fake = await startFakeOpenAI([
      { type: 'tool-calls', calls: [{ id: 'call_1', name: 'atlas__lookup', arguments: '{}' }] },
      { type: 'text', text: 'Lyon has about 522,000 people.' },
      { type: 'text', text: ANSWER },
    ]);
    closers.push(() => fake.close());
    const provider = new OpenAIProvider({ model: 'gpt-test', baseUrl: fake.url, apiKey: 'k', env: {} });
    const result = await runnerFor(provider, city).run('How many people live in Lyon?');
    expect(result.structured).toEqual(VALUE);
    expect(fake.requests).toHaveLength(3);
    for (const request of fake.requests) {
      expect(request.body.response_format).toEqual({
        type: 'json_schema',
        json_schema: { name: 'city', schema: city, strict: true },
      });
    }
    expect(fake.requests.map((request) => Array.isArray(request.body.tools))).toEqual([true, true, false]);
  });

  it('sends a schema outside strict mode with strict: false, which the API takes', async () => {
    const fake = await startFakeOpenAI([{ type: 'text', text: '{"name":"Lyon"}' }]);
    closers.push(() => fake.close());
    const provider = new OpenAIProvider({ model: 'gpt-test', baseUrl: fake.url, apiKey: 'k', env: {} });
    const result = await new Runner({ provider }).run('Lyon?', { outputSchema: looseCity });
    expect(result.structured).toEqual({ name: 'Lyon' });
    const format = fake.requests[0]?.body.response_format as { json_schema: { strict: boolean } };
    expect(format.json_schema.strict).toBe(false);
  });

  it('the fake refuses the same schema with strict: true, as OpenAI does', async () => {
    const fake = await startFakeOpenAI([]);
    closers.push(() => fake.close());
    const post = async (schema: JsonSchemaObject) => {
      const response = await fetch(`${fake.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
        body: JSON.stringify({
          model: 'gpt-test',
          messages: [{ role: 'user', content: 'Lyon?' }],
          response_format: { type: 'json_schema', json_schema: { name: 'city', schema, strict: true } },
        }),
      });
      return { status: response.status, body: (await response.json()) as { error: { message: string } } };
    };
    const loose = await post(looseCity);
    expect(loose.status).toBe(400);
    expect(loose.body.error.message).toBe(
      "Invalid schema for response_format 'city': In context=(), 'additionalProperties' is required to be supplied and to be false.",
    );
    const optional = await post({ ...looseCity, additionalProperties: false });
    expect(optional.body.error.message).toContain("Missing 'population'");
    const keyword = await post({
      ...city,
      properties: { name: { type: 'string', minLength: 1 } },
      required: ['name'],
    });
    expect(keyword.body.error.message).toBe(
      "Invalid schema for response_format 'city': In context=('properties', 'name'), 'minLength' is not permitted.",
    );
  });
});

describe('Gemini: JSON mode with responseJsonSchema', () => {
  const model = 'gemini-2.5-flash';
  const text = (value: string): FakeGeminiReply => ({
    type: 'answer',
    parts: [{ type: 'text', text: value }],
  });

  it('never sends JSON mode beside function declarations, and sends it on the answer step', async () => {
    const fake = await startFakeGemini([
      { type: 'answer', parts: [{ type: 'function-call', name: 'atlas__lookup', args: {} }] },
      text('Lyon has about 522,000 people.'),
      text(ANSWER),
    ]);
    closers.push(() => fake.close());
    const provider = new GoogleProvider({
      model,
      baseUrl: fake.url,
      env: { GEMINI_API_KEY: FAKE_GEMINI_KEY },
    });
    const result = await runnerFor(provider, city).run('How many people live in Lyon?');
    expect(result.structured).toEqual(VALUE);
    expect(fake.requests.map((request) => request.rejected)).toEqual([undefined, undefined, undefined]);
    const bodies = fake.requests.map((request) => request.body as Record<string, Record<string, unknown>>);
    expect(bodies.map((body) => body.generationConfig?.responseMimeType)).toEqual([
      undefined,
      undefined,
      'application/json',
    ]);
    expect(bodies[2]?.generationConfig?.responseJsonSchema).toEqual(city);
    expect(bodies[2]?.tools).toBeUndefined();
  });

  it('the fake refuses JSON mode beside function declarations (Gemini 2.x), as the API does', async () => {
    const fake = await startFakeGemini([text(ANSWER)]);
    closers.push(() => fake.close());
    const response = await fetch(`${fake.url}/v1beta/models/${model}:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': FAKE_GEMINI_KEY },
      body: JSON.stringify({
        contents: [{ role: 'user', parts: [{ text: 'Lyon?' }] }],
        tools: [
          { functionDeclarations: [{ name: 'atlas__lookup', parametersJsonSchema: { type: 'object' } }] },
        ],
        generationConfig: { responseMimeType: 'application/json', responseJsonSchema: city },
      }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string; status: string } };
    expect(body.error).toMatchObject({
      status: 'INVALID_ARGUMENT',
      message: "Function calling with a response mime type: 'application/json' is unsupported",
    });
  });
});

describe('Ollama: format', () => {
  it('sends the schema as format on the step without tools only, and returns the value', async () => {
    const fake = await startFakeOllama([
      toolCallReply(['atlas__lookup', {}]),
      textReply('Lyon has about 522,000 people.'),
      textReply(ANSWER),
    ]);
    closers.push(() => fake.close());
    const provider = new OllamaProvider({ model: 'qwen2.5:3b', baseUrl: fake.url, env: {} });
    const result = await runnerFor(provider, city).run('How many people live in Lyon?');
    expect(result.structured).toEqual(VALUE);
    expect(fake.chatRequests.map((request) => request.format)).toEqual([undefined, undefined, city]);
    expect(fake.chatRequests[2]?.tools).toBeUndefined();
  });

  it('the fake refuses a format that is neither "json" nor a schema, as Ollama does', async () => {
    const fake = await startFakeOllama([textReply('x')]);
    closers.push(() => fake.close());
    const response = await fetch(`${fake.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'qwen2.5:3b',
        messages: [{ role: 'user', content: 'x' }],
        format: 'yaml',
      }),
    });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      error: 'invalid format: "\\"yaml\\""; expected "json" or a valid JSON Schema object',
    });
  });
});

describe('Anthropic: a final-answer tool', () => {
  it('offers it beside the tools with tool_choice any, forces it alone on the answer step', async () => {
    const fake = await startFakeAnthropic([
      { type: 'answer', content: [{ type: 'tool_use', id: 'toolu_1', name: 'atlas__lookup', input: {} }] },
      // The final-answer tool, with an input the schema refuses (no population).
      {
        type: 'answer',
        content: [{ type: 'tool_use', id: 'toolu_2', name: FINAL_ANSWER_TOOL, input: { name: 'Lyon' } }],
      },
      {
        type: 'answer',
        content: [{ type: 'tool_use', id: 'toolu_3', name: FINAL_ANSWER_TOOL, input: VALUE }],
      },
    ]);
    closers.push(() => fake.close());
    const provider = new AnthropicProvider({
      model: 'claude-sonnet-4-5',
      apiKey: 'k',
      baseUrl: fake.url,
      env: {},
    });
    const runner = runnerFor(provider, city);
    const result = await runner.run('How many people live in Lyon?');
    expect(result.structured).toEqual(VALUE);
    expect(result.text).toBe(ANSWER);
    expect(fake.requests.map((request) => request.rejected)).toEqual([undefined, undefined, undefined]);
    const bodies = fake.requests.map(
      (request) =>
        request.body as { tools: Array<{ name: string; input_schema: unknown }>; tool_choice: unknown },
    );
    expect(bodies.map((body) => body.tools.map((tool) => tool.name))).toEqual([
      ['atlas__lookup', FINAL_ANSWER_TOOL],
      ['atlas__lookup', FINAL_ANSWER_TOOL],
      [FINAL_ANSWER_TOOL],
    ]);
    expect(bodies.map((body) => body.tool_choice)).toEqual([
      { type: 'any' },
      { type: 'any' },
      { type: 'tool', name: FINAL_ANSWER_TOOL },
    ]);
    expect(bodies[0]?.tools[1]?.input_schema).toEqual(city);
    // The final answer joins the history as text: no call is left without a result.
    expect(runner.history.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: ANSWER }] });
  });

  it('the fake refuses a forced tool that is not offered, and a forcing choice without tools', async () => {
    const fake = await startFakeAnthropic([textAnswer('x'), textAnswer('x')]);
    closers.push(() => fake.close());
    const post = async (body: Record<string, unknown>) => {
      const response = await fetch(`${fake.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({
          model: 'm',
          max_tokens: 10,
          messages: [{ role: 'user', content: 'x' }],
          ...body,
        }),
      });
      return { status: response.status, body: (await response.json()) as { error: { message: string } } };
    };
    const missing = await post({
      tools: [{ name: 'atlas__lookup', input_schema: { type: 'object' } }],
      tool_choice: { type: 'tool', name: FINAL_ANSWER_TOOL },
    });
    expect(missing).toMatchObject({
      status: 400,
      body: { error: { message: `Tool '${FINAL_ANSWER_TOOL}' not found in provided tools` } },
    });
    const none = await post({ tool_choice: { type: 'any' } });
    expect(none.body.error.message).toBe('tool_choice may only be specified while providing tools.');
  });
});
