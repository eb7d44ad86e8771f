/**
 * Sign-in failures. None of them carries a token, a code or a client secret in its message: error
 * text ends up in logs, `-p` output and sessions.
 */
import { McpHostError } from '../../errors.js';

/** The one line a user sees for a server that needs them to sign in. */
export function signInHint(server: string): string {
  return `server ${server} needs sign-in: run \`mcphost auth login ${server}\``;
}

/**
 * A server needs the user to sign in (no tokens, or tokens that expired beyond refresh or were
 * revoked), and no one could be asked now (`-p`, a library without `signIn`, the user said skip).
 */
export class SignInRequiredError extends McpHostError {
  readonly server: string;
  constructor(server: string, options?: ErrorOptions) {
    super(signInHint(server), options);
    this.server = server;
  }
}

/** A sign-in was attempted and refused: a forged redirect, an error from the server, a timeout. */
export class SignInFailedError extends McpHostError {
  readonly server: string;
  constructor(server: string, reason: string, options?: ErrorOptions) {
    super(`server ${server}: sign-in failed: ${reason}`, options);
    this.server = server;
  }
}
