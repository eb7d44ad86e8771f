/** The chat's approval question, answered by a script instead of a person. */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  approvalQuestion,
  createApprovalPrompt,
  parseApprovalAnswer,
} from '../../src/cli/prompts/approval-prompt.js';
import type { PromptIO } from '../../src/cli/prompts/ask-answer.js';
import type { ApprovalRequest } from '../../src/safety/approval.js';

function request(overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    call: {
      type: 'tool-call',
      id: 'c1',
      name: 'filesystem__write_file',
      input: { path: '/tmp/a.txt', content: 'hi' },
    },
    tool: 'write_file',
    server: 'filesystem',
    reason: 'the rule tool "filesystem__write_*" → ask in /home/ada/.mcp.json',
    ...overrides,
  };
}

/** A terminal whose user types `answers`, one per question; `undefined` ends the input. */
function scriptedTerminal(...answers: Array<string | undefined>) {
  const questions: string[] = [];
  let screen = '';
  const io: PromptIO = {
    ask: async (question) => {
      questions.push(question);
      screen += question;
      if (answers.length === 0) throw new Error('no more answers scripted');
      const answer = answers.shift();
      if (answer === undefined) throw new Error('input closed');
      screen += `${answer}\n`;
      return answer;
    },
    write: (text) => {
      screen += text;
    },
  };
  return { io, questions, screen: () => screen };
}

describe('parseApprovalAnswer', () => {
  it.each([
    ['y', { kind: 'allow-once' }],
    ['YES', { kind: 'allow-once' }],
    [' once ', { kind: 'allow-once' }],
    ['t', { kind: 'allow-tool' }],
    ['always', { kind: 'allow-tool' }],
    ['s', { kind: 'allow-server' }],
    ['server', { kind: 'allow-server' }],
    ['tk', { kind: 'allow-tool', keep: true }],
    ['keep-server', { kind: 'allow-server', keep: true }],
    ['n', { kind: 'deny' }],
    ['no', { kind: 'deny' }],
    ['n not in that folder', { kind: 'deny', reason: 'not in that folder' }],
    ['deny: too risky', { kind: 'deny', reason: 'too risky' }],
    ['x', { kind: 'deny', always: true }],
    ['never: not on this machine', { kind: 'deny', always: true, reason: 'not on this machine' }],
    ['', undefined],
    ['maybe', undefined],
    ['yes please', undefined],
    ['nope', undefined],
  ])('%j → %j', (typed, expected) => {
    expect(parseApprovalAnswer(typed)).toEqual(expected);
  });
});

