/** The Gemini fake itself: it must refuse what the real API refuses, and speak its wire format. */
import { afterEach, describe, expect, it } from 'vitest';
import { FAKE_GEMINI_KEY, startFakeGemini, textAnswer, type FakeGemini } from '../fakes/gemini-server.js';
import {
  signatureKey,
  validateGenerateContentBody,
  type FakeGeminiError,
} from '../fakes/gemini-validation.js';

const context = { gemini3: false };
const user = (text: string) => ({ role: 'user', parts: [{ text }] });
const withTool = (declaration: Record<string, unknown>) => ({
  contents: [user('hi')],
  tools: [{ functionDeclarations: [declaration] }],
});
const messageOf = (body: unknown): string | undefined => validateGenerateContentBody(body, context)?.message;

describe('Gemini fake validation: function declarations', () => {
  it('accepts names with dots, colons and dashes up to 64 characters, and refuses the rest', () => {
    expect(messageOf(withTool({ name: 'srv.v2:tool-name_1' }))).toBeUndefined();
    expect(messageOf(withTool({ name: `_${'a'.repeat(63)}` }))).toBeUndefined();
    for (const name of ['1tool', 'has space', 'slash/name', `a${'b'.repeat(64)}`, '']) {
      expect(messageOf(withTool({ name }))).toMatch(/Invalid function name/);
    }
  });

  it('refuses duplicate names and both parameters forms at once', () => {
    const duplicate = {
      contents: [user('hi')],
      tools: [{ functionDeclarations: [{ name: 'a' }] }, { functionDeclarations: [{ name: 'a' }] }],
    };
    expect(messageOf(duplicate)).toMatch(/Duplicate function declaration found: a/);
    const both = withTool({
      name: 'a',
      parameters: { type: 'OBJECT', properties: { x: { type: 'STRING' } } },
      parametersJsonSchema: { type: 'object' },
    });
    expect(messageOf(both)).toMatch(/mutually exclusive/);
  });

  it('holds `parameters` to the OpenAPI subset, as the real API does', () => {
    const parameters = (schema: Record<string, unknown>) =>
      messageOf(withTool({ name: 'f', parameters: schema }));
    expect(
      parameters({
        type: 'object',
        properties: { a: { type: 'string', default: 'x', nullable: true } },
        required: ['a'],
      }),
    ).toBeUndefined();
    expect(
      parameters({
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { a: { type: 'string' } },
      }),
    ).toBe(
      `Invalid JSON payload received. Unknown name "$schema" at 'tools[0].function_declarations[0].parameters': Cannot find field.`,
    );
    expect(
      parameters({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false }),
    ).toMatch(/Unknown name "additionalProperties"/);
    expect(parameters({ type: 'object', properties: { a: { $ref: '#/$defs/A' } } })).toMatch(
      /Unknown name "\$ref"/,
    );
    expect(parameters({ type: 'object', properties: { head: { type: ['number', 'null'] } } })).toMatch(
      /Invalid value at .*type' \(type\.googleapis\.com\/google\.ai\.generativelanguage\.v1beta\.Type\), \["number","null"\]/,
    );
    expect(parameters({ type: 'object', properties: { a: { type: 'string', format: 'uri' } } })).toMatch(
      /only 'enum' and 'date-time'/,
    );
    expect(parameters({ type: 'object', properties: {} })).toMatch(/should be non-empty for OBJECT type/);
    expect(parameters({ type: 'object', properties: { a: { type: 'array' } } })).toMatch(
      /items: missing field/,
    );
    expect(parameters({ type: 'object', properties: { a: { type: 'string' } }, required: ['b'] })).toMatch(
      /required\[0\]: property is not defined/,
    );
  });

  it('holds `parametersJsonSchema` to what the JSON Schema mode accepts', () => {
    const jsonSchema = (schema: unknown) => messageOf(withTool({ name: 'f', parametersJsonSchema: schema }));
    expect(
      jsonSchema({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: { A: { type: 'string' } },
        properties: {
          a: { $ref: '#/$defs/A', description: 'ok beside $ref' },
          b: { type: ['number', 'null'] },
        },
        additionalProperties: false,
      }),
    ).toBeUndefined();
    expect(jsonSchema({ type: 'string' })).toMatch(/must describe an object/);
    expect(jsonSchema({ type: 'object', properties: { a: { $ref: '#/$defs/Missing' } } })).toBe(
      'reference to undefined schema at properties.a',
    );
    expect(
      jsonSchema({
        type: 'object',
        $defs: { A: { type: 'string' } },
        properties: { a: { $ref: '#/$defs/A', title: 'A' } },
      }),
    ).toMatch(/\$ref '#\/\$defs\/A' was set alongside unsupported fields/);
    expect(jsonSchema({ type: 'object', properties: { a: { type: 'text' } } })).toMatch(
      /unknown type "text"/,
    );
  });
});

