/**
 * A streamed Ollama answer that goes on after its `done: true` line (a proxy or a buggy server can
 * send that): the built CLI, `-p`, a throw-away HOME. The answer is whole at `done`, so the run
 * succeeds with it; what follows is dropped with the connection and is no error (issue 40: the
 * abort of the unread rest ended the process with an uncaught socket error and a stack trace).
 */
import { describe, expect, it } from 'vitest';
import { textReply } from '../fakes/ollama-server.js';
import { runCli } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';

const fixture = useCliFixture({ config: { mcpServers: {} } });

const line = (value: unknown): string => `${JSON.stringify(value)}\n`;
const text = (content: string): unknown => ({
  model: 'llama3.2',
  message: { role: 'assistant', content },
  done: false,
});
const done = {
  model: 'llama3.2',
  message: { role: 'assistant', content: '' },
  done: true,
  done_reason: 'stop',
  prompt_eval_count: 3,
  eval_count: 2,
};

describe('an Ollama stream with a chunk after its done line', () => {
  it('in the same write: -p prints the answer up to done and exits 0, no stack trace', async () => {
    const body = [text('the answer'), done, text('after the end')].map(line).join('');
    const ollama = await fixture.startModel([{ type: 'raw', body }], { fallback: textReply('again') });
    const run = await runCli(['-p', 'hi', '--provider-url', ollama.url], fixture.home.path);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('the answer\n');
    expect(run.code).toBe(0);
  });

  it('arriving later: the same, and the next chat on the same Ollama still works', async () => {
    const ollama = await fixture.startModel(
      [{ type: 'answer', text: ['first'], afterDone: ['late', 'later'] }],
      { fallback: textReply('second') },
    );
    const first = await runCli(['-p', 'hi', '--provider-url', ollama.url], fixture.home.path);
    expect(first.stderr).toBe('');
    expect(first.stdout).toBe('first\n');
    expect(first.code).toBe(0);
    const second = await runCli(['-p', 'hi', '--provider-url', ollama.url], fixture.home.path);
    expect(second.stdout).toBe('second\n');
    expect(second.code).toBe(0);
  });

  it('a stream cut before done is still a provider error naming the server (exit 3)', async () => {
    const body = [text('half an answer')].map(line).join('');
    const ollama = await fixture.startModel([{ type: 'raw', body }], { fallback: { type: 'raw', body } });
    const run = await runCli(['-p', 'hi', '--provider-url', ollama.url], fixture.home.path);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`Ollama at ${ollama.url}`);
    expect(run.stderr).toContain('the answer ended before Ollama said it was done');
    expect(run.stderr).not.toContain('    at ');
  });
});