describe('createApprovalPrompt', () => {
  it('shows the tool, server, arguments and reason, then asks', async () => {
    const terminal = scriptedTerminal('y');
    const answer = await createApprovalPrompt(terminal.io)(request());
    expect(answer).toEqual({ kind: 'allow-once' });
    const screen = terminal.screen();
    expect(screen).toContain(
      'needs your approval: the rule tool "filesystem__write_*" → ask in /home/ada/.mcp.json.',
    );
    expect(screen).toContain('tool:      write_file  (filesystem__write_file)');
    expect(screen).toContain('server:    filesystem');
    expect(screen).toContain('"path": "/tmp/a.txt"');
    expect(terminal.questions).toEqual([
      'Allow? [y] once  [t] always this tool  [s] always this server  [tk]/[sk] the same, kept for this folder  [n] deny (n REASON tells the model why)  [x] always deny this tool: ',
    ]);
  });

  it.each([
    ['t', { kind: 'allow-tool' }],
    ['s', { kind: 'allow-server' }],
    ['n because I said so', { kind: 'deny', reason: 'because I said so' }],
  ])('answers %j with %j', async (typed, expected) => {
    expect(await createApprovalPrompt(scriptedTerminal(typed).io)(request())).toEqual(expected);
  });

  it('asks for an optional reason after a plain no', async () => {
    const withReason = scriptedTerminal('n', 'use /tmp/safe instead');
    expect(await createApprovalPrompt(withReason.io)(request())).toEqual({
      kind: 'deny',
      reason: 'use /tmp/safe instead',
    });
    expect(withReason.questions[1]).toBe('Reason, for the model (optional, Enter to skip): ');
    const without = scriptedTerminal('n', '');
    expect(await createApprovalPrompt(without.io)(request())).toEqual({ kind: 'deny' });
  });

  it('asks again after an answer it does not understand, and denies after three', async () => {
    const retried = scriptedTerminal('what?', 'y');
    expect(await createApprovalPrompt(retried.io)(request())).toEqual({ kind: 'allow-once' });
    expect(retried.screen()).toContain('Please answer y, t, s, tk, sk, n or x.');
    const stubborn = scriptedTerminal('a1', 'b2', 'c3');
    expect(await createApprovalPrompt(stubborn.io)(request())).toEqual({ kind: 'deny' });
    expect(stubborn.questions).toHaveLength(3);
  });

  it('offers no server choice when the server is unknown', async () => {
    const { server: _server, ...unknown } = request({ tool: 'filesystem__write_file' });
    expect(approvalQuestion(unknown)).not.toContain('[s]');
    const terminal = scriptedTerminal('s');
    // "s" is then not understood as a choice... but treated as this tool rather than lost.
    expect(await createApprovalPrompt(terminal.io)(unknown)).toEqual({ kind: 'allow-tool' });
    expect(terminal.screen()).not.toContain('server:');
    expect(terminal.screen()).toContain('tool:      filesystem__write_file\n');
  });

  it('denies when input ends, or when the run is cancelled while asking', async () => {
    expect(await createApprovalPrompt(scriptedTerminal(undefined).io)(request())).toEqual({
      kind: 'deny',
      reason: 'no answer',
    });
    const controller = new AbortController();
    const waiting: PromptIO = {
      ask: () => {
        controller.abort();
        return new Promise<string>(() => undefined);
      },
      write: () => undefined,
    };
    expect(await createApprovalPrompt(waiting)(request({ signal: controller.signal }))).toEqual({
      kind: 'deny',
      reason: 'no answer',
    });
  });

  it('passes the run signal to the question, and leaves no listener on it after many answers', async () => {
    const controller = new AbortController();
    const signals: Array<AbortSignal | undefined> = [];
    const about: Array<string | undefined> = [];
    const io: PromptIO = {
      ask: async (_question, options) => {
        signals.push(options?.signal);
        about.push(options?.toolCallId);
        return 'y';
      },
      write: () => undefined,
    };
    const approve = createApprovalPrompt(io);
    for (let index = 0; index < 20; index++) {
      expect(await approve(request({ signal: controller.signal }))).toEqual({ kind: 'allow-once' });
    }
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(signals).toHaveLength(20);
    expect(signals.every((signal) => signal === controller.signal)).toBe(true);
    // The chat leaves the time of the question out of this call's duration.
    expect(about.every((id) => id === 'c1')).toBe(true);
  });

  it('never prints control sequences from the model or a server', async () => {
    const terminal = scriptedTerminal('n');
    const sneaky = request({
      tool: 'write\x1b[2K\rread_file',
      call: { type: 'tool-call', id: 'c', name: 'x__y', input: { path: '\x1b[8mhidden\x1b[0m' } },
    });
    await createApprovalPrompt(terminal.io)(sneaky).catch(() => undefined);
    expect(terminal.screen()).not.toContain('\x1b');
    expect(terminal.screen()).toContain('writeread_file');
  });

  it('shortens huge arguments on screen', async () => {
    const terminal = scriptedTerminal('y');
    const lines = Array.from({ length: 100 }, (_, index) => `line ${index}`);
    await createApprovalPrompt(terminal.io)(
      request({ call: { type: 'tool-call', id: 'c', name: 'x__y', input: { list: lines } } }),
    );
    expect(terminal.screen()).toMatch(/… \(\d+ more lines\)/);
    expect(terminal.screen()).not.toContain('line 99');
  });
});
