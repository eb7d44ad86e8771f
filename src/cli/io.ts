/** The CLI's view of the outside world, injected so tests can drive it with plain streams. */
import { resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { oneLine } from './chat/sanitize.js';

export interface CliIO {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly homeDir: string;
  readonly cwd: string;
}

/** Writes one line to stderr, prefixed so it is clear it is ours and not the model's. */
export function notice(io: CliIO, message: string): void {
  io.stderr.write(`mcphost: ${noticeLine(message)}\n`);
}

/**
 * A note as one clean line: text from a model, a vendor or a server (an HTML error body, a name with
 * bidi overrides) may carry line breaks and control characters, and must not break or forge lines.
 */
export function noticeLine(message: string): string {
  return oneLine(message);
}

/** A path given on the command line, made absolute from the working directory. */
export function pathIn(io: CliIO, path: string | undefined): string | undefined {
  return path === undefined ? undefined : resolve(io.cwd, path);
}
