/**
 * Sign-in failures. None of them carries a token, a code or a client secret in its message: error
 * text ends up in logs, `-p` output and sessions.
 */
import { McpHostError } from '../../core/errors.js';

/** The one line a user sees for a server that needs them to sign in. */
export function signInHint(server: string): string {
  return `server ${server} needs sign-in: run \`mcphost auth login ${server}\``;
}

/** What a {@link SignInRequiredError} may say beyond the server's name. */
export interface SignInRequiredOptions extends ErrorOptions {
  /** The HTTP status the server answered (401, or 403), when it came from an answer. */
  readonly status?: number;
  /** The scope the server's challenge (WWW-Authenticate) asked for, for the sign-in to ask. */
  readonly scope?: string | undefined;
  /**
   * The server's protected resource metadata now names another authorization server than the one
   * the stored sign-in came from (SEP-2352): a new sign-in there is needed even right after one.
   */
  readonly authorizationServerChanged?: boolean;
}

/**
 * A server needs the user to sign in: it answered 401/403 with no way to sign in configured, or
 * there are no tokens, or they expired beyond refresh or were revoked, and no one could be asked
 * now (`-p`, a library without `signIn`, the user said skip). The one error for all of these.
 */
export class SignInRequiredError extends McpHostError {
  readonly server: string;
  /** The HTTP status behind it, when the server's answer was the reason. */
  readonly status: number | undefined;
  /** The scope the server's challenge named, when it named one. */
  readonly scope: string | undefined;
  /** See {@link SignInRequiredOptions.authorizationServerChanged}. */
  readonly authorizationServerChanged: boolean;
  constructor(server: string, options: SignInRequiredOptions = {}) {
    const { status, scope, authorizationServerChanged, ...errorOptions } = options;
    super(signInHint(server), errorOptions);
    this.server = server;
    this.status = status;
    this.scope = scope;
    this.authorizationServerChanged = authorizationServerChanged ?? false;
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
