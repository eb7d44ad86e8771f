/**
 * Questions to a person: the one interface through which the core asks the user something.
 *
 * The core never prints and never reads a terminal. When it needs a person — a tool call that an
 * approval rule marks `ask`, a server's elicitation, a server's sampling request, a sign-in page to
 * open, a tool result flagged as a possible prompt injection, a tool whose definition changed since
 * it was pinned — it calls the matching method of an injected {@link UserQuestions}. The chat
 * implements it with prompts, `-p` with policies, and a program with callbacks.
 *
 * Every method is optional: a missing one means "no one can be asked", and the core takes the safe
 * answer for that kind (deny, decline, do not open, keep the content from the model). Every method
 * gets an `AbortSignal` that aborts when the run is cancelled; an implementation should stop
 * waiting then (the core stops waiting either way). A rejected promise counts as the safe answer.
 *
 * Questions are asked one at a time ({@link QuestionQueue}): tool calls of a step and server
 * requests run in parallel, and two prompts at once would interleave on a terminal.
 */
import { CANCELLED, untilAborted } from '../util/abort.js';
import type { ApprovalDecision, ApprovalRequest } from '../safety/approval.js';

/** A JSON object as a server sent it (validated by the caller that uses its fields). */
export type JsonObject = Readonly<Record<string, unknown>>;

/**
 * A server asks the user for structured input (`elicitation/create`, form mode). `requestedSchema`
 * is the flat object schema of the MCP spec: properties of type string (with `format`, `enum`,
 * `oneOf`), number, integer, boolean, and arrays of enum values.
 */
export interface FormElicitationRequest {
  readonly mode: 'form';
  /** The configured server that asks. */
  readonly server: string;
  /** The server's message to the user. */
  readonly message: string;
  /** The flat object schema the answer must satisfy. */
  readonly requestedSchema: JsonObject;
  readonly signal: AbortSignal;
}

/** A server asks the user to open a URL (`elicitation/create`, URL mode), e.g. to enter a secret. */
export interface UrlElicitationRequest {
  readonly mode: 'url';
  readonly server: string;
  readonly message: string;
  /** The full URL the server wants opened. */
  readonly url: string;
  /** The server's id for this elicitation (its completion notification names it). */
  readonly elicitationId: string;
  readonly signal: AbortSignal;
}

export type ElicitationRequest = FormElicitationRequest | UrlElicitationRequest;

/** The answer to an elicitation, as the MCP spec's `ElicitResult` has it. */
export type ElicitationAnswer =
  /** Form mode: `content` must satisfy the requested schema. URL mode: the user agreed to open it. */
  | { readonly action: 'accept'; readonly content?: JsonObject }
  /** The user said no. */
  | { readonly action: 'decline' }
  /** The user dismissed the question without choosing. */
  | { readonly action: 'cancel' };

/**
 * A server asks for a model call (`sampling/createMessage`). Asked twice when a person reviews it:
 * once before the request is sent (`stage: 'request'`), once before the result goes back
 * (`stage: 'result'`, with `result` set).
 */
export interface SamplingReview {
  readonly server: string;
  readonly stage: 'request' | 'result';
  /** The server's request parameters (system prompt, messages, token limit…), as sent. */
  readonly request: JsonObject;
  /** The model's answer, on the `result` stage. */
  readonly result?: JsonObject;
  readonly signal: AbortSignal;
}

export type SamplingDecision =
  { readonly kind: 'allow' } | { readonly kind: 'deny'; readonly reason?: string };

/** A server needs the user to sign in: the authorization URL to open in a browser. */
export interface SignInRequest {
  readonly server: string;
  /** The authorization server's page (with PKCE challenge and state). */
  readonly url: string;
  readonly signal: AbortSignal;
}

export type SignInDecision =
  /** The URL was opened (or shown): the host waits for the redirect. */
  | { readonly kind: 'opened' }
  /** The user does not want to sign in now: the server is left out. */
  | { readonly kind: 'skip' };

/** A tool result (or resource, prompt, sampling message) that the detector flagged. */
export interface FlaggedContentReview {
  readonly server?: string;
  /** The tool, resource URI or prompt the content came from. */
  readonly source: string;
  /** What was found, one line each (e.g. "instructions addressed to the assistant"). */
  readonly findings: readonly string[];
  /** The start of the content (at most 500 characters), hidden characters made visible. */
  readonly preview: string;
  readonly signal: AbortSignal;
}

