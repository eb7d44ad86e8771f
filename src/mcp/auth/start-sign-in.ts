/**
 * A server that asks for a sign-in while it starts, kept out of server-connection.ts: with an
 * interactive sign-in at hand (the chat) it runs and the start is tried once more; otherwise, or
 * when it fails, the one line that says what to do.
 */
import { messageOf } from '../../core/errors.js';
import { isRemoteServer, type ServerDefinition } from '../definition.js';
import { SignInRequiredError } from './errors.js';

export interface StartSignInOptions {
  readonly serverName: string;
  readonly definition: ServerDefinition;
  readonly required: SignInRequiredError;
  /** The interactive sign-in, when someone can be asked. */
  readonly signIn: ((signal: AbortSignal, scope: string | undefined) => Promise<void>) | undefined;
  /** How many sign-ins this start has run already. */
  readonly signIns: number;
  readonly signal: AbortSignal;
  /** Starts the server again after a sign-in (with `signIns + 1`). */
  readonly startAgain: () => Promise<void>;
}

/**
 * Signs in and starts again when it may. Resolves to undefined when the start was tried again,
 * or to the one line that says why the server is left out.
 */
export async function signInAtStart(options: StartSignInOptions): Promise<string | undefined> {
  const { signIn, definition, required, signIns } = options;
  // Sign-in turned off: `mcphost auth login` would not help, so say what the server answered.
  let hint =
    isRemoteServer(definition) && definition.oauth === false
      ? `server ${options.serverName} refused the request (HTTP ${required.status ?? 401}) and its sign-in is off ("oauth": false)`
      : required.message;
  // One sign-in per start, and one more when the server moved to another authorization server
  // meanwhile (SEP-2352): a server that keeps refusing does not loop the person through it.
  const mayRetry = signIns === 0 || (signIns === 1 && required.authorizationServerChanged);
  if (signIn !== undefined && mayRetry) {
    try {
      await signIn(options.signal, required.scope);
      await options.startAgain();
      return undefined;
    } catch (error) {
      if (!(error instanceof SignInRequiredError)) hint = `${messageOf(error)} (${required.message})`;
    }
  }
  return hint;
}
