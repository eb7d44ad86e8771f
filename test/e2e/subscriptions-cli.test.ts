/**
 * `mcphost -p --output-format stream-json` subscribes to the resources a prompt attaches and
 * reports their updates as `resource-updated` events (and list changes as `list-changed`); the
 * text format subscribes to nothing. The built CLI, a v2-SDK fixture server and the fake Ollama.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textReply, toolCallReply } from '../fakes/ollama-server.js';
import { REPOSITORY, runCli } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';

const fixture = useCliFixture({
  config: {
    mcpServers: {
      lists: {
        command: process.execPath,
        args: [join(REPOSITORY, 'test/fixtures/servers/changing-lists.mjs')],
      },
    },
  },
});

function mcphost(prompt: string, ...flags: string[]) {
  return runCli(
    ['-m', 'ollama:mistral-small', '--provider-url', fixture.model.url, '-p', prompt, ...flags],
    fixture.home.path,
  );
}

describe('mcphost -p and resource updates', () => {
  it('reports updates of an attached resource, and list changes, as stream-json events', async () => {
    await fixture.startModel([
      toolCallReply(['lists__touch-note', {}], ['lists__add-prompt', {}]),
      textReply('noted'),
    ]);
    const run = await mcphost('What does @lists:fixture://note say?', '--output-format', 'stream-json');
    expect(run.code).toBe(0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string });
    expect(events).toContainEqual({
      type: 'resource-updated',
      step: 1,
      server: 'lists',
      uri: 'fixture://note',
    });
    expect(events).toContainEqual({ type: 'list-changed', step: 1, server: 'lists', list: 'prompts' });
    const touched = events.find(
      (event) => event.type === 'tool-result' && JSON.stringify(event).includes('touched'),
    );
    expect(touched).toBeDefined();
  });

  it('subscribes to nothing in the text format', async () => {
    await fixture.startModel([textReply('noted')]);
    const run = await mcphost('What does @lists:fixture://note say?');
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('attached @lists:fixture://note');
    expect(run.stderr).not.toContain('subscribed');
  });
});
