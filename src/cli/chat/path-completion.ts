/**
 * Tab completion of `@path` in the chat: the file and folder names that continue the last word
 * of the line, folders with a `/` so Tab can go on into them. The rule for what is a path is the
 * one attachments use (file-attachments.ts), so `@./`, `@src/` or `@notes.` complete, `@name` does not.
 */
import { readdir } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { isPathMention, processPlaces, type AttachmentPlaces } from '../file-attachments.js';
import type { Completion } from './completion-candidates.js';

/** Completions for a `@path` at the end of `line`, or undefined when the last word is not one. */
export async function completePathMention(
  line: string,
  places: AttachmentPlaces = processPlaces(),
): Promise<Completion | undefined> {
  const match = /(?:^|\s)(@(\S*))$/.exec(line);
  const mention = match?.[1];
  const word = match?.[2];
  if (mention === undefined || word === undefined) return undefined;
  if (!isPathMention(word)) return undefined;
  // The folder typed so far and the start of a name in it.
  const slash = word.lastIndexOf('/');
  const typedFolder = slash < 0 ? '' : word.slice(0, slash + 1);
  const start = slash < 0 ? word : word.slice(slash + 1);
  const folder = resolveFolder(typedFolder, places);
  let entries;
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch {
    // An unreadable or missing folder has nothing to offer; Tab just does nothing.
    return [[], mention];
  }
  const candidates = entries
    .filter((entry) => entry.name.startsWith(start))
    // Hidden names only when their dot was typed, as shells do.
    .filter((entry) => start.startsWith('.') || !entry.name.startsWith('.'))
    .map((entry) => `@${typedFolder}${entry.name}${entry.isDirectory() ? '/' : ''}`)
    .sort();
  return [candidates, mention];
}

function resolveFolder(typed: string, places: AttachmentPlaces): string {
  if (typed === '') return places.cwd;
  if (typed.startsWith('~/')) return resolve(places.home, typed.slice(2));
  return isAbsolute(typed) ? typed : resolve(places.cwd, typed);
}
