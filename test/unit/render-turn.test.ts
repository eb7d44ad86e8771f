/** A turn on screen: events in, text out, with a recording spinner; and what the display allows. */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { detectDisplay, type Display } from '../../src/cli/chat/display.js';
import { createStatusIndicator, type StatusIndicator } from '../../src/cli/chat/status-line.js';
import { createStyle } from '../../src/cli/chat/style.js';
import { TurnView } from '../../src/cli/chat/turn-view.js';
import { UsageTotals } from '../../src/cli/chat/usage.js';
import { AbortedError, MaxStepsError, ProviderError } from '../../src/core/errors.js';
import type { RunnerEvent, RunResult } from '../../src/core/events.js';
import type { ToolCallBlock } from '../../src/core/types.js';

const ESC = '\u001B';

function plainDisplay(columns = 80): Display {
  return {
    terminal: false,
    rich: false,
    animated: false,
    style: createStyle(false),
    columns: () => columns,
    rows: () => 24,
  };
}

function setUp(display: Display = plainDisplay(), now: () => number = Date.now) {
  let stdout = '';
  let stderr = '';
  const status: string[] = [];
  const indicator: StatusIndicator = {
    show: (label) => void status.push(`show ${label}`),
    hide: () => void status.push('hide'),
  };
  const usage = new UsageTotals();
  const view = new TurnView({
    stdout: { write: (text) => void (stdout += text) },
    stderr: { write: (text) => void (stderr += text) },
    display,
    status: indicator,
    renderer: () => (markdown) => `<${markdown.trim()}>`,
    origins: new Map([['fs__read', { server: 'files', tool: 'read file' }]]),
    usage,
    debug: false,
    now,
  });
  return { view, usage, status, out: () => stdout, err: () => stderr };
}

const call: ToolCallBlock = { type: 'tool-call', id: 'c1', name: 'fs__read', input: { path: '/tmp/a.txt' } };

function result(text: string): RunResult {
  return {
    text,
    steps: 2,
    toolCalls: [],
    messages: [],
    usage: { inputTokens: 30, outputTokens: 12 },
    stopReason: 'end',
  };
}

