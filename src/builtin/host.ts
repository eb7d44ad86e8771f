/**
 * What the program running the built-in servers may lend them in place of this machine's own
 * files and processes: an editor (mcphost acp) lends its buffers, its terminal, and a view of the
 * to-do list. Everything here is optional; without it the servers use the disk and their own
 * process groups, as in the chat. The guard (approval, modes, rules) is the pool's and does not
 * change with the host: these only decide where an allowed call's reads, writes and commands go.
 */
import type { ShellOutcome } from './shell-command.js';
import type { TodoItem } from './todo-server.js';

/** Reads and writes of the `fs` server's text files (paths are absolute and already allowed). */
export interface FileAccess {
  /** The file's whole text (an editor gives its buffer, saved or not). Rejects when it cannot. */
  readText(path: string): Promise<string>;
  /**
   * Replaces the file's text. `previous` is the text it had, when the caller read it already
   * (edit_file), so that the host need not read it again to show the change.
   */
  writeText(path: string, content: string, previous?: string): Promise<void>;
}

/** One command of the `bash` server, run somewhere else than in a process group of ours. */
export interface TerminalCommand {
  readonly command: string;
  /** Absolute. */
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  /** The call was cancelled: the command is ended. */
  readonly signal: AbortSignal;
}

/**
 * Runs `bash` commands (an editor's terminal). Every ending of the command is an outcome; it
 * rejects only when the terminal itself fails midway (the call then fails with that message).
 */
export interface CommandTerminal {
  run(command: TerminalCommand): Promise<ShellOutcome>;
}

/** What a host lends the built-in servers. */
export interface BuiltinHost {
  /** The folder the servers work in: `fs`'s default allowed directory, `bash`'s default cwd. */
  readonly cwd?: string;
  /** `fs` reads and writes text through this (its listing and searching stay on the disk). */
  readonly files?: FileAccess;
  /** `bash` runs its commands here, unless it has a sandbox (which only our own launch gives). */
  readonly terminal?: CommandTerminal;
  /** Told the whole to-do list each time the model writes it. */
  readonly onTodos?: (items: readonly TodoItem[]) => void;
}
