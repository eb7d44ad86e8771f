/**
 * `mcphost acp`: the command line's side of the editor front end (src/acp). It reads the flags
 * and the system prompt as the chat does, gives the agent the store of saved conversations (this
 * folder's sessions, the ones `-c`/`-r` take up), and points every library's console at stderr:
 * stdout belongs to the protocol.
 */
import { basename, join } from 'node:path';
import { mkdir } from 'node:fs/promises';
import type { CliOptions } from './args.js';
import { ExitCode, type ExitCodeValue } from './exit-codes.js';
import { notice, type CliIO } from './io.js';
import type { SignalSource } from './run-command.js';
import { captureLibraryConsole } from './library-console.js';
import { runnerOptionsFor } from './runner-options.js';
import { readSystemPrompt } from '../setup/system-prompt.js';
import { mcphostFolder } from '../util/user-folders.js';
import { openConversationFiles } from '../conversation/conversation-journal.js';
import { ConversationRecorder } from './sessions/conversation-recorder.js';
import {
  conversationFolder,
  listConversations,
  newConversationPath,
} from './sessions/saved-conversations.js';
import type { AcpSessionStore, StoredConversation } from '../acp/session-store.js';
import { serveAcp } from '../acp/serve.js';
import { KeptPermissions } from '../safety/kept-permissions.js';
import { redactText } from '../safety/redact.js';
import { stripControlCharacters } from '../safety/output-limits.js';

const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export async function runAcpCommand(
  options: CliOptions,
  io: CliIO,
  signals: SignalSource,
  version: string,
): Promise<ExitCodeValue> {
  const log = (line: string): void => {
    notice(io, line);
  };
  // A library's console output must never reach stdout, where the editor reads JSON-RPC.
  const restoreConsole = captureLibraryConsole((message) => {
    if (options.debug) io.stderr.write(`[library] ${stripControlCharacters(redactText(message))}\n`);
  });
  const controller = new AbortController();
  const stop = (): void => {
    controller.abort();
  };
  for (const name of STOP_SIGNALS) signals.on(name, stop);
  try {
    const systemPrompt = await readSystemPrompt(options.systemPrompt, io.cwd);
    await serveAcp({
      input: io.stdin,
      output: io.stdout,
      signal: controller.signal,
      log,
      version,
      debug: options.debug,
      defaultCwd: io.cwd,
      store: conversationStore(io),
      keptPermissions: (cwd) =>
        KeptPermissions.open({
          file: join(mcphostFolder('state', io.homeDir, io.env), 'permissions.json'),
          projectDir: cwd,
        }),
      runnerOptions: (cwd) =>
        runnerOptionsFor({ options, script: undefined, session: {}, systemPrompt }, { ...io, cwd }),
    });
    return ExitCode.ok;
  } finally {
    for (const name of STOP_SIGNALS) signals.off(name, stop);
    restoreConsole();
  }
}

/** Editor sessions as this folder's saved conversations: the id is the file's name. */
function conversationStore(io: CliIO): AcpSessionStore {
  const folderOf = (cwd: string): string =>
    conversationFolder(mcphostFolder('state', io.homeDir, io.env), cwd);
  const stored = (path: string, recorder: ConversationRecorder): StoredConversation => ({
    id: basename(path).replace(/\.jsonl?$/, ''),
    record: (runner, history, change) => recorder.recordChange(runner, history, change),
  });
  return {
    create: async (cwd) => {
      const folder = folderOf(cwd);
      await mkdir(folder, { recursive: true });
      const path = newConversationPath(folder);
      const opened = await openConversationFiles({ save: path });
      // As the chat's: written once the conversation has an answer.
      return stored(path, new ConversationRecorder({ journal: opened.journal, onceAnswered: true }));
    },
    open: async (cwd, id) => {
      const found = (await listConversations(folderOf(cwd))).find((summary) => summary.id === id);
      if (found === undefined) return undefined;
      const opened = await openConversationFiles({ both: found.path });
      const loaded = opened.loaded;
      return {
        ...stored(found.path, new ConversationRecorder({ journal: opened.journal })),
        messages: loaded?.messages ?? [],
        ...(loaded?.model === undefined ? {} : { model: loaded.model }),
        ...(loaded?.systemPrompt === undefined ? {} : { systemPrompt: loaded.systemPrompt }),
      };
    },
    list: async (cwd) =>
      (await listConversations(folderOf(cwd))).map((summary) => ({
        id: summary.id,
        updatedAt: summary.updatedAt,
        title: summary.firstPrompt,
      })),
  };
}
