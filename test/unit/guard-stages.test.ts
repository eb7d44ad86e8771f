/**
 * The guard's stage runners (src/safety/guard/stages.ts): verdicts fold in order, the stricter of
 * two asks wins, a refusal ends the list, an ask that no stage answers is never a "run", and
 * result stages see what the ones before them left.
 */
import { describe, expect, it } from 'vitest';
import type { ToolCallBlock, ToolResultBlock } from '../../src/core/types.js';
import {
  runGate,
  runResultStages,
  type GateStage,
  type GateVerdict,
  type PendingCall,
  type ResultStage,
} from '../../src/safety/guard/stages.js';

const call: ToolCallBlock = { type: 'tool-call', id: 'c1', name: 'files__write', input: {} };
const pending = { call, location: { server: 'files', tool: 'write' }, signal: new AbortController().signal };

function says(name: string, verdict: GateVerdict, seen?: PendingCall[]): GateStage {
  return {
    name,
    check: (at) => {
      seen?.push(at);
      return verdict;
    },
  };
}

/** Answers whatever ask stands, recording how strict it was. */
function answerer(seen: PendingCall[]): GateStage {
  return {
    name: 'answer',
    check: (at) => {
      seen.push(at);
      return at.standing.kind === 'asking'
        ? { kind: 'allow', decidedBy: 'user', reason: at.standing.reason }
        : { kind: 'continue' };
    },
  };
}

describe('runGate', () => {
  it('runs with the policy as decider when no stage has a say', async () => {
    expect(await runGate([says('quiet', { kind: 'continue' })], pending)).toEqual({
      kind: 'run',
      decidedBy: 'policy',
    });
  });

  it('keeps the stricter of two asks: a later ask cannot let a kept answer lift an alwaysAsk', async () => {
    const seen: PendingCall[] = [];
    const outcome = await runGate(
      [
        says('rules', { kind: 'ask', reason: 'rule', keptApplies: false }),
        says('hook', { kind: 'ask', reason: 'hook' }),
        answerer(seen),
      ],
      pending,
    );
    expect(seen[0]?.standing).toEqual({ kind: 'asking', reason: 'hook', keptApplies: false });
    expect(outcome).toEqual({ kind: 'run', decidedBy: 'user', reason: 'hook' });
  });

  it('lets a later allow settle an ask (a PreToolUse hook that approves)', async () => {
    const outcome = await runGate(
      [says('rules', { kind: 'ask', reason: 'rule' }), says('hook', { kind: 'allow', decidedBy: 'hook' })],
      pending,
    );
    expect(outcome).toEqual({ kind: 'run', decidedBy: 'hook' });
  });

  it('ends at the first refusal: later stages are not asked', async () => {
    const seen: PendingCall[] = [];
    const refusal = {
      decision: 'denied',
      decidedBy: 'policy',
      reason: 'no',
      message: 'not run',
      outcome: 'not-run',
    } as const;
    const outcome = await runGate(
      [says('rules', { kind: 'refuse', refusal }), says('later', { kind: 'continue' }, seen)],
      pending,
    );
    expect(outcome).toEqual({ kind: 'refuse', refusal });
    expect(seen).toEqual([]);
  });

  it('refuses an ask that no stage answered, rather than running the call', async () => {
    const outcome = await runGate([says('rules', { kind: 'ask', reason: 'rule' })], pending);
    expect(outcome).toMatchObject({
      kind: 'refuse',
      refusal: { decision: 'denied', decidedBy: 'no-one-to-ask' },
    });
  });
});

describe('runResultStages', () => {
  const result = (text: string): ToolResultBlock => ({
    type: 'tool-result',
    toolCallId: 'c1',
    toolName: call.name,
    content: [{ type: 'text', text }],
    isError: false,
  });

  it('gives each stage the result and facts the ones before left, and merges their facts', async () => {
    const seen: string[] = [];
    const stages: ResultStage[] = [
      { name: 'cut', check: () => ({ kind: 'rewrite', result: result('cut'), facts: { resultBytes: 3 } }) },
      {
        name: 'look',
        check: (done) => {
          seen.push(
            `${done.result.content[0]?.type === 'text' ? done.result.content[0].text : ''}:${done.facts.resultBytes}`,
          );
          return { kind: 'continue', facts: { cutBytes: 7 } };
        },
      },
    ];
    const done = await runResultStages(stages, {
      ...pending,
      result: result('whole'),
      fromServer: result('whole'),
      durationMs: 1,
      cancelled: false,
      facts: {},
    });
    expect(seen).toEqual(['cut:3']);
    expect(done).toEqual({ result: result('cut'), facts: { resultBytes: 3, cutBytes: 7 } });
  });
});
