/**
 * One-shot runs as a Unix tool, through the built CLI: output formats, stdin, exit codes, --quiet,
 * --no-exit. A loopback fake Ollama plays the model; the tools are real MCP servers from npm.
 */
import { describe, expect, it } from 'vitest';
import type { JsonResult, StreamEvent } from '../../src/cli/output/schema.js';
import { errorReply, textReply, toolCallReply, type FakeChatRequest } from '../fakes/ollama-server.js';
import { runCli, EVERYTHING_SERVER } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';
import { jsonLines, startCli } from './scripting-helpers.js';
import { unwrapped } from '../support/untrusted.js';

const fixture = useCliFixture();

function lastUserText(request: FakeChatRequest | undefined): string | undefined {
  return request?.messages.filter((message) => message.role === 'user').at(-1)?.content;
}

/** The model says something, calls `everything__echo`, then answers with what the tool said. */
function echoScript() {
  return [
    {
      type: 'answer' as const,
      text: 'Let me check.',
      toolCalls: [{ name: 'everything__echo', arguments: { message: 'ping' } }],
    },
    (request: FakeChatRequest) =>
      textReply(`The tool said: ${unwrapped(request.messages.at(-1)?.content ?? '')}`),
  ];
}

describe('--output-format json', () => {
  it('prints one JSON object with the answer, the tool calls and their results, usage and model', async () => {
    await fixture.home.writeConfig({ mcpServers: { everything: EVERYTHING_SERVER } });
    const ollama = await fixture.startModel(echoScript());
    const run = await runCli(
      ['-p', 'go', '--output-format', 'json', '--provider-url', ollama.url],
      fixture.home.path,
    );
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const result = JSON.parse(lines[0]!) as JsonResult;
    expect(result).toMatchObject({
      type: 'result',
      ok: true,
      exitCode: 0,
      text: 'The tool said: Echo: ping',
      stopReason: 'end',
      steps: 2,
      model: 'ollama:mistral-small',
    });
    expect(result.toolCalls).toEqual([
      {
        id: expect.any(String) as string,
        name: 'everything__echo',
        server: 'everything',
        tool: 'echo',
        arguments: { message: 'ping' },
        result: 'Echo: ping',
        isError: false,
        durationMs: expect.any(Number) as number,
      },
    ]);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(result.durationMs).toBeGreaterThan(0);
    expect(result.error).toBeUndefined();
    // Tool activity is in the JSON, not on stderr.
    expect(run.stderr).not.toContain('everything__echo');
  });

  it('prints a JSON error object on failure, with the exit code unchanged', async () => {
    const ollama = await fixture.startModel([]);
    const provider = await runCli(
      ['-m', 'ollama:not-pulled', '-p', 'hi', '--output-format', 'json', '--provider-url', ollama.url],
      fixture.home.path,
    );
    expect(provider.code).toBe(3);
    const failed = JSON.parse(provider.stdout) as JsonResult;
    expect(failed).toMatchObject({
      ok: false,
      exitCode: 3,
      stopReason: 'error',
      model: 'ollama:not-pulled',
      steps: 1,
    });
    expect(failed.error?.type).toBe('ProviderError');
    expect(failed.error?.message).toContain('not-pulled');
    expect(provider.stderr).toContain('mcphost: ');

    // Even when the flags themselves are wrong.
    const usage = await runCli(['-p', 'x', '--output-format', 'json', '--max-steps', '0'], fixture.home.path);
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stdout)).toMatchObject({
      ok: false,
      exitCode: 2,
      error: { type: 'ConfigError', message: '--max-steps: expected a positive whole number, got 0' },
    });
  });
});

