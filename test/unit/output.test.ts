import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ExitCode, exitCodeOf } from '../../src/cli/exit-codes.js';
import type { CliIO } from '../../src/cli/io.js';
import {
  createReporter,
  outputFormatOfArgv,
  type Reporter,
  type RunContext,
} from '../../src/cli/output/reporter.js';
import type { JsonResult, OutputFormat, StreamEvent } from '../../src/cli/output/schema.js';
import { ConfigError, MaxStepsError, ProviderError } from '../../src/core/errors.js';
import type { Sleep } from '../../src/core/retry.js';
import { Runner } from '../../src/core/runner.js';
import { FakeToolHost } from '../support/fake-tool-host.js';
import { ScriptedProvider, textReply, toolReply } from '../support/scripted-provider.js';

interface Captured {
  readonly io: CliIO;
  stdout(): string;
  stderr(): string;
}

function capture(): Captured {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return {
    io: { stdin: new PassThrough(), stdout, stderr, env: {}, homeDir: '/home/test', cwd: '/' },
    stdout: () => out,
    stderr: () => err,
  };
}

/** A clock that moves 250 ms each time it is read. */
function steppingClock(): () => number {
  let now = 0;
  return () => (now += 250);
}

const context: RunContext = {
  model: 'scripted:test',
  servers: [
    { name: 'files', transport: 'stdio', state: 'ready', toolCount: 1, stderrTail: [], restarts: 0 },
    {
      name: 'broken',
      transport: 'stdio',
      state: 'failed',
      toolCount: 0,
      lastError: 'exited with code 3',
      stderrTail: [],
      restarts: 0,
    },
  ],
  tools: [{ exposedName: 'files__read', server: 'files', tool: 'read' }],
};

const noSleep: Sleep = async () => undefined;

/** Two steps: text and a tool call, then the answer. */
function twoStepRunner(): Runner {
  const provider = new ScriptedProvider([
    [
      { type: 'text-delta', text: 'Let me read it.' },
      ...toolReply({ id: 'c1', name: 'files__read', input: { path: '/a' } }),
    ],
    textReply('The file says hello.'),
  ]);
  return new Runner({
    provider,
    tools: new FakeToolHost({ files__read: () => 'hello\nworld' }),
    sleep: noSleep,
  });
}

/** Drives a reporter the way main.ts does. */
async function report(runner: Runner, reporter: Reporter): Promise<number> {
  reporter.identify({ sessionFile: '/tmp/chat.json' });
  reporter.start(context);
  try {
    const result = await runner.run('read /a', { onEvent: (event) => reporter.event(event) });
    reporter.succeed(result);
    return ExitCode.ok;
  } catch (error) {
    const code = exitCodeOf(error);
    reporter.fail(error, code);
    return code;
  }
}

function make(format: OutputFormat, quiet = false): { reporter: Reporter; captured: Captured } {
  const captured = capture();
  return {
    reporter: createReporter({ format, quiet, debug: false, now: steppingClock() }, captured.io),
    captured,
  };
}

describe('text output', () => {
  it('streams every step to stdout and tool activity to stderr', async () => {
    const { reporter, captured } = make('text');
    expect(await report(twoStepRunner(), reporter)).toBe(0);
    expect(captured.stdout()).toBe('Let me read it.\nThe file says hello.\n');
    expect(captured.stderr()).toContain('→ files__read {"path":"/a"}');
    expect(captured.stderr()).toContain('← files__read');
  });

  it('adds the real tool and server to a call whose exposed name was shortened, as the chat does', async () => {
    const { reporter, captured } = make('text');
    const exposed = 'file_system__read_text_file_6d85ae13';
    const runner = new Runner({
      provider: new ScriptedProvider([
        toolReply({ id: 'c1', name: exposed, input: { path: '/a' } }),
        textReply('done'),
      ]),
      tools: new FakeToolHost({ [exposed]: () => 'hello' }),
      sleep: noSleep,
    });
    reporter.start({
      ...context,
      tools: [{ exposedName: exposed, server: 'file system', tool: 'read_text_file' }],
    });
    const result = await runner.run('read /a', { onEvent: (event) => reporter.event(event) });
    reporter.succeed(result);
    expect(captured.stderr()).toContain(`→ ${exposed} (read_text_file on file system) {"path":"/a"}`);
  });

  it('--quiet: the final answer alone on stdout, nothing on stderr', async () => {
    const { reporter, captured } = make('text', true);
    reporter.note('no config file');
    expect(await report(twoStepRunner(), reporter)).toBe(0);
    expect(captured.stdout()).toBe('The file says hello.\n');
    expect(captured.stderr()).toBe('');
  });

  it('--quiet still shows the error', async () => {
    const { reporter, captured } = make('text', true);
    const runner = new Runner({
      provider: new ScriptedProvider([
        { error: new ProviderError('scripted', 'model not found', { retryable: false, status: 404 }) },
      ]),
    });
    expect(await report(runner, reporter)).toBe(ExitCode.provider);
    expect(captured.stdout()).toBe('');
    expect(captured.stderr()).toBe('mcphost: model not found\n');
  });
});

