/**
 * Why a server's command could not be started, in words that name what to fix. Node's own
 * `spawn X ENOENT` says neither whether the command or the working folder is missing nor what to do.
 */
import { existsSync } from 'node:fs';

/** What was being started. */
export interface SpawnAttempt {
  readonly command: string;
  readonly cwd?: string;
}

/** The error a failed spawn becomes: one line, naming the command (or folder) and the cause. */
export function spawnFailureError(attempt: SpawnAttempt, error: Error): Error {
  const { command, cwd } = attempt;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') {
    // Node reports a missing working folder as ENOENT of the command too.
    if (cwd !== undefined && !existsSync(cwd)) return new Error(`its working folder "${cwd}" does not exist`);
    return new Error(`no such command "${command}" (is it installed and on PATH?)`);
  }
  if (code === 'EACCES') return new Error(`"${command}" is not executable (permission denied)`);
  // Node's message already names the command and the code.
  return new Error(`cannot start "${command}": ${error.message}`, { cause: error });
}
