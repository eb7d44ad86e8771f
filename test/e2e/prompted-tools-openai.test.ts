/**
 * Prompted tool calling against an OpenAI-compatible server that refuses tools for its model
 * (issue 41): the built CLI, server-memory and server-filesystem from npm, and the OpenAI fake
 * answering any request with `tools` with vLLM's 400, and holding answers to the request's
 * `json_schema` response format (an answer the schema would refuse fails the request).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFakeOpenAI, type RecordedOpenAIRequest } from '../fakes/openai-server.js';
import { npmServerConfig, runCli } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';

const fixture = useCliFixture();
/** vLLM's words when started without a tool parser. */
const VLLM_REFUSAL = '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set';

describe('an OpenAI-compatible server that refuses tools', () => {
  it('turns to prompted tool calling: a call, two calls in one step, then only the answer', async () => {
    const folder = await fixture.temporaryFolder('mcphost-notes-');
    await writeFile(join(folder, 'fruit.txt'), 'the fruit is mango\n');
    await fixture.home.writeConfig({
      mcpServers: { memory: npmServerConfig('memory'), files: npmServerConfig('filesystem', folder) },
    });
    const answered: RecordedOpenAIRequest[] = [];
    const replies = [
      {
        calls: [
          {
            name: 'memory__create_entities',
            arguments: { entities: [{ name: 'mango', entityType: 'fruit', observations: ['sweet'] }] },
          },
        ],
        answer: '',
      },
      {
        calls: [
          { name: 'memory__read_graph', arguments: {} },
          { name: 'files__read_text_file', arguments: { path: join(folder, 'fruit.txt') } },
        ],
        answer: '',
      },
      { calls: [], answer: 'Mango, sweet.' },
    ];
    const openai = await startFakeOpenAI(
      (request) => {
        answered.push(request);
        return { type: 'json', value: replies[answered.length - 1] };
      },
      { apiKey: 'sk-local', rejectTools: VLLM_REFUSAL },
    );
    try {
      const run = await runCli(
        ['-m', 'openai:gemma-3-4b-it', '-p', 'Remember mango, then read my note.'],
        fixture.home.path,
        {
          env: { OPENAI_API_KEY: 'sk-local', OPENAI_BASE_URL: openai.url },
          timeoutMs: 60_000,
        },
      );
      expect(run.stderr).toContain(
        'prompted tool calling on: the server refused tools for openai:gemma-3-4b-it',
      );
      expect(run.stderr).toContain('--enable-auto-tool-choice');
      expect(run.code).toBe(0);
      expect(run.stdout).toBe('Mango, sweet.\n');
      // The refused request, then three without tools, each with the step's json_schema.
      expect(openai.requests).toHaveLength(4);
      expect((openai.requests[0]?.body.tools as unknown[]).length).toBeGreaterThan(0);
      for (const request of answered) {
        expect(request.body.tools).toBeUndefined();
        expect(request.body.response_format).toMatchObject({
          type: 'json_schema',
          json_schema: { name: 'tool_step' },
        });
        const roles = (request.body.messages as Array<{ role: string }>).map((message) => message.role);
        expect(roles).not.toContain('tool');
      }
      const last = JSON.stringify((answered[2]?.body.messages as unknown[]).at(-1));
      expect(last).toContain('memory__read_graph');
      expect(last).toContain('\\"name\\": \\"mango\\"');
      expect(last).toContain('the fruit is mango');
    } finally {
      await openai.close();
    }
  });
});
