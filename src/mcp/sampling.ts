/**
 * A server's `sampling/createMessage`: the server asks the host's model for a completion. The host
 * stays in control (the MCP spec asks for a human in the loop):
 *
 * - off unless a sampling rule allows it for that server (`approval.sampling`); with `ask` (or no
 *   rule) the user reviews the request before it is sent and the answer before it goes back, and
 *   where nobody can be asked (`-p`, a library without `questions.reviewSampling`) it is declined;
 * - bounded: requests per turn, tokens per request, and the session budgets (`budgets.sampling`,
 *   `budgets.*`);
 * - screened: the request's text passes through the untrusted-content detector first;
 * - audited: one audit line per request, sent or not;
 * - apart from the conversation: it runs on the runner's current provider with the server's own
 *   system prompt and messages, and nothing of it enters the history.
 *
 * Loaded when a server first asks (the no-server path never loads it).
 */
/* eslint-disable @typescript-eslint/no-deprecated -- sampling is deprecated by the 2026-07-28
   revision (SEP-2577), and supported here for the 2025-era servers that still ask for it. */
import { randomUUID } from 'node:crypto';
import type { CreateMessageRequestParams, CreateMessageResult } from '@modelcontextprotocol/client';
import { messageOf } from '../core/errors.js';
import { callModel } from '../core/model-call.js';
import { askUser, type QuestionQueue, type SamplingDecision, type UserQuestions } from '../core/questions.js';
import type { AuditEntry, AuditSink, DecidedBy } from '../safety/audit-log.js';
import type { SamplingBudget } from '../safety/budgets.js';
import type { SamplingVerdict } from '../safety/policy.js';
import type { ContentFlag, ContentScreen } from '../safety/untrusted-content.js';
import type { Provider, TextBlock, ToolCallBlock } from '../core/types.js';
import { auditRecord } from '../safety/guard/audit-record.js';
import { reviewedRequest, screen, stopReasonOf, toMessages } from './sampling-request.js';
import type { ServerFeatures } from './client-features.js';
import { definedProperties } from '../util/defined-properties.js';

/** Requests per turn and tokens per request when `budgets.sampling` says nothing. */
export const DEFAULT_SAMPLING_BUDGET: Required<SamplingBudget> = { maxRequestsPerTurn: 5, maxTokens: 4096 };

/** What the handler needs from the runner, which exists only once the servers have started. */
export interface SamplingHost {
  /** The runner's current provider (`/model` may have changed it). */
  readonly provider: () => Provider;
  /** The prompt of the session now running, from 1 (0 before the first). */
  readonly turn: () => number;
  /** What the sampling rules say about a server. */
  readonly decide: (server: string) => SamplingVerdict;
  /** Counts a request against the session budgets, or says which limit it is past. */
  readonly admit: (server: string) => string | undefined;
  /** Where the audit line of each request goes (`auditLog`). */
  readonly audit?: AuditSink;
  /** The session id written on audit lines. */
  readonly sessionId?: string;
}

/** What happened to one sampling request, for stderr in `-p`, the chat, and tests. */
export interface SamplingOutcome {
  readonly server: string;
  readonly action: 'sent' | 'declined';
  /** Why it was declined, or the rule that let it through. */
  readonly reason: string;
  /** Findings of the untrusted-content detector in the request, if any. */
  readonly findings?: readonly string[];
}

/** Options of {@link createSamplingHandler}. */
export interface SamplingHandlerOptions {
  /** Undefined until the runner exists: a request before that is declined. */
  readonly host: () => SamplingHost | undefined;
  readonly questions: UserQuestions | undefined;
  readonly queue: QuestionQueue;
  readonly budget?: SamplingBudget;
  /**
   * The session's untrusted-content screen (the one tool results, resources and prompts go
   * through); absent, the request is checked under the `warn` policy, with no one asked.
   */
  readonly screen?: ContentScreen;
  readonly onOutcome?: (outcome: SamplingOutcome) => void;
}

/**
 * A declined request, sent to the server as a JSON-RPC error: code -1 is the spec's "user rejected
 * sampling request" (the SDK passes a thrown error's `code` on).
 */
export class SamplingDeclined extends Error {
  readonly code = -1;
}

