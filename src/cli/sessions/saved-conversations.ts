/**
 * Where conversations are saved by default, and how one is found again (`--continue`,
 * `--resume [ID]`). Each working folder has its own folder of conversations in the state folder
 * (`$XDG_STATE_HOME/mcphost/sessions/<folder>/`, else `~/.local/state/…`), as Claude Code keeps
 * one per project: `-c` in a folder continues what was said there.
 *
 * The file format is the journal's (src/conversation/saved-conversation.ts); this module only needs a path per
 * conversation and a way to read one (`loadSavedConversation`), so it keeps working when that
 * format changes.
 */
import { randomBytes } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigError } from '../../core/errors.js';
import { loadSavedConversation } from '../../conversation/saved-conversation.js';
import type { Message } from '../../core/types.js';

/** The folder of the conversations held in `projectDir`: its absolute path as one file name. */
export function conversationFolder(state: string, projectDir: string): string {
  const key = resolve(projectDir).replace(/[^A-Za-z0-9._-]/g, '-');
  return join(state, 'sessions', key);
}

/** A fresh file name for a conversation starting now: sortable by time, unique. */
export function newConversationPath(folder: string, now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[:.]/g, '-').replace(/Z$/, '');
  // JSON Lines: the append-only journal (src/conversation/conversation-journal.ts).
  return join(folder, `${stamp}-${randomBytes(3).toString('hex')}.jsonl`);
}

/** A saved conversation's file: the journal's `.jsonl`, or `.json` from before it. */
const SAVED_EXTENSION = /\.jsonl?$/;

/** What `--resume` lists about one saved conversation. */
export interface ConversationSummary {
  /** The file name without `.jsonl` (or an older `.json`): what `--resume ID` takes. */
  readonly id: string;
  readonly path: string;
  readonly updatedAt: Date;
  /** The first line of the first thing the user asked. */
  readonly firstPrompt: string;
  readonly messageCount: number;
  readonly bytes: number;
}

function textOf(message: Message | undefined): string {
  if (message === undefined) return '';
  const parts = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : []));
  return parts.join(' ').replace(/\s+/g, ' ').trim();
}

/** The first line with text of a message: a preview that a pasted log or a long prompt cannot fill. */
function firstLineOf(message: Message | undefined): string {
  const text = message?.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
  const line = (text ?? '').split('\n').find((candidate) => candidate.trim() !== '') ?? '';
  return line.replace(/\s+/g, ' ').trim();
}

/** The conversations saved for a folder, newest first. Files that are not sessions are skipped. */
export async function listConversations(folder: string): Promise<ConversationSummary[]> {
  let names: string[];
  try {
    names = (await readdir(folder)).filter((name) => SAVED_EXTENSION.test(name));
  } catch {
    return [];
  }
  const summaries = await Promise.all(
    names.map(async (name): Promise<ConversationSummary | undefined> => {
      const path = join(folder, name);
      try {
        const [session, info] = await Promise.all([loadSavedConversation(path), stat(path)]);
        return {
          id: name.replace(SAVED_EXTENSION, ''),
          path,
          updatedAt: new Date(session.updatedAt),
          firstPrompt: firstLineOf(session.messages.find((message) => message.role === 'user')),
          messageCount: session.messages.length,
          bytes: info.size,
        };
      } catch {
        return undefined;
      }
    }),
  );
  return summaries
    .filter((summary): summary is ConversationSummary => summary !== undefined)
    .sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime());
}

/** The one conversation an id (or the start of one) names. */
export function findConversation(summaries: readonly ConversationSummary[], id: string): ConversationSummary {
  const exact = summaries.find((summary) => summary.id === id);
  if (exact !== undefined) return exact;
  const matches = summaries.filter((summary) => summary.id.startsWith(id));
  const [only] = matches;
  if (only !== undefined && matches.length === 1) return only;
  throw new ConfigError(
    '--resume',
    matches.length === 0
      ? `no saved conversation "${id}" in this folder (mcphost --resume lists them)`
      : `"${id}" matches ${matches.length} conversations; give more of the id`,
  );
}

function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(bytes < 10_240 ? 1 : 0)} kB`;
}

/** The `--resume` list: one line per conversation, numbered from 1. */
export function conversationList(summaries: readonly ConversationSummary[], width = 100): string {
  return summaries
    .map((summary, index) => {
      const when = summary.updatedAt.toISOString().slice(0, 16).replace('T', ' ');
      const head = `  ${String(index + 1).padStart(2)}. ${when}  ${`${summary.messageCount} messages, ${size(summary.bytes)}`.padEnd(24)}  `;
      const room = Math.max(10, width - head.length);
      const prompt =
        summary.firstPrompt.length > room
          ? `${summary.firstPrompt.slice(0, room - 1)}…`
          : summary.firstPrompt;
      return `${head}${prompt}\n`;
    })
    .join('');
}

/** "continuing <id>: 14 messages", and the last exchange, for the user to pick up the thread. */
export function continuingNotice(
  id: string,
  conversation: {
    readonly messages: readonly Message[];
    readonly agentRuns?: readonly unknown[] | undefined;
  },
  width = 100,
): readonly string[] {
  const { messages } = conversation;
  const agentRuns = conversation.agentRuns?.length ?? 0;
  const lastUser = [...messages]
    .reverse()
    .find((message) => message.role === 'user' && textOf(message) !== '');
  const lastAnswer = [...messages]
    .reverse()
    .find((message) => message.role === 'assistant' && textOf(message) !== '');
  const clip = (text: string) => (text.length > width - 8 ? `${text.slice(0, width - 9)}…` : text);
  const lines = [`continuing ${id}: ${messages.length} messages`];
  if (lastUser !== undefined) lines.push(`you: ${clip(textOf(lastUser))}`);
  if (lastAnswer !== undefined) lines.push(`model: ${clip(textOf(lastAnswer))}`);
  if (agentRuns > 0) {
    lines.push(`agents: ${agentRuns} run${agentRuns === 1 ? '' : 's'} kept (/agents in the chat lists them)`);
  }
  return lines;
}