export type FlaggedContentDecision =
  /** Let the model see it (marked as external data, as always). */
  | { readonly kind: 'show' }
  /** Let the model see it with each flagged passage replaced by `[removed by mcphost: KIND]`. */
  | { readonly kind: 'redact' }
  /** Show the model a note that the content was withheld instead. */
  | { readonly kind: 'withhold' };

/**
 * A server changed a tool's definition since it was pinned, and the server's `toolChanges` policy
 * is `ask` (src/safety/tool-pin-check.ts).
 */
export interface ToolChangeReview {
  readonly server: string;
  /** The tool's own name on the server. */
  readonly tool: string;
  /** The name the model knows it by. */
  readonly exposedName: string;
  /** What changed, one line each: description text, schema properties, annotations. */
  readonly changes: readonly string[];
  readonly signal: AbortSignal;
}

export type ToolChangeDecision =
  /** Use the new definition, and pin it. */
  | { readonly kind: 'accept' }
  /** Keep the tool from the model for this session; the old pin stays. */
  | { readonly kind: 'block' };

/** How the core asks a person. Each method is optional; see the module comment for defaults. */
export interface UserQuestions {
  /** A tool call an approval rule or a PreToolUse hook marks `ask`. Missing: denied. */
  readonly approveToolCall?: (request: ApprovalRequest) => Promise<ApprovalDecision>;
  /** A server's elicitation. Missing: declined. */
  readonly elicit?: (request: ElicitationRequest) => Promise<ElicitationAnswer>;
  /** A server's sampling request, before it is sent and before its result is returned. Missing: denied. */
  readonly reviewSampling?: (review: SamplingReview) => Promise<SamplingDecision>;
  /** A sign-in page to open. Missing: not opened, and the server is reported as needing sign-in. */
  readonly signIn?: (request: SignInRequest) => Promise<SignInDecision>;
  /** Content flagged as a possible injection under the `ask` policy. Missing: withheld. */
  readonly reviewFlaggedContent?: (review: FlaggedContentReview) => Promise<FlaggedContentDecision>;
  /** A tool whose definition changed since it was pinned, under the `ask` policy. Missing: blocked. */
  readonly reviewToolChange?: (review: ToolChangeReview) => Promise<ToolChangeDecision>;
}

/** The safe answers, used when a method is missing or its promise rejects. */
export const SAFE_ANSWERS = {
  approveToolCall: { kind: 'deny' },
  elicit: { action: 'decline' },
  reviewSampling: { kind: 'deny' },
  signIn: { kind: 'skip' },
  reviewFlaggedContent: { kind: 'withhold' },
  reviewToolChange: { kind: 'block' },
} as const satisfies {
  readonly [Kind in keyof Required<UserQuestions>]: Awaited<ReturnType<Required<UserQuestions>[Kind]>>;
};

type QuestionKind = keyof UserQuestions;
/** Every question carries the run's signal. */
type RequestOf<Kind extends QuestionKind> = Parameters<Required<UserQuestions>[Kind]>[0] & {
  readonly signal: AbortSignal;
};
type AnswerOf<Kind extends QuestionKind> =
  (typeof SAFE_ANSWERS)[Kind] | Awaited<ReturnType<Required<UserQuestions>[Kind]>>;

/**
 * Runs one question at a time. Tool calls of a step run in parallel; two prompts at once would
 * interleave on the terminal, and an "always" answer to the first must spare the user the second.
 */
export class QuestionQueue {
  #last: Promise<unknown> = Promise.resolve();

  run<T>(question: () => Promise<T>): Promise<T> {
    const next = this.#last.then(question);
    this.#last = next.catch(() => undefined);
    return next;
  }
}

/**
 * Asks `kind` through `questions`, one question at a time on `queue`. A missing method, a rejected
 * promise or an aborted request's signal gives the safe answer ({@link SAFE_ANSWERS}), so a caller
 * never has to handle a failure of the person's side.
 */
export async function askUser<Kind extends QuestionKind>(
  questions: UserQuestions | undefined,
  queue: QuestionQueue,
  kind: Kind,
  request: RequestOf<Kind>,
): Promise<AnswerOf<Kind>> {
  const safe: AnswerOf<Kind> = SAFE_ANSWERS[kind];
  const method = questions?.[kind] as ((request: RequestOf<Kind>) => Promise<AnswerOf<Kind>>) | undefined;
  if (method === undefined) return safe;
  return queue.run(async (): Promise<AnswerOf<Kind>> => {
    if (request.signal.aborted) return safe;
    try {
      const answer = await untilAborted(method(request), request.signal);
      return answer === CANCELLED ? safe : answer;
    } catch {
      return safe;
    }
  });
}