/** The `sample` handler of {@link ServerFeatures}. */
export function createSamplingHandler(
  options: SamplingHandlerOptions,
): NonNullable<ServerFeatures['sample']> {
  const perTurn = new Map<number, number>();
  return async (server, params, signal) => {
    const started = Date.now();
    const requestId = randomUUID();
    const host = options.host();
    const finish = (
      action: SamplingOutcome['action'],
      decidedBy: DecidedBy,
      reason: string,
      extra: { flag?: ContentFlag; resultText?: string } = {},
    ) => {
      host?.audit?.record(
        auditEntry({ server, params, requestId, started, action, decidedBy, reason, extra }, host),
      );
      options.onOutcome?.({
        server,
        action,
        reason,
        ...definedProperties({ findings: extra.flag?.findings }),
      });
    };
    const decline = (decidedBy: DecidedBy, reason: string, flag?: ContentFlag): never => {
      finish('declined', decidedBy, reason, definedProperties({ flag }));
      throw new SamplingDeclined(`mcphost declined the sampling request: ${reason}`);
    };
    if (host === undefined) return decline('policy', 'mcphost is still starting');
    const verdict = host.decide(server);
    if (verdict.decision === 'deny') return decline('policy', verdict.because);
    const budget = { ...DEFAULT_SAMPLING_BUDGET, ...options.budget };
    if (params.maxTokens > budget.maxTokens) {
      return decline(
        'budget',
        `it asks for up to ${params.maxTokens} tokens, more than the limit of ${budget.maxTokens} (budgets.sampling.maxTokens)`,
      );
    }
    const turn = host.turn();
    const count = perTurn.get(turn) ?? 0;
    if (count >= budget.maxRequestsPerTurn) {
      return decline(
        'budget',
        `at most ${budget.maxRequestsPerTurn} sampling requests per turn (budgets.sampling.maxRequestsPerTurn), all used`,
      );
    }
    const overBudget = host.admit(server);
    if (overBudget !== undefined) return decline('budget', `it is past ${overBudget}`);
    perTurn.clear(); // only the current turn's count matters
    perTurn.set(turn, count + 1);
    const converted = toMessages(params);
    if (!converted.ok) return decline('policy', converted.reason);
    const screened = await screen(server, params.systemPrompt, converted.messages, options, signal);
    if (!screened.ok) return decline('policy', screened.reason, screened.flag);
    const mustAsk = verdict.decision === 'ask';
    if (mustAsk) {
      if (options.questions?.reviewSampling === undefined) {
        return decline('no-one-to-ask', `${verdict.because}, and no one can be asked here`, screened.flag);
      }
      const answer = await askUser(options.questions, options.queue, 'reviewSampling', {
        server,
        stage: 'request',
        request: reviewedRequest(params, screened.system, screened.messages),
        signal,
      });
      if (answer.kind === 'deny') {
        return decline('user', `the user declined to send it${reasonSuffix(answer)}`, screened.flag);
      }
    }
    const provider = host.provider();
    let reply;
    try {
      reply = await callModel(
        provider,
        {
          ...definedProperties({ system: screened.system }),
          messages: screened.messages,
          tools: [],
          settings: {
            maxTokens: params.maxTokens,
            ...definedProperties({ temperature: params.temperature, stopSequences: params.stopSequences }),
          },
          signal,
        },
        () => undefined,
        {},
      );
    } catch (error) {
      return decline('policy', `the model call failed: ${messageOf(error)}`, screened.flag);
    }
    const text = reply.content
      .filter((block): block is TextBlock => block.type === 'text')
      .map((block) => block.text)
      .join('');
    const result: CreateMessageResult = {
      model: provider.model,
      role: 'assistant',
      content: { type: 'text', text },
      stopReason: stopReasonOf(reply.finishReason),
    };
    if (mustAsk) {
      const answer = await askUser(options.questions, options.queue, 'reviewSampling', {
        server,
        stage: 'result',
        request: reviewedRequest(params, screened.system, screened.messages),
        result: { model: result.model, stopReason: result.stopReason, text },
        signal,
      });
      if (answer.kind === 'deny') {
        return decline(
          'user',
          `the user declined to return the answer${reasonSuffix(answer)}`,
          screened.flag,
        );
      }
    }
    finish('sent', mustAsk ? 'user' : 'policy', mustAsk ? 'reviewed by the user' : verdict.because, {
      ...definedProperties({ flag: screened.flag }),
      resultText: text,
    });
    return result;
  };
}

function reasonSuffix(answer: SamplingDecision): string {
  const reason = answer.kind === 'deny' ? (answer.reason?.trim() ?? '') : '';
  return reason === '' ? '' : `: ${reason}`;
}

/** The request's one audit line, through the guard's builder (a tool call's shape, `kind: 'sampling'`). */
function auditEntry(
  facts: {
    readonly server: string;
    readonly params: CreateMessageRequestParams;
    readonly requestId: string;
    readonly started: number;
    readonly action: SamplingOutcome['action'];
    readonly decidedBy: DecidedBy;
    readonly reason: string;
    readonly extra: { readonly flag?: ContentFlag; readonly resultText?: string };
  },
  host: SamplingHost,
): AuditEntry {
  const { server, params, requestId, started, action, decidedBy, reason, extra } = facts;
  const tool = 'sampling/createMessage';
  const call: ToolCallBlock = {
    type: 'tool-call',
    id: requestId,
    name: `${server} ${tool}`,
    input: {
      ...definedProperties({ systemPrompt: params.systemPrompt }),
      maxTokens: params.maxTokens,
      messages: params.messages,
    },
  };
  return auditRecord(
    {
      call,
      location: { server, tool },
      requestedAt: started,
      sessionId: host.sessionId,
      turn: host.turn(),
      identity: undefined,
    },
    {
      kind: 'sampling',
      sent: action === 'sent',
      decidedBy,
      reason,
      durationMs: Date.now() - started,
      ...definedProperties({
        resultBytes: extra.resultText === undefined ? undefined : Buffer.byteLength(extra.resultText),
        flag: extra.flag,
      }),
    },
  );
}