describe('json output', () => {
  it('prints one object with the answer, the calls, the usage and the session file', async () => {
    const { reporter, captured } = make('json');
    reporter.note('a note goes to stderr');
    expect(await report(twoStepRunner(), reporter)).toBe(0);
    const lines = captured.stdout().trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const result = JSON.parse(lines[0]!) as JsonResult;
    expect(result).toEqual({
      type: 'result',
      ok: true,
      exitCode: 0,
      text: 'The file says hello.',
      stopReason: 'end',
      steps: 2,
      toolCalls: [
        {
          id: 'c1',
          name: 'files__read',
          server: 'files',
          tool: 'read',
          arguments: { path: '/a' },
          result: 'hello\nworld',
          isError: false,
          durationMs: expect.any(Number) as number,
        },
      ],
      usage: { inputTokens: 30, outputTokens: 12 },
      model: 'scripted:test',
      durationMs: 250,
      sessionFile: '/tmp/chat.json',
      // A server that could not start is in the one object a script reads, with why.
      servers: [
        { name: 'files', state: 'ready', tools: 1 },
        { name: 'broken', state: 'failed', tools: 0, error: 'exited with code 3' },
      ],
    });
    expect(captured.stderr()).toBe('mcphost: a note goes to stderr\n');
  });

  it('prints the error object on failure, with what the run did before it', async () => {
    const { reporter, captured } = make('json');
    const provider = new ScriptedProvider([
      toolReply({ id: 'c1', name: 'files__read', input: {} }),
      toolReply({ id: 'c2', name: 'nope__tool', input: {} }),
    ]);
    const runner = new Runner({ provider, tools: new FakeToolHost({ files__read: () => 'x' }), maxSteps: 2 });
    expect(await report(runner, reporter)).toBe(ExitCode.maxSteps);
    const result = JSON.parse(captured.stdout()) as JsonResult;
    expect(result).toMatchObject({
      ok: false,
      exitCode: 4,
      stopReason: 'max-steps',
      steps: 2,
      usage: { inputTokens: 40, outputTokens: 14 },
      error: { type: 'MaxStepsError', message: new MaxStepsError(2).message },
    });
    expect(result.toolCalls.map((call) => [call.name, call.server, call.isError])).toEqual([
      ['files__read', 'files', false],
      ['nope__tool', undefined, true],
    ]);
    expect(captured.stderr()).toBe(`mcphost: ${new MaxStepsError(2).message}\n`);
  });

  it('reports a failure before the run started', () => {
    const { reporter, captured } = make('json');
    reporter.fail(new ConfigError('--max-steps', 'expected a positive whole number'), ExitCode.usage);
    expect(JSON.parse(captured.stdout())).toEqual({
      type: 'result',
      ok: false,
      exitCode: 2,
      text: '',
      stopReason: 'error',
      steps: 0,
      toolCalls: [],
      usage: { inputTokens: 0, outputTokens: 0 },
      durationMs: 250,
      error: { type: 'ConfigError', message: '--max-steps: expected a positive whole number' },
    });
  });
});

describe('stream-json output', () => {
  it('prints one event per line as the run goes, the result last', async () => {
    const { reporter, captured } = make('stream-json');
    expect(await report(twoStepRunner(), reporter)).toBe(0);
    const events = captured
      .stdout()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as StreamEvent);
    expect(events.map((event) => event.type)).toEqual([
      'start',
      'text-delta',
      'tool-call',
      'tool-result',
      'text-delta',
      'result',
    ]);
    expect(events[0]).toEqual({
      type: 'start',
      model: 'scripted:test',
      servers: [
        { name: 'files', state: 'ready', tools: 1 },
        { name: 'broken', state: 'failed', tools: 0, error: 'exited with code 3' },
      ],
      tools: 1,
      sessionFile: '/tmp/chat.json',
    });
    expect(events[1]).toEqual({ type: 'text-delta', step: 1, text: 'Let me read it.' });
    expect(events[2]).toEqual({
      type: 'tool-call',
      step: 1,
      id: 'c1',
      name: 'files__read',
      server: 'files',
      tool: 'read',
      arguments: { path: '/a' },
    });
    expect(events[3]).toMatchObject({
      type: 'tool-result',
      step: 1,
      id: 'c1',
      result: 'hello\nworld',
      isError: false,
    });
    expect(events[4]).toEqual({ type: 'text-delta', step: 2, text: 'The file says hello.' });
    expect(events[5]).toMatchObject({ type: 'result', ok: true, text: 'The file says hello.', steps: 2 });
    expect(captured.stderr()).toBe('');
  });

  it('shows retries, then an error event and a failed result', async () => {
    const { reporter, captured } = make('stream-json');
    const busy = new ProviderError('scripted', 'server busy', { retryable: true, status: 503 });
    const denied = new ProviderError('scripted', 'invalid key', { retryable: false, status: 401 });
    const runner = new Runner({
      provider: new ScriptedProvider([{ error: busy }, { error: denied }]),
      sleep: noSleep,
      random: () => 0.5,
    });
    expect(await report(runner, reporter)).toBe(ExitCode.provider);
    const events = captured
      .stdout()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as StreamEvent);
    expect(events.map((event) => event.type)).toEqual(['start', 'retry', 'error', 'result']);
    expect(events[1]).toMatchObject({
      type: 'retry',
      attempt: 1,
      error: { type: 'ProviderError', message: 'server busy', status: 503 },
    });
    expect(events[2]).toEqual({
      type: 'error',
      error: { type: 'ProviderError', message: 'invalid key', status: 401 },
    });
    expect(events[3]).toMatchObject({ type: 'result', ok: false, exitCode: 3, stopReason: 'error' });
  });
});

describe('outputFormatOfArgv', () => {
  it('finds the format in raw arguments, text when unclear', () => {
    expect(outputFormatOfArgv(['-p', 'x', '--output-format', 'json'])).toBe('json');
    expect(outputFormatOfArgv(['--output-format=stream-json', '--max-steps', '0'])).toBe('stream-json');
    expect(outputFormatOfArgv(['--output-format', 'xml'])).toBe('text');
    expect(outputFormatOfArgv(['--output-format'])).toBe('text');
  });
});