describe('--output-format stream-json', () => {
  it('prints one JSON event per line: start, text, tool call and result, a retry, the result', async () => {
    await fixture.home.writeConfig({ mcpServers: { everything: EVERYTHING_SERVER } });
    // A window the definitions fit in: at Ollama's 4,096 a `tool-search` event would come second.
    const ollama = await fixture.startModel([errorReply(503, 'busy'), ...echoScript()], { numCtx: 32_768 });
    const run = await runCli(
      ['-p', 'go', '--output-format', 'stream-json', '--provider-url', ollama.url],
      fixture.home.path,
    );
    expect(run.code).toBe(0);
    const events = jsonLines<StreamEvent>(run.stdout);
    expect(events.map((event) => event.type)).toEqual([
      'start',
      'retry',
      'text-delta',
      'tool-call',
      'tool-result',
      'text-delta',
      'result',
    ]);
    const [start, retry, , call, result] = events;
    expect(start).toMatchObject({
      type: 'start',
      model: 'ollama:mistral-small',
      servers: [{ name: 'everything', state: 'ready' }],
    });
    expect(start?.type === 'start' && start.tools).toBeGreaterThan(5);
    expect(retry).toMatchObject({ type: 'retry', attempt: 1, error: { type: 'ProviderError', status: 503 } });
    expect(call).toMatchObject({
      type: 'tool-call',
      step: 1,
      server: 'everything',
      tool: 'echo',
      arguments: { message: 'ping' },
    });
    expect(result).toMatchObject({ type: 'tool-result', step: 1, result: 'Echo: ping', isError: false });
    expect(events.at(-1)).toMatchObject({
      type: 'result',
      ok: true,
      text: 'The tool said: Echo: ping',
      steps: 2,
    });
    // The retry note is for humans, on stderr.
    expect(run.stderr).toMatch(/retrying in/);
  });

  it('ends a failed run with an error event and a result (max steps: exit code 4)', async () => {
    const ollama = await fixture.startModel([
      toolCallReply(['nothing__here', {}]),
      toolCallReply(['nothing__here', {}]),
    ]);
    const run = await runCli(
      ['-p', 'loop', '--max-steps', '2', '--output-format', 'stream-json', '--provider-url', ollama.url],
      fixture.home.path,
    );
    expect(run.code).toBe(4);
    const events = jsonLines<StreamEvent>(run.stdout);
    expect(events.slice(-2)).toEqual([
      {
        type: 'error',
        error: { type: 'MaxStepsError', message: expect.stringContaining('stopped after 2 steps') as string },
      },
      expect.objectContaining({ type: 'result', ok: false, exitCode: 4, stopReason: 'max-steps', steps: 2 }),
    ]);
    expect(events.filter((event) => event.type === 'tool-result')).toHaveLength(2);
  });

  it('SIGINT during a slow answer ends with exit code 130 and a JSON result saying so', async () => {
    const ollama = await fixture.startModel([{ type: 'stall', text: ['Thinking about'] }]);
    const cli = startCli(
      ['-p', 'slow', '--output-format', 'stream-json', '--provider-url', ollama.url],
      fixture.home.path,
    );
    cli.child.stdin.end();
    await cli.waitForStdout((stdout) => stdout.includes('"text-delta"'));
    cli.child.kill('SIGINT');
    const run = await cli.done;
    expect(run.code).toBe(130);
    const events = jsonLines<StreamEvent>(run.stdout);
    expect(events.at(-1)).toMatchObject({
      type: 'result',
      ok: false,
      exitCode: 130,
      stopReason: 'interrupted',
      text: 'Thinking about',
      error: { type: 'AbortedError', message: 'stopped by SIGINT' },
    });
  });
});

describe('--quiet', () => {
  it('prints the final answer alone, and nothing on stderr', async () => {
    await fixture.home.writeConfig({ mcpServers: { everything: EVERYTHING_SERVER } });
    const ollama = await fixture.startModel(echoScript());
    const run = await runCli(['-p', 'go', '--quiet', '--provider-url', ollama.url], fixture.home.path);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('The tool said: Echo: ping\n');
    expect(run.stderr).toBe('');
  });

  it('drops notes (no config file) but keeps errors', async () => {
    const ollama = await fixture.startModel([toolCallReply(['x__y', {}])]);
    const run = await runCli(
      ['-q', '-p', 'go', '--max-steps', '1', '--provider-url', ollama.url],
      fixture.home.path,
    );
    expect(run.code).toBe(4);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^mcphost: stopped after 1 steps/)]);
  });
});