describe('Gemini fake validation: contents', () => {
  const call = (name: string) => ({ functionCall: { name, args: {} } });
  const response = (name: string) => ({ functionResponse: { name, response: { output: 'x' } } });

  it('refuses empty contents, empty parts, parts without data, and unknown roles', () => {
    expect(messageOf({ contents: [] })).toMatch(/contents is not specified/);
    expect(messageOf({ contents: [{ role: 'user', parts: [] }] })).toMatch(
      /contents\[0\]\.parts: contents\.parts must not be empty/,
    );
    expect(messageOf({ contents: [{ role: 'user', parts: [{ thoughtSignature: 'x' }] }] })).toMatch(
      /required oneof field 'data'/,
    );
    expect(messageOf({ contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] })).toBe(
      'Please use a valid role: user, model.',
    );
    expect(messageOf({ contents: [user('x')], config: {} })).toMatch(/Unknown name "config"/);
  });

  it('requires a function response for every call of the turn before', () => {
    const ok = [
      user('go'),
      { role: 'model', parts: [call('a'), call('b')] },
      { role: 'user', parts: [response('a'), response('b')] },
    ];
    expect(messageOf({ contents: ok })).toBeUndefined();
    const short = [ok[0], ok[1], { role: 'user', parts: [response('a')] }];
    expect(messageOf({ contents: short })).toBe(
      'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.',
    );
    const orphan = [user('go'), { role: 'user', parts: [response('a')] }];
    expect(messageOf({ contents: orphan })).toBe(
      'Please ensure that function response turn comes immediately after a function call turn.',
    );
    const callFirst = [{ role: 'model', parts: [call('a')] }];
    expect(messageOf({ contents: callFirst })).toMatch(
      /function call turn comes immediately after a user turn/,
    );
    const renamed = [ok[0], ok[1], { role: 'user', parts: [response('a'), response('c')] }];
    expect(messageOf({ contents: renamed })).toMatch(/do not match the function calls/);
  });

  it('refuses functionResponse.parts except for Gemini 3 models', () => {
    const multimodal = {
      contents: [
        user('go'),
        { role: 'model', parts: [call('a')] },
        {
          role: 'user',
          parts: [
            {
              functionResponse: {
                name: 'a',
                response: {},
                parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }],
              },
            },
          ],
        },
      ],
    };
    expect(messageOf(multimodal)).toBe('function_response.parts is not supported for this model.');
    expect(validateGenerateContentBody(multimodal, { gemini3: true })).toBeUndefined();
  });

  it('requires issued thought signatures back, unchanged, within the current turn', () => {
    const issuedSignatures = new Map([[signatureKey('a', {}), ['sig-1']]]);
    const contents = (signature: string | undefined) => [
      user('go'),
      {
        role: 'model',
        parts: [{ ...call('a'), ...(signature === undefined ? {} : { thoughtSignature: signature }) }],
      },
      { role: 'user', parts: [response('a')] },
    ];
    const check = (body: unknown): FakeGeminiError | undefined =>
      validateGenerateContentBody(body, { gemini3: true, issuedSignatures });
    expect(check({ contents: contents('sig-1') })).toBeUndefined();
    expect(check({ contents: contents(undefined) })?.message).toMatch(
      /missing a thought_signature .* function call `a` , position 1/,
    );
    expect(check({ contents: contents('forged') })?.message).toBe('Corrupted thought signature.');
    // An earlier turn (before a new user message) is not checked, as with the real API.
    expect(
      check({
        contents: [...contents(undefined), { role: 'model', parts: [{ text: 'done' }] }, user('next')],
      }),
    ).toBeUndefined();
  });
});

describe('Gemini fake over HTTP', () => {
  let fake: FakeGemini | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${fake!.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const hello = { contents: [user('hello')] };

  it('answers 403 without a key and 400 API_KEY_INVALID with a wrong one, like the real API', async () => {
    fake = await startFakeGemini([textAnswer('x')]);
    const missing = await post('/v1beta/models/m:generateContent', hello);
    expect(missing.status).toBe(403);
    expect(await missing.json()).toMatchObject({ error: { code: 403, status: 'PERMISSION_DENIED' } });
    const wrong = await post('/v1beta/models/m:generateContent', hello, { 'x-goog-api-key': 'nope' });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({
      error: { status: 'INVALID_ARGUMENT', details: [{ reason: 'API_KEY_INVALID' }] },
    });
  });

  it('serves generateContent as JSON (key in the query) and streamGenerateContent as SSE', async () => {
    fake = await startFakeGemini(() => ({
      type: 'answer',
      parts: [
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
      ],
    }));
    const json = await post(`/v1beta/models/m:generateContent?key=${FAKE_GEMINI_KEY}`, hello);
    expect(await json.json()).toMatchObject({
      candidates: [
        { content: { role: 'model', parts: [{ text: 'a' }, { text: 'b' }] }, finishReason: 'STOP' },
      ],
    });
    const sse = await post('/v1beta/models/m:streamGenerateContent?alt=sse', hello, {
      'x-goog-api-key': FAKE_GEMINI_KEY,
    });
    expect(sse.headers.get('content-type')).toBe('text/event-stream');
    const events = (await sse.text()).split('\r\n\r\n').filter((event) => event !== '');
    expect(
      events.map((event) => (JSON.parse(event.replace(/^data: /, '')) as { candidates: unknown }).candidates),
    ).toEqual([
      [{ content: { parts: [{ text: 'a' }], role: 'model' }, index: 0 }],
      [{ content: { parts: [{ text: 'b' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
    ]);
    expect(fake.requests.map((request) => request.method)).toEqual([
      'generateContent',
      'streamGenerateContent',
    ]);
  });

  it('records refused requests with the error it answered', async () => {
    fake = await startFakeGemini([textAnswer('x')]);
    const response = await post(
      '/v1beta/models/m:streamGenerateContent?alt=sse',
      { contents: [] },
      { 'x-goog-api-key': FAKE_GEMINI_KEY },
    );
    expect(response.status).toBe(400);
    expect(fake.requests[0]?.rejected?.message).toMatch(/contents is not specified/);
  });
});
