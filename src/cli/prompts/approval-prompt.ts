/**
 * The chat's question when a tool call needs approval: it shows the tool, its server and the
 * arguments, and offers allow once, always allow the tool, always allow the server (for the
 * session), deny with an optional reason for the model, or always deny the tool (for the session).
 *
 * The terminal is injected (`ask` one question, `write` text), so the chat can plug in its own
 * line editor and tests can answer with a script.
 */
import type { ApprovalDecision, ApprovalHandler, ApprovalRequest } from '../../safety/approval.js';
import type { ToolHints } from '../../safety/tool-hints.js';
import { askOnce, askUntilUnderstood, type PromptIO } from './ask-answer.js';
import { definedProperties } from '../../util/defined-properties.js';
import { stripControlCharacters } from '../../safety/output-limits.js';

/** Arguments longer than this many lines are shortened on screen (the call gets them all). */
const MAX_ARGUMENT_LINES = 40;
/** …or than this many characters. */
const MAX_ARGUMENT_CHARACTERS = 4000;

/** An answer as typed, understood. */
export type ApprovalAnswer =
  | { readonly kind: 'allow-once' }
  | { readonly kind: 'allow-tool' | 'allow-server'; readonly keep?: boolean }
  | { readonly kind: 'deny'; readonly reason?: string; readonly always?: boolean };

/**
 * Reads an answer: `y`/`yes`/`once`, `t`/`tool`/`always`, `s`/`server`, `n`/`no`/`deny` — the
 * last optionally followed by a reason; `x`/`never` denies this call and every later one of the
 * tool for the session (also with an optional reason); `tk`/`keep-tool` and `sk`/`keep-server` are `t` and `s`
 * kept for this project folder in later runs too (`n not that folder`, `n: not that folder`). Case does not
 * matter. `undefined` when it is none of these.
 */
export function parseApprovalAnswer(text: string): ApprovalAnswer | undefined {
  const trimmed = text.trim();
  const match = /^([A-Za-z-]+)\s*(?::\s*|\s+)?(.*)$/s.exec(trimmed);
  if (match === null) return undefined;
  const word = (match[1] ?? '').toLowerCase();
  const rest = (match[2] ?? '').trim();
  if (['n', 'no', 'd', 'deny'].includes(word)) {
    return rest === '' ? { kind: 'deny' } : { kind: 'deny', reason: rest };
  }
  if (['x', 'never'].includes(word)) {
    return rest === '' ? { kind: 'deny', always: true } : { kind: 'deny', always: true, reason: rest };
  }
  if (rest !== '') return undefined;
  if (['y', 'yes', 'o', 'once'].includes(word)) return { kind: 'allow-once' };
  if (['t', 'tool', 'a', 'always'].includes(word)) return { kind: 'allow-tool' };
  if (['s', 'server'].includes(word)) return { kind: 'allow-server' };
  if (['tk', 'keep-tool'].includes(word)) return { kind: 'allow-tool', keep: true };
  if (['sk', 'keep-server'].includes(word)) return { kind: 'allow-server', keep: true };
  return undefined;
}

/** Who is asking, named for a person: an MCP App by the tool call that opened it, and its id. */
export interface ApprovalPromptOptions {
  /** The app a call's `fromApp` names (`runner.apps.get`): "The app of dash__show_dashboard (app-1-…)". */
  readonly appOf?: (appId: string) => { readonly call: { readonly name: string } } | undefined;
}

