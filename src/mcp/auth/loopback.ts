/**
 * The loopback redirect of a sign-in (RFC 8252 §7.3): an HTTP listener on 127.0.0.1 that waits for
 * the browser to come back with `?code=…&state=…`.
 *
 * The SDK does not check `state`: this listener does. A redirect whose `state` is not the one we
 * sent (a forged or replayed redirect, CSRF) ends the sign-in; the code it carries is never
 * redeemed. Written on node:http because the job is one route and one answer.
 */
import { createServer, type Server } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { CALLBACK_PATH } from './provider.js';

/** What the browser brought back. */
export interface AuthorizationCallback {
  readonly code: string;
  /** RFC 9207 `iss`, checked by the SDK against the authorization server's issuer. */
  readonly iss?: string;
}

/** Why a callback was refused: one short phrase, never the request's own values. */
export class CallbackRefusedError extends Error {}

/** A listening redirect endpoint. */
export interface CallbackListener {
  /** `http://127.0.0.1:PORT/callback`. */
  readonly redirectUrl: string;
  /**
   * Resolves with the first callback whose `state` equals `expectedState()`; rejects on a callback
   * with another `state`, an `error`, or no `code`, and when `signal` aborts.
   */
  wait(expectedState: () => string | undefined, signal: AbortSignal): Promise<AuthorizationCallback>;
  close(): Promise<void>;
}

const PAGE_DONE = 'Signed in. You can close this tab and return to mcphost.';
const PAGE_REFUSED = 'Sign-in refused. Return to mcphost for details.';

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * Starts listening on `port` (0: a free one). When `port` is only a preference (`strict` false)
 * and it is taken, a free port is used instead.
 */
export async function startCallbackListener(port: number, strict: boolean): Promise<CallbackListener> {
  type Outcome = { kind: 'code'; callback: AuthorizationCallback } | { kind: 'refused'; reason: string };
  let deliver: ((outcome: Outcome) => void) | undefined;
  let expected: (() => string | undefined) | undefined;

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== CALLBACK_PATH || request.method !== 'GET') {
      response.writeHead(404).end();
      return;
    }
    const outcome = judge(url.searchParams, expected?.());
    response
      .writeHead(outcome.kind === 'code' ? 200 : 400, { 'content-type': 'text/plain; charset=utf-8' })
      .end(outcome.kind === 'code' ? PAGE_DONE : PAGE_REFUSED);
    deliver?.(outcome);
  });
  try {
    await listen(server, port);
  } catch (error) {
    if (strict || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    await listen(server, 0);
  }
  const { port: actual } = server.address() as AddressInfo;

  return {
    redirectUrl: `http://127.0.0.1:${actual}${CALLBACK_PATH}`,
    wait(expectedState, signal) {
      expected = expectedState;
      return new Promise((resolve, reject) => {
        const onAbort = (): void => {
          reject(new CallbackRefusedError('no redirect came back in time'));
        };
        if (signal.aborted) {
          onAbort();
          return;
        }
        signal.addEventListener('abort', onAbort, { once: true });
        deliver = (outcome) => {
          deliver = undefined;
          signal.removeEventListener('abort', onAbort);
          if (outcome.kind === 'code') resolve(outcome.callback);
          else reject(new CallbackRefusedError(outcome.reason));
        };
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** Checks a redirect's parameters. The `error` code is echoed only when it is a plain word. */
function judge(
  parameters: URLSearchParams,
  expectedState: string | undefined,
): { kind: 'code'; callback: AuthorizationCallback } | { kind: 'refused'; reason: string } {
  const state = parameters.get('state');
  if (expectedState === undefined || state === null || !sameText(state, expectedState)) {
    return { kind: 'refused', reason: 'the redirect carried the wrong state (a forged or stale redirect)' };
  }
  const error = parameters.get('error');
  if (error !== null) {
    const word = /^[\w.-]{1,64}$/.test(error) ? error : 'an unreadable error';
    return { kind: 'refused', reason: `the authorization server answered ${word}` };
  }
  const code = parameters.get('code');
  if (code === null || code === '') return { kind: 'refused', reason: 'the redirect carried no code' };
  const iss = parameters.get('iss');
  return { kind: 'code', callback: { code, ...(iss === null ? {} : { iss }) } };
}
