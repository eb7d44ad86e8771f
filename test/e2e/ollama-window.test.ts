/**
 * The Ollama window and a model that is not pulled, as a user meets them: the built CLI, `-p`, a
 * throw-away HOME with the README's config, the fake Ollama behind the real `ollama` client.
 */
import { describe, expect, it } from 'vitest';
import { textReply } from '../fakes/ollama-server.js';
import { runCli } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';

const fixture = useCliFixture({ config: { mcpServers: {} } });

describe('the window Ollama runs the model with', () => {
  it('is sent as num_ctx on every chat: the smaller of the trained length and 32k by default', async () => {
    const ollama = await fixture.startModel([textReply('one')], { trainedContextLength: 131_072 });
    const run = await runCli(['-p', 'hi', '--provider-url', ollama.url], fixture.home.path);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('one\n');
    expect(ollama.chatRequests.map((request) => request.options?.num_ctx)).toEqual([32_768]);
  });

  it('is never more than the model was trained for', async () => {
    const ollama = await fixture.startModel([textReply('one')], { trainedContextLength: 8_192 });
    const run = await runCli(['-p', 'hi', '--provider-url', ollama.url], fixture.home.path);
    expect(run.code).toBe(0);
    expect(ollama.chatRequests[0]?.options?.num_ctx).toBe(8_192);
  });

  it("is --context-window when given, else the config's contextWindow, and /api/show is not asked", async () => {
    const ollama = await fixture.startModel([textReply('one'), textReply('two')]);
    const flagged = await runCli(
      ['-p', 'hi', '--provider-url', ollama.url, '--context-window', '12000'],
      fixture.home.path,
    );
    expect(flagged.code).toBe(0);
    await fixture.home.writeConfig({ mcpServers: {}, contextWindow: 20_000 });
    const configured = await runCli(['-p', 'hi', '--provider-url', ollama.url], fixture.home.path);
    expect(configured.code).toBe(0);
    expect(ollama.chatRequests.map((request) => request.options?.num_ctx)).toEqual([12_000, 20_000]);
    expect(ollama.requests.filter((request) => request.path === '/api/show')).toEqual([]);
  });
});

describe('a model that is not pulled', () => {
  it('fails -p with one line naming `ollama pull NAME` and exit code 3, without asking', async () => {
    const ollama = await fixture.startModel([]);
    const run = await runCli(
      ['-m', 'ollama:qwen3:0.6b', '-p', 'hi', '--provider-url', ollama.url],
      fixture.home.path,
    );
    expect(run.code).toBe(3);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      `Ollama at ${ollama.url} does not have the model "qwen3:0.6b": run \`ollama pull qwen3:0.6b\``,
    );
    expect(ollama.requests.filter((request) => request.path === '/api/pull')).toEqual([]);
  });
});