describe('stdin', () => {
  it('-p - reads the prompt from stdin', async () => {
    const ollama = await fixture.startModel([textReply('four')]);
    const run = await runCli(['-p', '-', '--provider-url', ollama.url], fixture.home.path, {
      stdin: 'what is 2+2?\n',
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('four\n');
    expect(lastUserText(ollama.chatRequests[0])).toBe('what is 2+2?');
  });

  it('-p TEXT with a piped stdin asks TEXT, a blank line, then the piped content', async () => {
    const ollama = await fixture.startModel([textReply('looks fine')]);
    const diff = 'diff --git a/x b/x\n+added line\n';
    const run = await runCli(['-p', 'review this', '--provider-url', ollama.url], fixture.home.path, {
      stdin: diff,
    });
    expect(run.code).toBe(0);
    expect(lastUserText(ollama.chatRequests[0])).toBe('review this\n\ndiff --git a/x b/x\n+added line');
  });

  it('an empty stdin adds nothing, and -p - with an empty stdin is a usage error (exit code 2)', async () => {
    const ollama = await fixture.startModel([textReply('ok')]);
    const plain = await runCli(['-p', 'just this', '--provider-url', ollama.url], fixture.home.path, {
      stdin: '',
    });
    expect(plain.code).toBe(0);
    expect(lastUserText(ollama.chatRequests[0])).toBe('just this');
    const empty = await runCli(['-p', '-', '--provider-url', ollama.url], fixture.home.path, { stdin: '' });
    expect(empty.code).toBe(2);
    expect(empty.stderr.trim()).toBe('mcphost: -p -: stdin was empty: there is no prompt to send');
    expect(ollama.chatRequests).toHaveLength(1);
  });

  it('does not hang on a stdin pipe that stays open and silent', async () => {
    const ollama = await fixture.startModel([textReply('answered anyway')]);
    const cli = startCli(['-p', 'hi', '--provider-url', ollama.url], fixture.home.path);
    // stdin is never written to nor closed.
    const run = await cli.done;
    cli.child.stdin.destroy();
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('answered anyway\n');
    expect(run.stderr).toContain('nothing came on stdin within 3s');
    expect(lastUserText(ollama.chatRequests[0])).toBe('hi');
  });
});

describe('flags that go together', () => {
  it('refuses combinations that cannot work, with exit code 2', async () => {
    const cases: Array<[string[], string]> = [
      [['--output-format', 'json'], '--output-format: only with -p or a script'],
      [['--quiet'], '--quiet: only with -p or a script'],
      [['--no-exit'], '--no-exit: only with -p or a script'],
      [
        ['-p', 'x', '--no-exit', '--output-format', 'json'],
        '--no-exit: the chat that follows cannot be json',
      ],
      [['-p', '-', '--no-exit'], '--no-exit: stdin feeds the chat'],
      [['-p', 'x', '--args:name', 'v'], '--args: script variables only go with `mcphost script FILE`'],
      [['-s', 'a.json', '--load-session', 'b.json', '-p', 'x'], 'not with --save-session or --load-session'],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(args, fixture.home.path);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toContain(message);
    }
  });
});

describe('--no-exit', () => {
  it('answers -p, then goes on chatting with the same history', async () => {
    const ollama = await fixture.startModel([textReply('first answer'), textReply('second answer')]);
    const run = await runCli(
      ['-p', 'first question', '--no-exit', '--provider-url', ollama.url],
      fixture.home.path,
      {
        stdin: 'follow-up question\n/quit\n',
      },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('first answer');
    expect(run.stdout).toContain('second answer');
    expect(ollama.chatRequests).toHaveLength(2);
    const second = ollama.chatRequests[1]!.messages.filter((message) => message.role !== 'system');
    expect(second.map((message) => [message.role, message.content])).toEqual([
      ['user', 'first question'],
      ['assistant', 'first answer'],
      ['user', 'follow-up question'],
    ]);
  });
});
