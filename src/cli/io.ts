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
export function notice(io: CliIO, message: string | readonly string[]): void {
  const [first = '', ...details] = typeof message === 'string' ? [message] : message;
  // Lines the host composed stay lines, each cleaned on its own and indented under the first, so
  // that text inside one of them cannot start a line of its own.
  const rest = details.map((line) => `\n  ${noticeLine(line)}`).join('');
  io.stderr.write(`mcphost: ${noticeLine(first)}${rest}\n`);
}

/**
 * A note as one clean line: text from a model, a vendor or a server (an HTML error body, a name with
 * bidi overrides) may carry line breaks and control characters, and must not break or forge lines.
 */
export function noticeLine(message: string): string {
  return oneLine(message);
}

/**
 * A path the user typed, made absolute from the working directory. `~` and `~/…` are the home
 * folder: the shell expands them in most places, but not in `--flag=~/x` nor inside the chat.
 */
export function userPath(io: Pick<CliIO, 'cwd' | 'homeDir'>, path: string): string {
  if (path === '~') return resolve(io.homeDir);
  if (path.startsWith('~/')) return resolve(io.homeDir, path.slice(2));
  return resolve(io.cwd, path);
}

/** {@link userPath}, passing `undefined` through. */
export function pathIn(io: CliIO, path: string | undefined): string | undefined {
  return path === undefined ? undefined : userPath(io, path);
}