describe('TurnView', () => {
  it('shows the spinner, the tool call and its result, the answer and the usage', () => {
    const { view, usage, status, out } = setUp();
    view.start();
    const events: RunnerEvent[] = [
      { type: 'step-start', step: 1 },
      { type: 'text-delta', text: 'Let me look.' },
      {
        type: 'step-finish',
        step: 1,
        finishReason: 'tool-calls',
        usage: { inputTokens: 20, outputTokens: 7 },
      },
      { type: 'tool-call', call },
      {
        type: 'tool-result',
        record: {
          call,
          durationMs: 1234,
          result: {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'fs__read',
            content: [{ type: 'text', text: `line 1\n${ESC}[2Jline 2\nline 3\nline 4\nline 5` }],
            isError: false,
          },
        },
      },
      { type: 'step-start', step: 2 },
      { type: 'text-delta', text: 'It says ' },
      { type: 'text-delta', text: '**hello**.' },
      { type: 'step-finish', step: 2, finishReason: 'stop', usage: { inputTokens: 10, outputTokens: 5 } },
    ];
    for (const event of events) view.onEvent(event);
    view.succeeded(result('It says **hello**.'));
    expect(out()).toBe(
      [
        'Let me look.',
        '→ fs__read (read file on files) {"path":"/tmp/a.txt"}',
        '  ← fs__read (1.2s) line 1',
        '    line 2',
        '    line 3',
        '    … (2 more lines)',
        'It says **hello**.',
        '30 tokens in · 12 out',
        '',
      ].join('\n'),
    );
    expect(status.filter((entry) => entry.startsWith('show'))).toEqual([
      'show thinking',
      'show running read file on files',
      'show thinking',
      'show thinking',
    ]);
    // Hidden before the answer streams, and at the end.
    expect(status[1]).toBe('hide');
    expect(status.at(-1)).toBe('hide');
    expect(usage).toMatchObject({
      turns: 1,
      modelCalls: 2,
      inputTokens: 30,
      outputTokens: 12,
      reported: true,
    });
  });

  it('marks a failed tool call as an error', () => {
    const { view, out } = setUp();
    view.start();
    view.onEvent({
      type: 'tool-call',
      call: { ...call, name: 'other__tool', input: { long: 'x'.repeat(500) } },
    });
    view.onEvent({
      type: 'tool-result',
      record: {
        call,
        durationMs: 50,
        result: {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'other__tool',
          content: [{ type: 'text', text: 'permission denied' }],
          isError: true,
        },
      },
    });
    const lines = out().split('\n');
    expect(lines[0]).toMatch(/^→ other__tool \{"long":"x+…$/);
    expect(lines[0]?.length).toBeLessThanOrEqual(80);
    expect(lines[1]).toBe('  ✗ fs__read (0.1s) permission denied');
  });

  it('shows a failure on stderr, cancelling on stdout, and no usage when none was reported', () => {
    const failing = setUp();
    failing.view.start();
    failing.view.onEvent({ type: 'text-delta', text: 'partial' });
    failing.view.failed(new ProviderError('ollama', 'cannot reach Ollama at http://x', { retryable: true }));
    expect(failing.out()).toBe('partial\n');
    expect(failing.err()).toBe('✗ cannot reach Ollama at http://x\n');

    const limited = setUp();
    limited.view.start();
    limited.view.failed(new MaxStepsError(3));
    expect(limited.err()).toMatch(/^✗ stopped after 3 steps/);

    const cancelled = setUp();
    cancelled.view.start();
    cancelled.view.failed(new AbortedError());
    expect(cancelled.out()).toBe('⏹ cancelled\n');
    expect(cancelled.err()).toBe('');
  });

  it('reports retries with the wait', () => {
    const { view, err, status } = setUp();
    view.start();
    view.onEvent({
      type: 'retry',
      attempt: 1,
      delayMs: 2000,
      error: new ProviderError('ollama', 'HTTP 503 busy', { status: 503, retryable: true }),
    });
    expect(err()).toBe('⟳ HTTP 503 busy — retrying in 2.0s (retry 1)\n');
    expect(status.at(-1)).toBe('show waiting 2.0s to retry');
  });

  it('stops the spinner while a question is asked, and brings it back', () => {
    const { view, status } = setUp();
    view.start();
    view.onEvent({ type: 'tool-call', call });
    status.length = 0;
    view.suspend();
    // Events while the question is open do not bring the spinner back.
    view.onEvent({ type: 'step-start', step: 2 });
    view.resume();
    expect(status).toEqual(['hide', 'show thinking']);
  });

  it("leaves the time the user took to approve a call out of that call's duration", () => {
    let clock = 0;
    const { view, out } = setUp(plainDisplay(), () => clock);
    view.start();
    view.onEvent({ type: 'tool-call', call });
    // The approval question is on screen for 20 s; the tool then runs for 0.3 s.
    view.suspend('c1');
    clock += 20_000;
    view.resume();
    clock += 300;
    view.onEvent({
      type: 'tool-result',
      record: {
        call,
        durationMs: 20_300,
        result: { type: 'tool-result', toolCallId: 'c1', toolName: 'fs__read', content: [], isError: false },
      },
    });
    expect(out()).toContain('  ← fs__read (0.3s) (empty)');
    expect(out()).not.toContain('20s');
  });

  it("starts each turn's spinner clock at zero (not at the last turn's)", () => {
    let clock = 0;
    let screen = '';
    const terminal = Object.assign(new PassThrough(), {
      isTTY: true,
      columns: 80,
      cursorTo: () => true,
      moveCursor: () => true,
      clearLine: () => true,
    });
    terminal.on('data', (chunk: Buffer) => (screen += chunk.toString()));
    const animated: Display = { ...plainDisplay(), terminal: true, animated: true };
    const status = createStatusIndicator(terminal, animated, () => clock);
    const turn = () =>
      new TurnView({
        stdout: { write: () => undefined },
        stderr: { write: () => undefined },
        display: animated,
        status,
        renderer: () => undefined,
        origins: new Map(),
        usage: new UsageTotals(),
        debug: false,
      });
    const first = turn();
    first.start();
    clock += 18_000;
    first.succeeded(result('one'));
    // The next turn starts a while later; its spinner shows its own time.
    clock += 5_000;
    screen = '';
    turn().start();
    status.hide();
    expect(screen).toContain('thinking 0.0s');
    expect(screen).not.toMatch(/thinking \d{2}s/);
  });

  it("shows a running call's progress in the status line, and forgets it when the call ends", () => {
    const { view, status } = setUp();
    view.start();
    view.onEvent({ type: 'tool-call', call });
    view.progress({ toolCallId: 'c1', progress: 4, total: 10, message: 'copying…' });
    view.progress({ toolCallId: 'other', progress: 1 });
    view.progress({ toolCallId: 'c1', progress: 7 });
    view.onEvent({
      type: 'tool-result',
      record: {
        call,
        durationMs: 5,
        result: { type: 'tool-result', toolCallId: 'c1', toolName: 'fs__read', content: [], isError: false },
      },
    });
    view.progress({ toolCallId: 'c1', progress: 9, total: 10 });
    expect(status.filter((entry) => entry.startsWith('show'))).toEqual([
      'show thinking',
      'show running read file on files',
      'show running read file on files — 40% (4/10) copying…',
      'show running read file on files — 7',
      'show thinking',
    ]);
  });

  it('renders the answer as markdown on a rich display', () => {
    const rich: Display = { ...plainDisplay(), rich: true, style: createStyle(true) };
    const { view, out } = setUp(rich);
    view.start();
    view.onEvent({ type: 'text-delta', text: '# Hi' });
    view.onEvent({ type: 'step-finish', step: 1, finishReason: 'stop' });
    view.succeeded(result('# Hi'));
    expect(out()).toBe(`# Hi\r${ESC}[J<# Hi>\n`);
  });
});

function tty(isTTY: boolean) {
  return Object.assign(new PassThrough(), { isTTY, columns: 100, rows: 30 });
}

describe('detectDisplay', () => {
  it('is rich on a terminal, and plain with NO_COLOR, --no-color, TERM=dumb or a pipe', () => {
    const detect = (env: Record<string, string>, color = true, out = true, input = true) =>
      detectDisplay({ stdin: tty(input), stdout: tty(out), env, color });
    expect(detect({})).toMatchObject({ rich: true, terminal: true, animated: true });
    expect(detect({ NO_COLOR: '1' })).toMatchObject({ rich: false, terminal: true, animated: false });
    // no-color.org: an empty NO_COLOR does not count.
    expect(detect({ NO_COLOR: '' }).rich).toBe(true);
    expect(detect({}, false)).toMatchObject({ rich: false, terminal: true });
    expect(detect({ TERM: 'dumb' }).rich).toBe(false);
    expect(detect({}, true, false)).toMatchObject({ rich: false, terminal: false });
    expect(detect({}, true, true, false)).toMatchObject({ rich: true, terminal: false });
    expect(detect({ CI: 'true' })).toMatchObject({ rich: true, animated: false });
    const plain = detect({ NO_COLOR: '1' });
    expect(plain.style.red('x')).toBe('x');
    expect(detect({}).style.red('x')).toBe(`${ESC}[31mx${ESC}[39m`);
    expect(plain.columns()).toBe(100);
  });
});
