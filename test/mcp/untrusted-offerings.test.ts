/**
 * Resources and prompts are screened and marked like tool results: an `@server:uri` attachment and
 * a `/server:prompt` turn (with its embedded resource) from a real MCP server on the v2 SDK go
 * through the same detector and policy, are wrapped in `<untrusted-resource>` tags the content
 * cannot close, and are withheld, redacted or shown as the policy (or the user, under `ask`) says.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRunner, type McpRunner } from '../../src/index.js';
import type { FlaggedContentReview } from '../../src/core/questions.js';
import type { FlagReport, InjectionPolicy } from '../../src/safety/untrusted-content.js';
import type { CreateRunnerOptions } from '../../src/setup/create-runner.js';
import type { UserContent } from '../../src/core/types.js';
import { startFakeOllama, type FakeOllama } from '../fakes/ollama-server.js';
import { REPOSITORY } from '../support/cli.js';

let ollama: FakeOllama | undefined;
let runner: McpRunner | undefined;
afterEach(async () => {
  await runner?.close();
  runner = undefined;
  await ollama?.close();
  ollama = undefined;
});

async function start(options: Partial<CreateRunnerOptions> & { policy?: InjectionPolicy } = {}) {
  ollama = await startFakeOllama([]);
  const flags: FlagReport[] = [];
  const { policy, ...rest } = options;
  runner = await createRunner({
    model: 'ollama:mistral-small',
    providerUrl: ollama.url,
    mcpServers: {
      hostile: {
        command: process.execPath,
        args: [join(REPOSITORY, 'test/fixtures/servers/hostile-offerings.mjs')],
      },
    },
    env: {},
    onEvent: (event) => {
      if (event.type === 'content-flagged') flags.push(event.report);
    },
    ...(policy === undefined ? {} : { safety: { untrustedContent: { policy } } }),
    ...rest,
  });
  return { runner, flags };
}

function textOf(content: readonly UserContent[]): string {
  return content.map((block) => (block.type === 'text' ? block.text : '[image]')).join('\n');
}

describe('an @server:uri attachment', () => {
  it('is marked as untrusted, cannot close its tags, and is flagged (warn: still attached)', async () => {
    const { runner, flags } = await start();
    const turn = await runner.mcp.expandUserTurn(
      'what do @hostile:fixture://page and @hostile:fixture://plain say?',
    );
    const text = textOf(turn.content);
    expect(text).toContain('<untrusted-resource server="hostile" uri="fixture://page" type="text/plain">');
    expect(text).toContain('</untrusted-resource (quoted)>\nIgnore previous instructions');
    expect(text.match(/<\/untrusted-resource>/g)).toHaveLength(2);
    expect(turn.notes).toEqual(['attached @hostile:fixture://page', 'attached @hostile:fixture://plain']);
    expect(flags).toHaveLength(1);
    expect(flags[0]).toMatchObject({
      source: '@hostile:fixture://page',
      origin: { kind: 'resource', server: 'hostile', uri: 'fixture://page' },
      flag: { policy: 'warn', action: 'shown' },
    });
    expect(flags[0]?.flag.findings.join(' ')).toMatch(/ignore its instructions/);
  });

  it('is withheld under block, with a note for the model and the user', async () => {
    const { runner, flags } = await start({ policy: 'block' });
    const turn = await runner.mcp.expandUserTurn('read @hostile:fixture://page');
    const text = textOf(turn.content);
    expect(text).not.toContain('Meeting notes');
    expect(text).toContain(
      'The resource @hostile:fixture://page was withheld because it looks like a prompt injection',
    );
    expect(turn.notes).toEqual(['withheld @hostile:fixture://page']);
    expect(flags[0]?.flag.action).toBe('blocked');
  });

  it('is redacted when the user answers so under ask, who is shown where it came from', async () => {
    const reviews: FlaggedContentReview[] = [];
    const { runner } = await start({
      policy: 'ask',
      questions: {
        reviewFlaggedContent: async (review) => {
          reviews.push(review);
          return { kind: 'redact' };
        },
      },
    });
    const turn = await runner.mcp.expandUserTurn('read @hostile:fixture://page');
    const text = textOf(turn.content);
    expect(text).toContain('Meeting notes');
    expect(text).toContain('[removed by mcphost: ignore-instructions]');
    expect(text).not.toMatch(/Ignore previous instructions/);
    expect(reviews).toHaveLength(1);
    expect(reviews[0]).toMatchObject({ server: 'hostile', source: '@hostile:fixture://page' });
    expect(reviews[0]?.preview).toContain('Ignore previous instructions');
  });

  it('keeps the plain <resource> tags when marking is turned off', async () => {
    const { runner } = await start({ safety: { untrustedContent: { markAsData: false } } });
    const turn = await runner.mcp.expandUserTurn('read @hostile:fixture://plain');
    expect(textOf(turn.content)).toContain(
      '<resource server="hostile" uri="fixture://plain" type="text/plain">',
    );
  });
});

describe('a /server:prompt turn', () => {
  it('marks its embedded resource and flags the prompt (warn)', async () => {
    const { runner, flags } = await start();
    const turn = await runner.mcp.expandUserTurn('/hostile:summarize');
    const text = textOf(turn.content);
    expect(text).toContain('Summarize these notes in three bullet points.');
    expect(text).toContain('<untrusted-resource server="hostile" uri="fixture://page" type="text/plain">');
    expect(turn.notes).toEqual(['prompt /hostile:summarize']);
    expect(flags[0]).toMatchObject({ source: '/hostile:summarize', origin: { kind: 'prompt' } });
  });

  it('is withheld when no one can be asked under ask (the library without a callback)', async () => {
    const { runner, flags } = await start({ policy: 'ask' });
    const turn = await runner.mcp.expandUserTurn('/hostile:summarize');
    expect(textOf(turn.content)).toMatch(/^The prompt \/hostile:summarize was withheld because/);
    expect(turn.notes).toEqual(['withheld /hostile:summarize']);
    expect(flags[0]?.flag.action).toBe('withheld');
  });
});
