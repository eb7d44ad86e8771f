/**
 * Argument completion (`completion/complete`): the values a server suggests for one argument of a
 * prompt or of a resource template, given what was typed so far and the arguments already given.
 * Asked only of servers that declare the `completions` capability; the others suggest nothing.
 */
import { ServerError, messageOf } from '../core/errors.js';
import type { ServerClients } from './resources.js';
import { definedProperties } from '../util/defined-properties.js';

/** How long a server may take to suggest values, unless told otherwise: Tab must not hang. */
export const DEFAULT_COMPLETION_TIMEOUT_MS = 1_500;

/** What is being completed: a prompt's argument, or a resource template's variable. */
export type CompletionTarget =
  | { readonly type: 'prompt'; readonly name: string }
  | { readonly type: 'resource-template'; readonly uriTemplate: string };

/** One `completion/complete` request. */
export interface CompletionRequest {
  /** The configured server name. */
  readonly server: string;
  /** The prompt or resource template the argument belongs to. */
  readonly ref: CompletionTarget;
  /** The argument's name and what has been typed of its value so far (may be empty). */
  readonly argument: { readonly name: string; readonly value: string };
  /** Values of the other arguments already given, so that the server can narrow its suggestions. */
  readonly context?: { readonly arguments: Readonly<Record<string, string>> };
}

/** A server's suggestions. */
export interface CompletionResult {
  /** Suggested values, best first (the protocol caps them at 100). */
  readonly values: readonly string[];
  /** How many values exist in all, when the server says. */
  readonly total?: number;
  /** True when more values exist than were sent. */
  readonly hasMore: boolean;
}

/** Options of {@link completeArgument}. */
export interface CompleteOptions {
  readonly signal?: AbortSignal;
  /** Default {@link DEFAULT_COMPLETION_TIMEOUT_MS}. */
  readonly timeoutMs?: number;
}

const NOTHING: CompletionResult = { values: [], hasMore: false };

/**
 * Asks `request.server` for values of one argument. A server without the `completions` capability
 * is not asked and suggests nothing. Throws ServerError (naming the server and the argument) for an
 * unknown or unusable server, a refusal or a timeout.
 */
export async function completeArgument(
  pool: ServerClients,
  request: CompletionRequest,
  options: CompleteOptions = {},
): Promise<CompletionResult> {
  const { server, ref, argument } = request;
  const client = await pool.client(server, options.signal);
  if (client.getServerCapabilities()?.completions === undefined) return NOTHING;
  try {
    const { completion } = await client.complete(
      {
        ref:
          ref.type === 'prompt'
            ? { type: 'ref/prompt', name: ref.name }
            : { type: 'ref/resource', uri: ref.uriTemplate },
        argument: { name: argument.name, value: argument.value },
        ...(request.context === undefined
          ? {}
          : { context: { arguments: { ...request.context.arguments } } }),
      },
      {
        timeout: options.timeoutMs ?? DEFAULT_COMPLETION_TIMEOUT_MS,
        ...definedProperties({ signal: options.signal }),
      },
    );
    return {
      values: completion.values,
      ...definedProperties({ total: completion.total }),
      hasMore: completion.hasMore === true,
    };
  } catch (error) {
    const what = ref.type === 'prompt' ? `prompt "${ref.name}"` : `resource template "${ref.uriTemplate}"`;
    throw new ServerError(
      server,
      `server "${server}" could not complete argument "${argument.name}" of ${what}: ${messageOf(error)}`,
      [],
      { cause: error },
    );
  }
}
