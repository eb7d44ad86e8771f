/**
 * `mcphost acp`: the agent on stdin/stdout, newline-delimited JSON-RPC. stdout carries the
 * protocol's messages and nothing else; every log line goes to stderr. Resolves when the editor
 * closes the connection (stdin ends), after every session's servers are closed.
 */
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { Readable, Writable } from 'node:stream';
import { createAcpAgent, type AcpAgentOptions } from './agent.js';

export interface ServeAcpOptions extends AcpAgentOptions {
  readonly input: Readable;
  readonly output: Writable;
  /** Stops the agent (a signal): the connection closes and the sessions' servers end. */
  readonly signal?: AbortSignal;
}

export async function serveAcp(options: ServeAcpOptions): Promise<void> {
  const { app, close } = createAcpAgent(options);
  const stream = ndJsonStream(
    Writable.toWeb(options.output) as WritableStream<Uint8Array>,
    Readable.toWeb(options.input) as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  const stop = (): void => {
    connection.close();
  };
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    await connection.closed;
  } finally {
    options.signal?.removeEventListener('abort', stop);
    await close();
  }
}
