/**
 * Which file the conversation is read from and saved to: the session flags (`-s`, `--load-session`,
 * `--save-session`), `--continue`, `--resume [ID]`, or by default a new file in the state folder
 * (unless `--no-session-persistence`, or `sessionPersistence: false` in the home config: run-command.ts
 * reads that key before calling here, since the rest of the config is loaded later).
 */
import { mkdir } from 'node:fs/promises';
import { ConfigError } from '../../core/errors.js';
import type { ConversationFileChoice } from '../../conversation/conversation-journal.js';
import type { CliOptions } from '../args.js';
import { pathIn, type CliIO } from '../io.js';
import {
  conversationFolder,
  conversationList,
  findConversation,
  listConversations,
  newConversationPath,
  type ConversationSummary,
} from './saved-conversations.js';
import { mcphostFolder } from '../../util/user-folders.js';
import { definedProperties } from '../../util/defined-properties.js';

/** The choice, and the id of the saved conversation picked by `--continue` / `--resume`, if any. */
export interface ResolvedSessionChoice {
  readonly choice: ConversationFileChoice;
  readonly continuing?: string;
  /**
   * The choice is a new file in the state folder (no flag named one): it is written only once the
   * conversation has an answer, so that a run failing before one leaves nothing for `-c`/`-r`.
   */
  readonly onceAnswered?: boolean;
}

function isTerminal(stream: unknown): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

/** Asks for a number from the list on the terminal; throws when it is not a terminal. */
async function pick(summaries: readonly ConversationSummary[], io: CliIO): Promise<ConversationSummary> {
  const list = conversationList(summaries, (io.stderr as { columns?: number }).columns ?? 100);
  if (!isTerminal(io.stdin)) {
    throw new ConfigError(
      '--resume',
      `give the ID of one of these (mcphost --resume ID):\n${list.trimEnd()}`,
    );
  }
  io.stderr.write(list);
  // Loaded only for the question: the runs that resume nothing never need readline.
  const { createInterface } = await import('node:readline/promises');
  const terminal = createInterface({ input: io.stdin, output: io.stderr });
  try {
    for (;;) {
      const answer = (await terminal.question(`resume which (1-${summaries.length})? `)).trim();
      const chosen = summaries[Number(answer) - 1];
      if (/^[0-9]+$/.test(answer) && chosen !== undefined) return chosen;
      if (answer === '') throw new ConfigError('--resume', 'nothing chosen');
    }
  } finally {
    terminal.close();
  }
}

export async function resolveSessionChoice(options: CliOptions, io: CliIO): Promise<ResolvedSessionChoice> {
  const named = options.session ?? options.loadSession ?? options.saveSession;
  if (named !== undefined) {
    return {
      choice: definedProperties({
        load: pathIn(io, options.loadSession),
        save: pathIn(io, options.saveSession),
        both: pathIn(io, options.session),
      }),
    };
  }
  const folder = conversationFolder(mcphostFolder('state', io.homeDir, io.env), io.cwd);
  if (options.continueLatest === true || options.resume !== undefined) {
    const summaries = await listConversations(folder);
    if (summaries.length === 0) {
      throw new ConfigError(
        options.continueLatest === true ? '--continue' : '--resume',
        `no saved conversation for ${io.cwd}`,
      );
    }
    const chosen =
      options.continueLatest === true
        ? summaries[0]
        : options.resume === ''
          ? await pick(summaries, io)
          : findConversation(summaries, options.resume ?? '');
    if (chosen === undefined) throw new ConfigError('--continue', `no saved conversation for ${io.cwd}`);
    // Saved where it was read: the conversation goes on in the same file.
    return { choice: { both: chosen.path }, continuing: chosen.id };
  }
  if (options.sessionPersistence === false) return { choice: {} };
  await mkdir(folder, { recursive: true });
  return { choice: { save: newConversationPath(folder) }, onceAnswered: true };
}
