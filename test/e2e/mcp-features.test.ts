/**
 * Resources, prompts, elicitation and progress through the library (`createRunner`), against the
 * real server-everything and a v2-SDK fixture server for the bad cases, with the real Ollama
 * client talking to its loopback fake.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConfigError,
  createRunner,
  ServerError,
  type ElicitationRequest,
  type McpRunner,
} from '../../src/index.js';
import type { ElicitationOutcome } from '../../src/mcp/elicitation.js';
import type { ToolProgress } from '../../src/mcp/pool.js';
import { startFakeOllama, textReply, toolCallReply, type FakeOllama } from '../fakes/ollama-server.js';
import { EVERYTHING_SERVER, REPOSITORY } from '../support/cli.js';

const OFFERINGS = {
  command: process.execPath,
  args: [join(REPOSITORY, 'test/fixtures/servers/offerings.mjs')],
};

describe('server offerings through the library', () => {
  let ollama: FakeOllama;
  let runner: McpRunner;
  const elicitations: ElicitationRequest[] = [];
  const outcomes: ElicitationOutcome[] = [];
  const progress: ToolProgress[] = [];
  const serverLog: string[] = [];
  let answerForm: (request: ElicitationRequest) => Record<string, unknown> | 'decline' = () => 'decline';

  beforeAll(async () => {
    ollama = await startFakeOllama([]);
    runner = await createRunner({
      model: 'ollama:mistral-small',
      providerUrl: ollama.url,
      mcpServers: { everything: EVERYTHING_SERVER, offerings: OFFERINGS },
      env: {},
      // The fake reports no num_ctx, so Ollama's 4k default would apply, and server-everything's
      // tool list alone nearly fills it: these tests are about the servers, not compaction.
      context: { contextWindow: 131_072 },
      questions: {
        elicit: async (request) => {
          elicitations.push(request);
          const answer = answerForm(request);
          return answer === 'decline' ? { action: 'decline' } : { action: 'accept', content: answer };
        },
      },
      onEvent: (event) => {
        if (event.type === 'elicitation-outcome') outcomes.push(event.outcome);
        if (event.type === 'tool-progress') progress.push(event.progress);
        if (event.type === 'server-log') serverLog.push(event.entry.message);
      },
      serverLogLevel: 'debug',
    });
  });

  afterAll(async () => {
    await runner.close();
    await ollama.close();
  });

  it('lists resources and templates of every server, all pages gathered', async () => {
    const listing = await runner.mcp.listResources();
    expect(listing.failures).toEqual([]);
    const uris = listing.resources.map((resource) => `${resource.server} ${resource.uri}`);
    expect(uris).toContain('offerings fixture://broken');
    expect(uris.some((uri) => uri.startsWith('everything demo://resource/static/document/'))).toBe(true);
    expect(listing.templates.map((template) => template.uriTemplate)).toContain(
      'demo://resource/dynamic/text/{resourceId}',
    );
    const one = await runner.mcp.listResources('offerings');
    expect(one.resources.map((resource) => resource.uri).sort()).toEqual([
      'fixture://archive.zip',
      'fixture://broken',
      'fixture://fine',
    ]);
  });

  it('attaches @server:uri to the prompt the model receives', async () => {
    const turn = await runner.mcp.expandUserTurn(
      'Summarize @everything:demo://resource/dynamic/text/1 and @offerings:fixture://archive.zip.',
    );
    expect(turn.notes).toEqual([
      'attached @everything:demo://resource/dynamic/text/1',
      'attached @offerings:fixture://archive.zip',
    ]);
    ollama.push(textReply('summarized'));
    await runner.run(turn.content);
    const sent = ollama.chatRequests.at(-1)?.messages.at(-1)?.content ?? '';
    expect(sent).toContain('Summarize @everything:demo://resource/dynamic/text/1');
    expect(sent).toMatch(
      // Marked as data from outside (on by default), like tool output.
      /<untrusted-resource server="everything" uri="demo:\/\/resource\/dynamic\/text\/1"[^>]*>\n.*Resource 1/,
    );
    expect(sent).toContain('[binary content, 11 bytes, left out: the model cannot read it]');
  });

  it('fails cleanly for a resource that cannot be read and for an unknown server', async () => {
    await expect(runner.mcp.expandUserTurn('read @offerings:fixture://broken')).rejects.toThrow(
      /server "offerings".*could not read resource "fixture:\/\/broken".*the disk is on fire/s,
    );
    await expect(runner.mcp.readResource('nowhere', 'x://y')).rejects.toThrow(ServerError);
    await expect(runner.mcp.readResource('nowhere', 'x://y')).rejects.toThrow(
      /no MCP server is named "nowhere" \(configured: everything, offerings\)/,
    );
    // An e-mail address is not a mention.
    const plain = await runner.mcp.expandUserTurn('mail bob@example.com:8080 now');
    expect(plain.content).toEqual([{ type: 'text', text: 'mail bob@example.com:8080 now' }]);
  });

  it('lists prompts with their arguments and expands /server:prompt by name or position', async () => {
    const prompts = await runner.mcp.listPrompts('everything');
    expect(prompts.find((prompt) => prompt.name === 'args-prompt')?.arguments).toEqual([
      { name: 'city', description: 'Name of the city', required: true },
      { name: 'state', required: false },
    ]);
    const named = await runner.mcp.expandUserTurn('/everything:args-prompt city=Paris');
    expect(named.content).toEqual([{ type: 'text', text: "What's weather in Paris?" }]);
    const positional = await runner.mcp.expandUserTurn('/everything:args-prompt "New York" NY');
    expect(positional.content).toEqual([{ type: 'text', text: "What's weather in New York, NY?" }]);
    const asked = await runner.mcp.expandUserTurn('/offerings:greet', {
      askArgument: async (_prompt, argument) => (argument.name === 'name' ? 'Ada' : '?'),
    });
    expect(asked.content).toEqual([{ type: 'text', text: 'Say hello to Ada' }]);
  });

  it('refuses a prompt call with a missing required argument, naming its arguments', async () => {
    const failure = runner.mcp.expandUserTurn('/offerings:greet mood=happy');
    await expect(failure).rejects.toThrow(ConfigError);
    await expect(failure).rejects.toThrow(
      'prompt /offerings:greet: missing required argument "name"; it takes name (required: Who to greet), mood',
    );
    await expect(runner.mcp.expandUserTurn('/offerings:nope')).rejects.toThrow(
      /has no prompt "nope" \(its prompts: greet\)/,
    );
  });

  it('answers a form elicitation with content checked against the schema', async () => {
    answerForm = () => ({ name: 'Ada Lovelace', email: 'ada@example.com', integer: 7 });
    ollama.push(toolCallReply(['everything__trigger-elicitation-request', {}]));
    ollama.push(textReply('thanks'));
    const result = await runner.run('ask me');
    const text = JSON.stringify(result.toolCalls[0]?.result.content);
    expect(text).toContain('User provided the requested information');
    expect(text).toContain('Name: Ada Lovelace');
    expect(text).toContain('Favorite Integer: 7');
    const request = elicitations.at(-1);
    expect(request).toMatchObject({ mode: 'form', server: 'everything' });
    expect(outcomes.at(-1)).toMatchObject({ server: 'everything', mode: 'form', action: 'accept' });
  });

  it('declines, without sending it, an answer that does not fit the schema', async () => {
    answerForm = () => ({ name: 'Ada', email: 'not an address', integer: 500 });
    ollama.push(toolCallReply(['everything__trigger-elicitation-request', {}]));
    ollama.push(textReply('ok'));
    const result = await runner.run('ask me again');
    expect(JSON.stringify(result.toolCalls[0]?.result.content)).toContain('User declined');
    expect(outcomes.at(-1)).toMatchObject({ action: 'decline' });
    expect(outcomes.at(-1)?.reason).toMatch(/did not fit the requested schema/);
  });

  it('refuses a form outside the flat schema of the spec without asking anyone', async () => {
    const asked = elicitations.length;
    const reported = outcomes.length;
    ollama.push(toolCallReply(['offerings__nested-form', {}]));
    ollama.push(textReply('ok'));
    const result = await runner.run('nested');
    // The SDK's request validation answers the server with invalid params, naming the property.
    const text = JSON.stringify(result.toolCalls[0]?.result.content);
    expect(text).toContain('Invalid elicitation request');
    expect(text).toContain('address');
    expect(elicitations).toHaveLength(asked);
    expect(outcomes).toHaveLength(reported);
  });

  it('declines a URL elicitation to a suspicious host and offers a good one', async () => {
    ollama.push(toolCallReply(['offerings__open-url', { url: 'http://login.example.com/' }]));
    ollama.push(textReply('ok'));
    await runner.run('sign in');
    expect(outcomes.at(-1)).toMatchObject({ mode: 'url', action: 'decline' });
    expect(outcomes.at(-1)?.reason).toBe('the URL was not offered: its scheme "http:" is not https');

    answerForm = () => ({});
    ollama.push(toolCallReply(['offerings__open-url', { url: 'https://login.example.com/device' }]));
    ollama.push(textReply('ok'));
    const result = await runner.run('sign in properly');
    expect(elicitations.at(-1)).toMatchObject({
      mode: 'url',
      url: 'https://login.example.com/device',
      elicitationId: 'e-1',
    });
    expect(JSON.stringify(result.toolCalls[0]?.result.content)).toContain('accept');
  });

  it('reports the progress of a tool call with its call id', async () => {
    progress.length = 0;
    ollama.push(toolCallReply(['offerings__steps', {}]));
    ollama.push(textReply('done'));
    const result = await runner.run('go');
    const id = result.toolCalls[0]?.call.id;
    expect(progress).toEqual(
      [1, 2, 3].map((step) => ({
        server: 'offerings',
        tool: 'steps',
        toolCallId: id,
        progress: step,
        total: 3,
        message: `step ${step}`,
      })),
    );
  });

  it("keeps the servers' log messages, at the level asked for", async () => {
    ollama.push(toolCallReply(['everything__toggle-simulated-logging', {}]));
    ollama.push(textReply('on'));
    await runner.run('log something');
    // The server also logs other things (that it received the roots, for one): find the simulated ones.
    const simulated = () =>
      runner.serverLogs
        .list('everything')
        .find((entry) => /-level message|level-message/.test(String(entry.data)));
    for (let waited = 0; waited < 3000 && simulated() === undefined; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const first = simulated();
    expect(first?.server).toBe('everything');
    expect(String(first?.data)).toMatch(/-level message|level-message/);
    expect(runner.serverLogs.list('offerings')).toEqual([]);
    expect(serverLog.some((line) => line.startsWith(`log ${first?.level ?? '?'}`))).toBe(true);
    // Off again, so the server stops sending.
    ollama.push(toolCallReply(['everything__toggle-simulated-logging', {}]));
    ollama.push(textReply('off'));
    await runner.run('stop logging');
  });

  it('does not offer the model tools meant only for an app', async () => {
    const names = (await runner.pool.tools()).map((tool) => tool.name);
    expect(names).toContain('offerings__shared');
    expect(names).toContain('offerings__steps');
    expect(names).not.toContain('offerings__app-refresh');
  });
});
