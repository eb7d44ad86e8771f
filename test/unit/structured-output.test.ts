import { describe, expect, it } from 'vitest';
import { AbortedError, ConfigError, StructuredOutputError } from '../../src/core/errors.js';
import { Runner } from '../../src/core/runner.js';
import {
  compileOutputSchema,
  DEFAULT_OUTPUT_SCHEMA_RETRIES,
  WRAPPED_ANSWER_KEY,
} from '../../src/core/structured-output.js';
import type { JsonSchemaObject } from '../../src/core/types.js';
import { FakeToolHost } from '../support/fake-tool-host.js';
import { ScriptedProvider, textReply, toolReply } from '../support/scripted-provider.js';

const person: JsonSchemaObject = {
  title: 'person record',
  type: 'object',
  properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } },
  required: ['name', 'age'],
  additionalProperties: false,
};

function textOf(message: { readonly content: readonly unknown[] } | undefined): string {
  return (message?.content ?? [])
    .map((block) => (block as { type: string; text?: string }).text ?? '')
    .join('');
}

describe('answers that match a schema', () => {
  it('returns the parsed value of a valid first answer, and tells the model the schema', async () => {
    const provider = new ScriptedProvider([textReply('{"name":"Ada","age":36}')]);
    const runner = new Runner({ provider, systemPrompt: 'be brief' });
    const result = await runner.run('who?', { outputSchema: person });
    expect(result.structured).toEqual({ name: 'Ada', age: 36 });
    expect(result.text).toBe('{"name":"Ada","age":36}');
    expect(result.steps).toBe(1);
    const request = provider.requests[0];
    expect(request?.responseFormat).toEqual({ type: 'json-schema', name: 'person_record', schema: person });
    expect(request?.system).toMatch(/^be brief\n\nYour final answer must be only a JSON value/);
    expect(request?.system).toContain(JSON.stringify(person));
  });

  it('sends a refused answer back with its problems, without tools, and takes the corrected one', async () => {
    const tools = new FakeToolHost({ files__read: () => 'Ada, 36' });
    const provider = new ScriptedProvider([
      toolReply({ id: 'c1', name: 'files__read', input: {} }),
      textReply('Ada is 36.'),
      textReply('{"name":"Ada","age":-1,"extra":true}'),
      textReply('```json\n{"name":"Ada","age":36}\n```'),
    ]);
    const runner = new Runner({ provider, tools, outputSchema: person });
    const result = await runner.run('who?');
    expect(result.structured).toEqual({ name: 'Ada', age: 36 });
    expect(result.steps).toBe(4);
    // Tools on the steps before the first answer, none after a refusal.
    expect(provider.requests.map((request) => request.tools.length)).toEqual([1, 1, 0, 0]);
    expect(provider.requests.every((request) => request.responseFormat?.type === 'json-schema')).toBe(true);
    const firstFollowUp = textOf(provider.requests[2]?.messages.at(-1));
    expect(firstFollowUp).toContain('the answer is not JSON');
    const secondFollowUp = textOf(provider.requests[3]?.messages.at(-1));
    expect(secondFollowUp).toContain('/age must be >= 0');
    expect(secondFollowUp).toContain('the answer must NOT have additional properties: "extra"');
    // The history alternates: prompt, call, results, answer, follow-up, answer, follow-up, answer.
    expect(runner.history.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
  });

  it(`fails with StructuredOutputError after ${DEFAULT_OUTPUT_SCHEMA_RETRIES} follow-ups`, async () => {
    const answers = Array.from({ length: DEFAULT_OUTPUT_SCHEMA_RETRIES + 1 }, (_, index) =>
      textReply(`{"name":"Ada","age":"${index}"}`),
    );
    const provider = new ScriptedProvider([...answers, textReply('{"name":"Ada","age":1}')]);
    const runner = new Runner({ provider });
    const failure = await runner.run('who?', { outputSchema: person }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StructuredOutputError);
    const error = failure as StructuredOutputError;
    expect(error.attempts).toBe(DEFAULT_OUTPUT_SCHEMA_RETRIES + 1);
    expect(error.problems).toEqual(['/age must be integer']);
    expect(error.lastAnswer).toBe(`{"name":"Ada","age":"${DEFAULT_OUTPUT_SCHEMA_RETRIES}"}`);
    expect(error.message).toBe(
      `the answer did not match the output schema after ${DEFAULT_OUTPUT_SCHEMA_RETRIES + 1} attempts: /age must be integer`,
    );
    // The valid answer left in the script was never asked for.
    expect(provider.requests).toHaveLength(DEFAULT_OUTPUT_SCHEMA_RETRIES + 1);
  });

  it('asks for a non-object root wrapped in an object, and returns the value unwrapped', async () => {
    const list: JsonSchemaObject = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'array',
      items: { type: 'string' },
      minItems: 2,
    };
    const provider = new ScriptedProvider([
      textReply('["only one"]'),
      textReply(`{"${WRAPPED_ANSWER_KEY}":["a","b"]}`),
    ]);
    const result = await new Runner({ provider }).run('list', { outputSchema: list });
    expect(result.structured).toEqual(['a', 'b']);
    const sent = provider.requests[0]?.responseFormat;
    expect(sent).toEqual({
      type: 'json-schema',
      name: 'answer',
      schema: {
        type: 'object',
        properties: { [WRAPPED_ANSWER_KEY]: { type: 'array', items: { type: 'string' }, minItems: 2 } },
        required: [WRAPPED_ANSWER_KEY],
        additionalProperties: false,
      },
    });
    expect(textOf(provider.requests[1]?.messages.at(-1))).toContain(
      `the answer must be an object with the key "${WRAPPED_ANSWER_KEY}"`,
    );
  });

  it('the per-run schema replaces the runner default; a run without one returns no structured value', async () => {
    const provider = new ScriptedProvider([textReply('"plain"'), textReply('hello')]);
    const runner = new Runner({ provider, outputSchema: person });
    const first = await runner.run('a', { outputSchema: { type: 'string' } });
    expect(first.structured).toBe('plain');
    const plain = new Runner({ provider });
    const second = await plain.run('b');
    expect('structured' in second).toBe(false);
    expect(provider.requests[1]?.responseFormat).toBeUndefined();
  });

  it('refuses a schema ajv cannot compile, before any model call', async () => {
    const provider = new ScriptedProvider([textReply('{}')]);
    const runner = new Runner({ provider });
    const failure = await runner
      .run('x', { outputSchema: { type: 'object', properties: { a: { type: 'no-such-type' } } } })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as ConfigError).message).toMatch(/^outputSchema: is not a schema ajv can compile: /);
    expect(provider.requests).toHaveLength(0);
    expect(runner.history).toEqual([]);
    await expect(compileOutputSchema({ format: 'date', type: 'string' })).resolves.toBeDefined();
  });

  it('takes back an unanswered follow-up when the run is cancelled during the answer step', async () => {
    const controller = new AbortController();
    const provider = new ScriptedProvider([
      textReply('not json'),
      () => {
        controller.abort();
        return { error: new AbortedError() };
      },
    ]);
    const runner = new Runner({ provider });
    await expect(
      runner.run('who?', { outputSchema: person, signal: controller.signal }),
    ).rejects.toBeInstanceOf(AbortedError);
    expect(runner.history.map((message) => message.role)).toEqual(['user', 'assistant']);
  });
});
