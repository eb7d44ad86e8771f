/**
 * `mcphost -p … --output-schema FILE` through the built CLI, with a throw-away HOME and a loopback
 * fake Ollama as the model: the JSON answer on stdout, `structured` in the JSON output, exit 7
 * when the answer never validates, and a bad schema file refused in one line (exit 2) before any
 * model call.
 */
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { JsonResult } from '../../src/cli/output/schema.js';
import { DEFAULT_OUTPUT_SCHEMA_RETRIES } from '../../src/core/structured-output.js';
import { textReply, toolCallReply } from '../fakes/ollama-server.js';
import { createRunner } from '../../src/setup/create-runner.js';
import { EVERYTHING_SERVER, runCli } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';

const fixture = useCliFixture();

const SCHEMA = {
  type: 'object',
  properties: { echoed: { type: 'string' }, length: { type: 'integer' } },
  required: ['echoed', 'length'],
  additionalProperties: false,
};

async function schemaFile(content: unknown, name = 'answer.schema.json'): Promise<string> {
  const path = join(fixture.home.path, name);
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

describe('--output-schema', () => {
  it('prints the validated JSON alone on stdout, after a tool call and a refused answer', async () => {
    await fixture.home.writeConfig({ mcpServers: { everything: EVERYTHING_SERVER } });
    const ollama = await fixture.startModel([
      toolCallReply(['everything__echo', { message: 'ping' }]),
      textReply('The tool echoed ping.'),
      textReply('{"echoed":"ping","length":4}'),
    ]);
    const run = await runCli(
      ['-p', 'echo ping', '--output-schema', await schemaFile(SCHEMA), '--provider-url', ollama.url],
      fixture.home.path,
    );
    expect(run.stderr).toContain('everything__echo');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('{"echoed":"ping","length":4}\n');
    // The tools on the first two calls; the schema as `format` on the answer step, without tools.
    expect(ollama.chatRequests.map((request) => request.tools !== undefined)).toEqual([true, true, false]);
    expect(ollama.chatRequests.map((request) => request.format)).toEqual([undefined, undefined, SCHEMA]);
    expect(ollama.chatRequests[2]?.messages.at(-1)?.content).toContain(
      'did not match the required JSON Schema',
    );
  });

  it('carries the parsed value as `structured` in --output-format json', async () => {
    const ollama = await fixture.startModel([textReply('```json\n{"echoed":"x","length":1}\n```')]);
    const run = await runCli(
      [
        '-p',
        'go',
        '--output-format',
        'json',
        '--output-schema',
        await schemaFile(SCHEMA),
        '--provider-url',
        ollama.url,
      ],
      fixture.home.path,
    );
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as JsonResult;
    expect(result).toMatchObject({ ok: true, exitCode: 0, structured: { echoed: 'x', length: 1 } });
    // No servers: the first call already carries the schema.
    expect(ollama.chatRequests[0]?.format).toEqual(SCHEMA);
  });

  it('carries it in the last line of --output-format stream-json', async () => {
    const ollama = await fixture.startModel([
      textReply('no JSON here'),
      textReply('{"echoed":"y","length":1}'),
    ]);
    const run = await runCli(
      [
        '-p',
        'go',
        '--output-format',
        'stream-json',
        '--output-schema',
        await schemaFile(SCHEMA),
        '--provider-url',
        ollama.url,
      ],
      fixture.home.path,
    );
    expect(run.code).toBe(0);
    const last = JSON.parse(run.stdout.trimEnd().split('\n').at(-1) ?? '{}') as JsonResult;
    expect(last).toMatchObject({
      type: 'result',
      ok: true,
      steps: 2,
      structured: { echoed: 'y', length: 1 },
    });
  });

  it('exits 7 with one line when the answer never matches, and says so in JSON', async () => {
    const answers = Array.from({ length: DEFAULT_OUTPUT_SCHEMA_RETRIES + 1 }, () =>
      textReply('{"echoed":"x"}'),
    );
    const ollama = await fixture.startModel([...answers, ...answers]);
    const schema = await schemaFile(SCHEMA);
    const text = await runCli(
      ['-p', 'go', '--output-schema', schema, '--provider-url', ollama.url],
      fixture.home.path,
    );
    expect(text.code).toBe(7);
    expect(text.stdout).toBe('');
    expect(text.stderr.trim().split('\n').at(-1)).toBe(
      `mcphost: the answer did not match the output schema after ${DEFAULT_OUTPUT_SCHEMA_RETRIES + 1} attempts: the answer must have required property 'length'`,
    );
    const json = await runCli(
      ['-p', 'go', '--output-format', 'json', '--output-schema', schema, '--provider-url', ollama.url],
      fixture.home.path,
    );
    expect(json.code).toBe(7);
    const result = JSON.parse(json.stdout) as JsonResult;
    expect(result).toMatchObject({ ok: false, exitCode: 7, error: { type: 'StructuredOutputError' } });
    expect('structured' in result).toBe(false);
  });

  it('refuses a missing, unreadable or invalid schema file in one line naming it, exit 2, before any model call', async () => {
    const ollama = await fixture.startModel([textReply('{}')]);
    const cases: Array<[string, string]> = [
      [join(fixture.home.path, 'missing.json'), 'cannot read the schema: no such file'],
      [await schemaFile('{"type": "object",', 'broken.json'), 'is not JSON: '],
      [await schemaFile('[1, 2]', 'list.json'), 'is not a JSON Schema: expected an object'],
      [
        await schemaFile({ type: 'object', properties: { a: { type: 'text' } } }, 'wrong.json'),
        'is not a JSON Schema ajv can compile: ',
      ],
    ];
    for (const [file, detail] of cases) {
      const run = await runCli(
        ['-p', 'go', '--output-schema', file, '--provider-url', ollama.url],
        fixture.home.path,
      );
      expect(run.code).toBe(2);
      const lines = run.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`mcphost: --output-schema ${file}: ${detail}`);
    }
    expect(ollama.chatRequests).toHaveLength(0);
  });

  it('is refused without -p', async () => {
    const run = await runCli(['--output-schema', 'x.json'], fixture.home.path);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe('mcphost: --output-schema: only with -p or a script');
  });
});

describe('createRunner({ outputSchema })', () => {
  it('is the default of every run; a run may give its own', async () => {
    const ollama = await fixture.startModel([textReply('{"echoed":"a","length":1}'), textReply('[1,2]')]);
    await using runner = await createRunner({
      model: 'ollama:mistral-small',
      providerUrl: ollama.url,
      mcpServers: {},
      env: {},
      outputSchema: SCHEMA,
    });
    expect((await runner.run('first')).structured).toEqual({ echoed: 'a', length: 1 });
    const list = { type: 'array', items: { type: 'integer' } };
    expect((await runner.run('second', { outputSchema: list })).structured).toEqual([1, 2]);
    expect(ollama.chatRequests.map((request) => request.format)).toEqual([
      SCHEMA,
      { type: 'object', properties: { value: list }, required: ['value'], additionalProperties: false },
    ]);
  });
});
