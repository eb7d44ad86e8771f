/**
 * Completion, list changes and resource subscriptions through the library (`createRunner`),
 * against the real server-everything (2025-era) and a v2-SDK fixture server served 2026-07-28
 * (changing-lists.mjs), and the chat's Tab completion over the same servers.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeChatLine } from '../../src/cli/chat/completion.js';
import { createRunner, ServerError, type McpRunner, type OfferingsChange } from '../../src/index.js';
import { EVERYTHING_SERVER, REPOSITORY } from '../support/cli.js';

const fixture = (name: string) => ({
  command: process.execPath,
  args: [join(REPOSITORY, 'test/fixtures/servers', name)],
});

describe('completion, list changes and subscriptions through the library', () => {
  let runner: McpRunner;
  const changes: OfferingsChange[] = [];

  beforeAll(async () => {
    runner = await createRunner({
      model: 'ollama:mistral-small',
      // No model call is made here.
      providerUrl: 'http://127.0.0.1:9',
      env: {},
      mcpServers: {
        everything: EVERYTHING_SERVER,
        lists: fixture('changing-lists.mjs'),
        plain: fixture('modern-server.mjs'),
      },
      onEvent: (event) => {
        if (event.type === 'offerings-change') changes.push(event.change);
      },
    });
  });

  afterAll(async () => {
    await runner.close();
  });

  const waitFor = async (found: () => boolean, what: string): Promise<void> => {
    for (let waited = 0; !found(); waited += 20) {
      if (waited > 10_000) throw new Error(`no ${what} within 10 s; heard ${JSON.stringify(changes)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const callTool = (name: string) => runner.pool.call({ type: 'tool-call', id: name, name, input: {} });

  it('talks to one server of each protocol generation', () => {
    const versions = Object.fromEntries(
      runner.servers.map((server) => [server.name, server.protocolVersion]),
    );
    expect(versions.everything).toMatch(/^2025-/);
    expect(versions.lists).toBe('2026-07-28');
  });

  it('completes prompt arguments, narrowed by the arguments already given', async () => {
    const department = await runner.mcp.complete({
      server: 'everything',
      ref: { type: 'prompt', name: 'completable-prompt' },
      argument: { name: 'department', value: 'S' },
    });
    expect(department).toEqual({ values: ['Sales', 'Support'], total: 2, hasMore: false });
    const name = await runner.mcp.complete({
      server: 'everything',
      ref: { type: 'prompt', name: 'completable-prompt' },
      argument: { name: 'name', value: '' },
      context: { arguments: { department: 'Sales' } },
    });
    expect(name.values).toEqual(['David', 'Eve', 'Frank']);
    const shade = await runner.mcp.complete({
      server: 'lists',
      ref: { type: 'prompt', name: 'paint' },
      argument: { name: 'shade', value: '' },
      context: { arguments: { color: 'blue' } },
    });
    expect(shade.values).toEqual(['navy', 'azure']);
  });

  it('completes resource template variables', async () => {
    const items = await runner.mcp.complete({
      server: 'lists',
      ref: { type: 'resource-template', uriTemplate: 'fixture://items/{id}' },
      argument: { name: 'id', value: 'ap' },
    });
    expect(items.values).toEqual(['apple', 'apricot']);
    const everything = await runner.mcp.complete({
      server: 'everything',
      ref: { type: 'resource-template', uriTemplate: 'demo://resource/dynamic/text/{resourceId}' },
      argument: { name: 'resourceId', value: '7' },
    });
    expect(everything.values).toEqual(['7']);
  });

  it('asks nothing of a server without the completions capability, and bounds a slow one', async () => {
    expect(
      await runner.mcp.complete({
        server: 'plain',
        ref: { type: 'prompt', name: 'anything' },
        argument: { name: 'x', value: '' },
      }),
    ).toEqual({ values: [], hasMore: false });
    const slow = runner.mcp.complete(
      { server: 'lists', ref: { type: 'prompt', name: 'slow' }, argument: { name: 'word', value: 'w' } },
      { timeoutMs: 300 },
    );
    await expect(slow).rejects.toThrow(ServerError);
    await expect(slow).rejects.toThrow(/server "lists" could not complete argument "word" of prompt "slow"/);
  });

  it('completes the chat line from the same servers', async () => {
    expect(await completeChatLine('read @ever', [], runner.mcp)).toEqual([['@everything:'], '@ever']);
    const [documents] = await completeChatLine(
      '@everything:demo://resource/static/document/',
      [],
      runner.mcp,
    );
    expect(documents.length).toBeGreaterThan(0);
    expect(documents.every((uri) => uri.startsWith('@everything:demo://resource/static/document/'))).toBe(
      true,
    );
    expect(await completeChatLine('@lists:fixture://items/apr', [], runner.mcp)).toEqual([
      ['@lists:fixture://items/apricot'],
      '@lists:fixture://items/apr',
    ]);
    expect(await completeChatLine('/everything:completable-prompt Eng', [], runner.mcp)).toEqual([
      ['Engineering'],
      'Eng',
    ]);
    expect(await completeChatLine('/everything:completable-prompt Support ', [], runner.mcp)).toEqual([
      ['John', 'Kim', 'Lee', 'name='],
      '',
    ]);
    const [slash] = await completeChatLine('/li', [], runner.mcp);
    expect(slash).toEqual(['/lists:paint', '/lists:slow']);
  });

  it('refreshes the cached listings when a server says its prompts or resources changed', async () => {
    const before = await runner.mcp.catalog();
    expect(before.prompts.some((prompt) => prompt.server === 'lists' && prompt.name === 'added')).toBe(false);
    expect(await callTool('lists__add-prompt')).toMatchObject({ isError: false });
    expect(await callTool('lists__add-resource')).toMatchObject({ isError: false });
    await waitFor(
      () =>
        changes.filter((change) => change.type === 'list-changed' && change.server === 'lists').length >= 2,
      'list change',
    );
    expect(changes).toContainEqual({ type: 'list-changed', server: 'lists', list: 'prompts' });
    expect(changes).toContainEqual({ type: 'list-changed', server: 'lists', list: 'resources' });
    const after = await runner.mcp.catalog();
    expect(after.prompts.map((prompt) => `${prompt.server}:${prompt.name}`)).toContain('lists:added');
    expect(after.resources.map((resource) => resource.uri)).toContain('fixture://added');
  });

  it('subscribes to resources in both generations and hears their updates', async () => {
    const document = 'demo://resource/static/document/architecture.md';
    expect(await runner.mcp.subscribe('lists', 'fixture://note')).toBe('subscribed');
    expect(await runner.mcp.subscribe('lists', 'fixture://note')).toBe('already-subscribed');
    expect(await runner.mcp.subscribe('everything', document)).toBe('subscribed');
    expect(await runner.mcp.subscribe('plain', 'anything://x')).toBe('not-offered');
    expect(runner.mcp.subscriptions()).toEqual([
      { server: 'lists', uri: 'fixture://note' },
      { server: 'everything', uri: document },
    ]);
    await callTool('lists__touch-note');
    // server-everything sends an update for each subscribed URI at once, then every 5 s.
    await callTool('everything__toggle-subscriber-updates');
    await waitFor(
      () => changes.filter((change) => change.type === 'resource-updated').length >= 2,
      'resource update',
    );
    expect(changes).toContainEqual({ type: 'resource-updated', server: 'lists', uri: 'fixture://note' });
    expect(changes).toContainEqual({ type: 'resource-updated', server: 'everything', uri: document });
    await callTool('everything__toggle-subscriber-updates');
    expect(await runner.mcp.unsubscribe('everything', document)).toBe(true);
    expect(await runner.mcp.unsubscribe('lists', 'fixture://note')).toBe(true);
    expect(runner.mcp.subscriptions()).toEqual([]);
  });

  it('subscribes to what a turn attaches when asked to, and says so', async () => {
    const turn = await runner.mcp.expandUserTurn('What does @lists:fixture://note say?', { subscribe: true });
    expect(turn.attached).toEqual([{ server: 'lists', uri: 'fixture://note' }]);
    expect(turn.notes).toEqual([
      'attached @lists:fixture://note',
      'subscribed to @lists:fixture://note: its updates will be shown',
    ]);
  });
});
