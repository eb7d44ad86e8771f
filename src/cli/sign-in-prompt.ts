/**
 * The chat's answer to "a server needs you to sign in": say so on stderr with the URL, and open
 * it in the system browser when there is one. The run then waits for the redirect (the core's
 * loopback listener), so no keypress is needed and the question can be asked before the chat's
 * own prompt exists (servers start first).
 */
import type { SignInDecision, SignInRequest } from '../questions.js';
import type { CliIO } from './io.js';
import { notice } from './io.js';

/** Whether a browser can be opened here: not over SSH, and on Linux only with a display. */
function hasBrowser(env: CliIO['env']): boolean {
  if (env.SSH_CONNECTION !== undefined || env.SSH_TTY !== undefined) return false;
  if (process.platform === 'linux') return env.DISPLAY !== undefined || env.WAYLAND_DISPLAY !== undefined;
  return true;
}

/** `UserQuestions.signIn` for the chat. */
export function browserSignIn(io: CliIO): (request: SignInRequest) => Promise<SignInDecision> {
  return async (request) => {
    notice(io, `server ${request.server} needs sign-in. Open this page to sign in:`);
    io.stderr.write(`  ${request.url}\n`);
    if (hasBrowser(io.env)) {
      try {
        // `open` knows each system's opener (xdg-open, open, start, WSL); loaded only when needed.
        const { default: open } = await import('open');
        const child = await open(request.url);
        child.on('error', () => undefined);
        child.unref();
      } catch {
        // No opener: the URL is on the screen.
      }
    }
    notice(io, 'waiting for the browser to come back (Ctrl-C stops)…');
    return { kind: 'opened' };
  };
}
