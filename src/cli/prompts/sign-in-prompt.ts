/**
 * The chat's answer to "a server needs you to sign in": say so on stderr with the URL, and open
 * it in the system browser when there is one. The run then waits for the redirect (the core's
 * loopback listener), so no keypress is needed and the question can be asked before the chat's
 * own prompt exists (servers start first).
 */
import type { SignInDecision, SignInRequest } from '../../core/questions.js';
import type { CliIO } from '../io.js';
import { notice } from '../io.js';
import { openInBrowser } from '../browser.js';

/** `UserQuestions.signIn` for the chat. */
export function browserSignIn(io: CliIO): (request: SignInRequest) => Promise<SignInDecision> {
  return async (request) => {
    notice(io, `server ${request.server} needs sign-in. Open this page to sign in:`);
    io.stderr.write(`  ${request.url}\n`);
    await openInBrowser(request.url, io.env);
    notice(io, 'waiting for the browser to come back (Ctrl-C stops)…');
    return { kind: 'opened' };
  };
}
