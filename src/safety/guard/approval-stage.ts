/**
 * Answers an `ask` (from the rules or a PreToolUse hook): an earlier "always" answer of this
 * session, a kept one for the project folder, `approveAll` (`--approve-all`), or the user through
 * `questions.approveToolCall`; with none of them, denied. An "always" answer with `keep` is kept.
 */
import { messageOf } from '../../core/errors.js';
import type { ToolCallBlock } from '../../core/types.js';
import { CANCELLED, untilAborted } from '../../util/abort.js';
import type { ApprovalDecision } from '../approval.js';
import type { ServerIdentity } from '../audit-log.js';
import type { ToolLocation } from '../tool-location.js';
import { type GuardParts } from './parts.js';
import { observed } from './activity.js';
import type { GateStage, GateVerdict, Refusal } from './stages.js';
import { definedProperties } from '../../util/defined-properties.js';

export function approvalStage(parts: GuardParts): GateStage {
  return {
    name: 'approval',
    check: ({ call, location, signal, standing, agent }) =>
      standing.kind === 'asking'
        ? approve(parts, call, location, standing.reason, signal, standing.keptApplies, agent)
        : { kind: 'continue' },
  };
}

async function approve(
  parts: GuardParts,
  call: ToolCallBlock,
  location: ToolLocation | undefined,
  reason: string,
  signal: AbortSignal,
  keptApplies: boolean,
  agent: string | undefined,
): Promise<GateVerdict> {
  const { grants, settings } = parts;
  const server = location?.server;
  if (grants.refuses(call.name)) return refusedForSession(call.name);
  if (grants.covers(call.name, server)) return { kind: 'allow', decidedBy: 'session', reason };
  const kept = settings.keptPermissions;
  if (keptApplies && location !== undefined && kept?.covers(location.server, location.tool) === true) {
    return { kind: 'allow', decidedBy: 'kept', reason };
  }
  if (settings.approveAll === true) return { kind: 'allow', decidedBy: 'approve-all', reason };
  const ask = parts.questions?.approveToolCall;
  if (ask === undefined) {
    return refuse(
      'no-one-to-ask',
      `needs approval (${reason}), and no one can be asked`,
      `The call to ${call.name} needs the user's approval (${reason}), and no one can be asked here, so it was not run. ` +
        'The user can allow such calls with --approve-all.',
    );
  }
  type Answer = ApprovalDecision | 'granted' | 'refused' | 'cancelled';
  // The wait for the answer (its turn in the question queue included) is what a listener sees.
  const answer = await observed(
    parts.activities,
    { kind: 'approval' },
    call,
    () =>
      parts.questionQueue.run(async (): Promise<Answer> => {
        // An "always" answer to an earlier question of this step may already cover this call.
        if (grants.refuses(call.name)) return 'refused';
        if (grants.covers(call.name, server)) return 'granted';
        if (signal.aborted) return 'cancelled';
        try {
          // Raced with the signal: a prompt that ignores it must not keep close() waiting.
          const decision = await untilAborted(
            ask({
              call,
              tool: location?.tool ?? call.name,
              reason,
              ...definedProperties({ server, agent }),
              ...definedProperties({ hints: location?.hints }),
              ...sandboxedOf(server === undefined ? undefined : parts.identify?.(server)),
              signal,
            }),
            signal,
          );
          return decision === CANCELLED ? 'cancelled' : decision;
        } catch {
          return { kind: 'deny' };
        }
      }),
    (value) => (typeof value === 'string' ? value : value.kind),
  );
  if (answer === 'granted') return { kind: 'allow', decidedBy: 'session', reason };
  if (answer === 'refused') return refusedForSession(call.name);
  if (answer === 'cancelled' || signal.aborted) {
    // A prompt may answer "deny" because its signal aborted; the truth is that no one answered.
    const why = parts.cancellation();
    return refuse(
      'user',
      why,
      `The call to ${call.name} was waiting for the user's approval when ${why}. It was not run.`,
    );
  }
  if (answer.kind === 'deny') {
    grants.remember(answer, call.name, server);
    const why = answer.reason?.trim() ?? '';
    return refuse(
      'user',
      why === '' ? 'denied by the user' : why,
      `The user denied the call to ${call.name}${why === '' ? ' (no reason given)' : `: ${why}`}. It was not run.`,
    );
  }
  grants.remember(answer, call.name, server);
  if (answer.kind !== 'allow-once' && answer.keep === true) await keep(parts, answer, location, keptApplies);
  return { kind: 'allow', decidedBy: 'user', reason };
}

/** Keeps an "always" answer for the project folder, or says why it is kept for this session only. */
async function keep(
  parts: GuardParts,
  answer: { readonly kind: 'allow-tool' | 'allow-server' },
  location: ToolLocation | undefined,
  keptApplies: boolean,
): Promise<void> {
  const kept = parts.settings.keptPermissions;
  const warn = (why: string) =>
    parts.onWarning?.(`not kept for this folder: ${why}; allowed for this session`);
  if (kept === undefined) return warn('there is no store of kept permissions here');
  if (location === undefined) return warn("the tool's server is unknown");
  if (!keptApplies) return warn(`${location.server} asks before every call, in every run`);
  try {
    await kept.keep({
      server: location.server,
      ...(answer.kind === 'allow-tool' ? { tool: location.tool } : {}),
    });
  } catch (error) {
    warn(messageOf(error));
  }
}

/** A call of a tool the user said "always deny" to earlier in the session. */
function refusedForSession(tool: string): GateVerdict {
  return refuse(
    'session',
    'the user denied this tool for the session',
    `The user denied every call to ${tool} for this session. It was not run.`,
  );
}

function refuse(decidedBy: Refusal['decidedBy'], reason: string, message: string): GateVerdict {
  return { kind: 'refuse', refusal: { decision: 'denied', decidedBy, reason, message, outcome: 'not-run' } };
}

/** `{ sandboxed }` when the server's identity says whether it runs in a sandbox. */
function sandboxedOf(identity: ServerIdentity | undefined): { sandboxed?: boolean } {
  return identity?.sandboxed === undefined ? {} : { sandboxed: identity.sandboxed };
}
