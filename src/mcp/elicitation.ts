/**
 * A server's `elicitation/create`, answered through the one question interface. The host stays in
 * control: a form it cannot show is declined with the reason, an answer that does not fit the
 * requested schema is never sent, and a URL to a suspicious address is declined before anyone is
 * asked to open it.
 */
import type { ElicitRequestParams, ElicitResult } from '@modelcontextprotocol/client';
import {
  askUser,
  type ElicitationAnswer,
  type QuestionQueue,
  type UserQuestions,
} from '../core/questions.js';
import type { ServerFeatures } from './client-features.js';
import { checkAnswer, defaultAnswer, readForm, type FormField } from './elicitation-schema.js';
import { definedProperties } from '../util/defined-properties.js';

/** What happened to one elicitation, for stderr in `-p`, `/logs` in the chat, and tests. */
export interface ElicitationOutcome {
  readonly server: string;
  readonly mode: 'form' | 'url';
  readonly message: string;
  readonly action: ElicitResult['action'];
  /** Why the host answered for the user (unrenderable schema, bad answer, suspicious URL). */
  readonly reason?: string;
}

/**
 * How an elicitation is answered when nobody can be asked (`-p`, a library runner without
 * `questions.elicit`): `decline` (the default) declines every one; `accept-defaults` accepts a form
 * whose required fields all have defaults (SEP-1034), with every default the schema gives, and
 * declines the rest. URL mode is always declined: there is nobody to open the page.
 */
export type ElicitationPolicy = 'decline' | 'accept-defaults';
export const ELICITATION_POLICIES: readonly ElicitationPolicy[] = ['decline', 'accept-defaults'];

/** Options of {@link createElicitationHandler}. */
export interface ElicitationHandlerOptions {
  readonly questions: UserQuestions | undefined;
  /** When `questions.elicit` is absent. Default `decline`. */
  readonly policy?: ElicitationPolicy | undefined;
  /** The runner's queue: one question at a time, whatever asks. */
  readonly queue: QuestionQueue;
  /** Told about every elicitation and its answer. */
  readonly onOutcome?: (outcome: ElicitationOutcome) => void;
}

/**
 * Why a URL should not be offered for opening, or undefined when it may be. Only `https:` (and
 * `http:` to this machine, for local servers) is allowed; credentials in the URL and hosts in
 * punycode (a look-alike name) are refused.
 */
export function suspiciousUrl(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'it is not a valid URL';
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(parsed.hostname);
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && loopback)) {
    return `its scheme "${parsed.protocol}" is not https`;
  }
  if (parsed.username !== '' || parsed.password !== '') return 'it carries a user name or password';
  if (parsed.hostname.split('.').some((label) => label.startsWith('xn--'))) {
    return `its host "${parsed.hostname}" is an internationalized name that may imitate another`;
  }
  return undefined;
}

/** The `elicit` handler of {@link ServerFeatures}. */
export function createElicitationHandler(
  options: ElicitationHandlerOptions,
): NonNullable<ServerFeatures['elicit']> {
  return async (server, params, signal) => {
    const outcome = await answer(server, params, signal, options);
    options.onOutcome?.(outcome.report);
    return outcome.result;
  };
}

async function answer(
  server: string,
  params: ElicitRequestParams,
  signal: AbortSignal,
  options: ElicitationHandlerOptions,
): Promise<{ result: ElicitResult; report: ElicitationOutcome }> {
  const { questions, queue } = options;
  const finish = (result: ElicitResult, reason?: string) => ({
    result,
    report: {
      server,
      mode: params.mode ?? 'form',
      message: params.message,
      action: result.action,
      ...definedProperties({ reason }),
    },
  });
  const nobodyToAsk = questions?.elicit === undefined;
  if (params.mode === 'url') {
    if (nobodyToAsk) return finish({ action: 'decline' }, 'nobody can open a URL here');
    const suspicion = suspiciousUrl(params.url);
    if (suspicion !== undefined)
      return finish({ action: 'decline' }, `the URL was not offered: ${suspicion}`);
    const reply = await askUser(questions, queue, 'elicit', {
      mode: 'url',
      server,
      message: params.message,
      url: params.url,
      elicitationId: params.elicitationId,
      signal,
    });
    return finish(reply.action === 'accept' ? { action: 'accept' } : { action: reply.action });
  }
  const schema = params.requestedSchema as Readonly<Record<string, unknown>>;
  const form = readForm(schema);
  if (!form.ok) return finish({ action: 'decline' }, `the form cannot be shown: ${form.reason}`);
  if (nobodyToAsk) return answerByPolicy(options.policy ?? 'decline', form.fields, schema, finish);
  const reply: ElicitationAnswer = await askUser(questions, queue, 'elicit', {
    mode: 'form',
    server,
    message: params.message,
    requestedSchema: schema,
    signal,
  });
  if (reply.action !== 'accept') return finish({ action: reply.action });
  const content = reply.content ?? {};
  const problem = checkAnswer(schema, content);
  if (problem !== undefined) {
    return finish({ action: 'decline' }, `the answer did not fit the requested schema (${problem})`);
  }
  return finish({ action: 'accept', content: content as ElicitResult['content'] });
}

/** A form answered by the policy, with nobody asked. */
function answerByPolicy<T>(
  policy: ElicitationPolicy,
  fields: readonly FormField[],
  schema: Readonly<Record<string, unknown>>,
  finish: (result: ElicitResult, reason?: string) => T,
): T {
  switch (policy) {
    case 'decline':
      return finish({ action: 'decline' }, 'nobody can answer here; elicitation policy "decline"');
    case 'accept-defaults': {
      const content = defaultAnswer(fields);
      if (content === undefined) {
        return finish(
          { action: 'decline' },
          'a required field has no default; elicitation policy "accept-defaults"',
        );
      }
      const problem = checkAnswer(schema, content);
      if (problem !== undefined) {
        return finish({ action: 'decline' }, `the schema's defaults do not fit it (${problem})`);
      }
      return finish(
        { action: 'accept', content: content as ElicitResult['content'] },
        "accepted with the schema's defaults",
      );
    }
  }
}
