/**
 * `mcphost -p` with what servers offer besides tools: `/server:prompt` and `@server:uri` in the
 * prompt, elicitation declined (and said so on stderr), and tool progress as stream-json events.
 * The built CLI, the real server-everything, a v2-SDK fixture server, and the fake Ollama.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textReply, toolCallReply } from '../fakes/ollama-server.js';
import { EVERYTHING_SERVER, REPOSITORY, runCli, temporaryHome } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';
import { unwrapped } from '../support/untrusted.js';

const OFFERINGS = {
  command: process.execPath,
  args: [join(REPOSITORY, 'test/fixtures/servers/offerings.mjs')],
};

const fixture = useCliFixture({
  config: { mcpServers: { everything: EVERYTHING_SERVER, offerings: OFFERINGS } },
});

function mcphost(prompt: string, ...flags: string[]) {
  return runCli(
    ['-m', 'ollama:mistral-small', '--provider-url', fixture.model.url, '-p', prompt, ...flags],
    fixture.home.path,
  );
}

describe('mcphost -p with server offerings', () => {
  it('sends a server prompt as the user turn', async () => {
    const ollama = await fixture.startModel([textReply('sunny')]);
    const run = await mcphost('/everything:args-prompt "Paris" state=TX');
    expect(run.stderr).toContain('prompt /everything:args-prompt');
    expect(run.code).toBe(0);
    expect(ollama.chatRequests[0]?.messages.at(-1)).toMatchObject({
      role: 'user',
      content: "What's weather in Paris, TX?",
    });
  });

  it('exits 2 naming the arguments when a required one is missing, before the model is called', async () => {
    const ollama = await fixture.startModel([]);
    const run = await mcphost('/offerings:greet mood=calm');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'prompt /offerings:greet: missing required argument "name"; it takes name (required: Who to greet), mood',
    );
    expect(ollama.chatRequests).toHaveLength(0);
  });

  it('attaches @server:uri resources, and fails cleanly on one that cannot be read', async () => {
    const ollama = await fixture.startModel([textReply('read it')]);
    const run = await mcphost('What does @everything:demo://resource/dynamic/text/2 say?');
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('attached @everything:demo://resource/dynamic/text/2');
    expect(ollama.chatRequests[0]?.messages.at(-1)?.content).toMatch(
      // Marked as data from outside (on by default), like tool output.
      /What does @everything:demo:\/\/resource\/dynamic\/text\/2 say\?\n*<untrusted-resource server="everything" uri="demo:\/\/resource\/dynamic\/text\/2"/,
    );

    const broken = await mcphost('Read @offerings:fixture://broken');
    expect(broken.code).toBe(5);
    expect(broken.stderr).toContain('server "offerings" could not read resource "fixture://broken"');
    expect(broken.stderr).toContain('the disk is on fire');
  });

  it('declines an elicitation, tells the server, and says so on stderr', async () => {
    await fixture.startModel([
      toolCallReply(['everything__trigger-elicitation-request', {}]),
      (request) => textReply(`tool said: ${unwrapped(request.messages.at(-1)?.content ?? '')}`),
    ]);
    const run = await mcphost('ask me');
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      'server "everything" asked for input (form): "Please provide inputs for the following fields:" — decline',
    );
    expect(run.stdout).toContain('User declined to provide the requested information');
  });

  it('accepts a form with its defaults under the home config\'s "accept-defaults" policy', async () => {
    const accepting = await temporaryHome();
    try {
      await accepting.writeConfig({
        mcpServers: { offerings: OFFERINGS },
        elicitation: { policy: 'accept-defaults' },
      });
      const ollama = await fixture.startModel([
        toolCallReply(['offerings__defaults-form', {}]),
        (request) => textReply(`tool said: ${unwrapped(request.messages.at(-1)?.content ?? '')}`),
      ]);
      const run = await runCli(
        ['-m', 'ollama:mistral-small', '--provider-url', ollama.url, '-p', 'settings'],
        accepting.path,
      );
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(
        'server "offerings" asked for input (form): "Settings" — accept (accepted with the schema\'s defaults)',
      );
      expect(run.stdout).toContain(
        'answer: {"action":"accept","content":{"name":"John Doe","age":30,"verified":true}}',
      );
    } finally {
      await accepting.remove();
    }
  });

  it('reports tool progress as stream-json events with the call id', async () => {
    await fixture.startModel([toolCallReply(['offerings__steps', {}]), textReply('done')]);
    const run = await mcphost('go', '--output-format', 'stream-json');
    expect(run.code).toBe(0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; id?: string });
    const call = events.find((event) => event.type === 'tool-call');
    const progress = events.filter((event) => event.type === 'progress');
    expect(progress).toEqual(
      [1, 2, 3].map((step) => ({
        type: 'progress',
        step: 1,
        id: call?.id,
        server: 'offerings',
        tool: 'steps',
        progress: step,
        total: 3,
        message: `step ${step}`,
      })),
    );
    const order = events.map((event) => event.type);
    expect(order.indexOf('progress')).toBeGreaterThan(order.indexOf('tool-call'));
    expect(order.lastIndexOf('progress')).toBeLessThan(order.indexOf('tool-result'));
  });
});
