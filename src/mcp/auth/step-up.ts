/**
 * A request refused mid-session for want of a sign-in: a 403 `insufficient_scope` (a step-up, the
 * SDK asks for the union of the scopes asked before and the challenged one), or a 401 that the
 * stored tokens cannot answer (revoked, expired beyond refresh, or an authorization server that
 * changed). With someone to ask, they sign in again and the request is sent once more; without,
 * the request fails with the one-line "needs sign-in" error.
 */
import { signInRequiredIn } from '../remote-transport.js';

/** What {@link withSignInRetry} needs. */
export interface SignInRetryOptions<T> {
  /** Sends the request; called at most twice. */
  readonly send: () => Promise<T>;
  /** Signs in for `scope` (the challenge's, when it named one); absent, no one can be asked. */
  readonly signIn: ((scope: string | undefined) => Promise<void>) | undefined;
}

/**
 * Sends the request; when the server wants a sign-in and someone can sign in, signs in and sends
 * it once more (never more: a server that keeps refusing must not loop a person through the
 * browser). Rethrows the sign-in's own failure, and the second attempt's.
 */
export async function withSignInRetry<T>(options: SignInRetryOptions<T>): Promise<T> {
  try {
    return await options.send();
  } catch (error) {
    const required = signInRequiredIn(error);
    if (required === undefined || options.signIn === undefined) throw error;
    await options.signIn(required.scope);
    return options.send();
  }
}

/**
 * The sign-in the calls of one server may run: one at a time, shared by every call that needs it
 * while it runs (several calls refused at once make one trip to the browser, not several).
 */
export function sharedSignIn(
  signIn: ((signal: AbortSignal, scope: string | undefined) => Promise<void>) | undefined,
  signal: AbortSignal,
): ((scope: string | undefined) => Promise<void>) | undefined {
  if (signIn === undefined) return undefined;
  let running: Promise<void> | undefined;
  return (scope) => {
    running ??= signIn(signal, scope).finally(() => {
      running = undefined;
    });
    return running;
  };
}