/** What is shown before the question: why, who asks, the tool, its server, the arguments. */
export function describeApprovalRequest(
  request: ApprovalRequest,
  options: ApprovalPromptOptions = {},
): string {
  const clean = (text: string) => stripControlCharacters(text);
  const appId = request.call.fromApp;
  const asker =
    appId !== undefined
      ? `The app ${clean(appOf(options, appId))}`
      : request.agent === undefined
        ? 'The model'
        : `The agent "${clean(request.agent)}"`;
  const lines = [
    `${asker} wants to run a tool that needs your approval: ${clean(request.reason)}.`,
    `  tool:      ${clean(request.tool)}${request.tool === request.call.name ? '' : `  (${clean(request.call.name)})`}`,
    ...(request.server === undefined ? [] : [`  server:    ${clean(request.server)}`]),
    ...(request.sandboxed === undefined
      ? []
      : [`  sandbox:   ${request.sandboxed ? 'yes' : 'no (it runs with your full rights)'}`]),
    ...(request.hints === undefined ? [] : [`  hints:     ${describeHints(request.hints)}`]),
    `  arguments: ${indent(formatArguments(request.call.input))}`,
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * The tool's annotations in words. Said to come from the server: a hostile server can claim that
 * `delete_everything` is read-only.
 */
export function describeHints(hints: ToolHints): string {
  const words = [
    hints.readOnly ? 'read-only' : hints.destructive ? 'destructive' : 'not destructive',
    hints.openWorld ? 'open world' : 'closed world',
  ];
  return `${words.join(', ')} (as the server says)`;
}

/** The question line; `[s]` and the kept answers only when the server is known. */
export function approvalQuestion(request: ApprovalRequest): string {
  if (request.server === undefined) {
    return `Allow? [y] once  [t] always this tool  [n] deny (n REASON tells the model why)  [x] always deny this tool: `;
  }
  return (
    `Allow? [y] once  [t] always this tool  [s] always this server  ` +
    `[tk]/[sk] the same, kept for this folder  [n] deny (n REASON tells the model why)  [x] always deny this tool: `
  );
}

/**
 * An {@link ApprovalHandler} that asks through `io`. An answer not understood is asked again (a
 * few times, then denied); ended input, or a run cancelled while asking, denies.
 */
export function createApprovalPrompt(io: PromptIO, options: ApprovalPromptOptions = {}): ApprovalHandler {
  return async (request: ApprovalRequest): Promise<ApprovalDecision> => {
    io.write(describeApprovalRequest(request, options));
    const asked = await askUntilUnderstood(io, {
      text: approvalQuestion(request),
      parse: parseApprovalAnswer,
      retry: `Please answer y, t${request.server === undefined ? '' : ', s, tk, sk'}, n or x.\n`,
      toolCallId: request.call.id,
      ...definedProperties({ signal: request.signal }),
    });
    switch (asked.kind) {
      case 'no-answer':
        return { kind: 'deny', reason: 'no answer' };
      case 'gave-up':
        io.write('No usable answer: denied.\n');
        return { kind: 'deny' };
      case 'understood':
        return await decisionOf(io, asked.answer, request);
      default: {
        const unexpected: never = asked;
        return unexpected;
      }
    }
  };
}

/** The decision an understood answer gives; a plain "deny" asks for the model's reason. */
async function decisionOf(
  io: PromptIO,
  answer: ApprovalAnswer,
  request: ApprovalRequest,
): Promise<ApprovalDecision> {
  if (answer.kind === 'allow-server' && request.server === undefined) return { kind: 'allow-tool' };
  if (
    answer.kind !== 'deny' &&
    answer.kind !== 'allow-once' &&
    answer.keep === true &&
    request.server === undefined
  ) {
    // Kept answers are by server and tool: without a server, this one is for the session.
    return { kind: 'allow-tool' };
  }
  if (answer.kind !== 'deny' || answer.reason !== undefined || answer.always === true) return answer;
  const reason = await askOrCancel(io, 'Reason, for the model (optional, Enter to skip): ', request);
  const given = reason?.trim() ?? '';
  return given === '' ? { kind: 'deny' } : { kind: 'deny', reason: given };
}

/** The answer, or `undefined` when input ended or the run was cancelled first. */
async function askOrCancel(
  io: PromptIO,
  question: string,
  request: ApprovalRequest,
): Promise<string | undefined> {
  return await askOnce(io, question, {
    toolCallId: request.call.id,
    ...definedProperties({ signal: request.signal }),
  });
}

function formatArguments(input: Readonly<Record<string, unknown>>): string {
  let text = stripControlCharacters(JSON.stringify(input, null, 2));
  const lines = text.split('\n');
  let note = '';
  if (lines.length > MAX_ARGUMENT_LINES) {
    text = lines.slice(0, MAX_ARGUMENT_LINES).join('\n');
    note = `\n… (${lines.length - MAX_ARGUMENT_LINES} more lines)`;
  }
  if (text.length > MAX_ARGUMENT_CHARACTERS) {
    const cut = text.length - MAX_ARGUMENT_CHARACTERS;
    text = text.slice(0, MAX_ARGUMENT_CHARACTERS);
    note = `\n… (${cut} more characters${note === '' ? '' : ', and more lines'})`;
  }
  return `${text}${note}`;
}

function indent(text: string): string {
  return text.replace(/\n/g, '\n             ');
}

function appOf(options: ApprovalPromptOptions, appId: string): string {
  const app = options.appOf?.(appId);
  return app === undefined ? appId : `of ${app.call.name} (${appId})`;
}
