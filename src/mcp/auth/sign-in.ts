/**
 * One sign-in, start to end: listen on the loopback redirect, let the SDK's `auth()` discover the
 * servers and build the authorization URL, ask the person to open it (through
 * {@link UserQuestions.signIn}), wait for the redirect, check it, and redeem the code.
 *
 * Used by `mcphost auth login` and by the chat when a server asks for sign-in.
 */
import { auth, type FetchLike } from '@modelcontextprotocol/client';
import { askUser, QuestionQueue, type UserQuestions } from '../../core/questions.js';
import { SignInFailedError, SignInRequiredError } from './errors.js';
import { CallbackRefusedError, startCallbackListener, type AuthorizationCallback } from './loopback.js';
import { challengedResourceMetadataUrl } from './discovery.js';
import type { McpOAuthProvider } from './provider.js';
import { definedProperties } from '../../util/defined-properties.js';

/** How long a sign-in waits for the browser to come back, unless told otherwise. */
export const DEFAULT_SIGN_IN_TIMEOUT_MS = 5 * 60_000;

/** What {@link signIn} needs. */
export interface SignInOptions {
  readonly provider: McpOAuthProvider;
  readonly questions: UserQuestions | undefined;
  /** Shared with other questions of the same run; a fresh queue when absent. */
  readonly queue?: QuestionQueue;
  readonly fetch?: FetchLike;
  /** Cancels the sign-in. */
  readonly signal?: AbortSignal;
  /** Default {@link DEFAULT_SIGN_IN_TIMEOUT_MS}. */
  readonly timeoutMs?: number;
  /** Asks for these scopes (a step-up) instead of those of the metadata. */
  readonly scope?: string;
  /** Sign in in the browser even when stored tokens could be refreshed (`mcphost auth login`). */
  readonly fresh?: boolean;
}

/** How a sign-in ended. */
export type SignInOutcome =
  /** A person signed in in the browser. */
  | { readonly kind: 'signed-in' }
  /** No person was needed: stored tokens were refreshed, or the client credentials grant. */
  | { readonly kind: 'refreshed' };

/**
 * Signs in to the provider's server. Throws {@link SignInRequiredError} when the person declines
 * (or cannot be asked), {@link SignInFailedError} for a refused redirect or a timeout, and the
 * SDK's errors (`IssuerMismatchError`, a resource mismatch…) when the servers' answers fail its
 * checks. Nothing is stored unless the sign-in succeeds.
 */
export async function signIn(options: SignInOptions): Promise<SignInOutcome> {
  const { provider } = options;
  const { settings } = provider;
  await learnResourceMetadataUrl(options);
  if (settings.grant === 'client_credentials') {
    await auth(provider, authOptions(options));
    return { kind: 'refreshed' };
  }
  const listener = await startCallbackListener(
    settings.redirectPort ?? (await lastRedirectPort(provider)),
    settings.redirectPort !== undefined,
  );
  const timeout = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_SIGN_IN_TIMEOUT_MS);
  const signal = options.signal === undefined ? timeout : AbortSignal.any([options.signal, timeout]);
  let authorizationUrl: URL | undefined;
  try {
    const pendingScope = options.scope ?? (await provider.pendingScope());
    // A step-up asks for more than the stored tokens grant: refreshing cannot widen a grant
    // (RFC 6749 §6), so the person signs in again. A token without `scope` counts as granting none.
    const { tokens } = await provider.storedEntry();
    const widens = pendingScope !== undefined && !grants(tokens?.scope, pendingScope);
    provider.beginSignIn(
      listener.redirectUrl,
      (url) => {
        authorizationUrl = url;
      },
      pendingScope,
    );
    const first = await auth(
      provider,
      authOptions({
        ...options,
        ...(pendingScope ? { scope: pendingScope } : {}),
        ...(widens ? { fresh: true } : {}),
      }),
    );
    if (first === 'AUTHORIZED' || authorizationUrl === undefined) return { kind: 'refreshed' };
    // Wait before asking: a fast browser may come back before the question's promise settles.
    const callback = listener.wait(() => provider.expectedState, signal);
    callback.catch(() => undefined);
    const answer = await askUser(options.questions, options.queue ?? new QuestionQueue(), 'signIn', {
      server: provider.server,
      url: authorizationUrl.href,
      signal,
    });
    if (answer.kind === 'skip') throw new SignInRequiredError(provider.server);
    let returned: AuthorizationCallback;
    try {
      returned = await callback;
    } catch (error) {
      const reason = error instanceof CallbackRefusedError ? error.message : 'the redirect listener failed';
      throw new SignInFailedError(provider.server, reason, { cause: error });
    }
    await auth(provider, {
      ...authOptions({ ...options, fresh: false }),
      authorizationCode: returned.code,
      ...definedProperties({ iss: returned.iss }),
    });
    return { kind: 'signed-in' };
  } finally {
    provider.endSignIn();
    await listener.close();
  }
}

/**
 * A connection's 401 has told the provider where the server's metadata is; `auth login` (or a
 * sign-in before any connection) asks the server for that challenge first, so that both find
 * metadata published only there (RFC 9728 §5.1).
 */
async function learnResourceMetadataUrl(options: SignInOptions): Promise<void> {
  const { provider } = options;
  if (provider.resourceMetadataUrl !== undefined) return;
  const challenged = await challengedResourceMetadataUrl({
    serverUrl: provider.serverUrl,
    ...definedProperties({ fetch: options.fetch, signal: options.signal }),
  });
  if (challenged !== undefined) provider.rememberResourceMetadataUrl(challenged);
}

function authOptions(options: SignInOptions): Parameters<typeof auth>[1] {
  const { resourceMetadataUrl } = options.provider;
  return {
    serverUrl: options.provider.serverUrl,
    ...definedProperties({ resourceMetadataUrl, fetchFn: options.fetch, scope: options.scope }),
    ...(options.fresh === true ? { forceReauthorization: true } : {}),
  };
}

/** Whether a token's granted `scope` includes every scope of `wanted`. */
function grants(granted: string | undefined, wanted: string): boolean {
  const have = new Set((granted ?? '').split(/\s+/).filter(Boolean));
  return wanted
    .split(/\s+/)
    .filter(Boolean)
    .every((scope) => have.has(scope));
}

/** The port of the last registration's redirect, so that it stays valid; else 0 (a free one). */
async function lastRedirectPort(provider: McpOAuthProvider): Promise<number> {
  const registered = (await provider.storedEntry()).client?.redirect_uris?.[0];
  if (registered === undefined) return 0;
  try {
    const url = new URL(registered);
    return url.hostname === '127.0.0.1' && url.port !== '' ? Number(url.port) : 0;
  } catch {
    return 0;
  }
}
