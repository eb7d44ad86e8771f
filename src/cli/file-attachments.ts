/**
 * `@path` in a prompt attaches a local file (chat and `-p`). It lives in the CLI, not the library,
 * because it reads the user's own files; the library only knows `@server:uri`.
 *
 * The rule (docs/chat.md): a word that starts with `@` (at the start of the text or after white
 * space) is a path when what follows it
 * - is not `server:…` (a colon before any `/` means a resource mention or something else), and
 * - starts with `./`, `../`, `/` or `~/`, or contains a `/` or a `.` (`@notes.md`, `@src/a.ts`).
 * Trailing sentence punctuation (`.,;!?)`) is not part of the path. `@name` alone is left alone.
 */
import { readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { ConfigError } from '../core/errors.js';
import type { UserContent } from '../core/types.js';

/** Largest text file attached (bytes): beyond it the context would mostly be one file. */
export const TEXT_ATTACHMENT_LIMIT = 256 * 1024;
/** Largest image attached (bytes): the vendors' own per-image limits are around 5 MB. */
export const IMAGE_ATTACHMENT_LIMIT = 5 * 1024 * 1024;

/** Where relative and `~/` paths start. */
export interface AttachmentPlaces {
  readonly cwd: string;
  readonly home: string;
}

/** The files read, as blocks to follow the user's text, and one note per file. */
export interface FileAttachments {
  readonly blocks: readonly UserContent[];
  readonly notes: readonly string[];
}

/** True when `word` (what follows the `@`) names a file by the rule above. */
export function isPathMention(word: string): boolean {
  if (word === '' || /^[^/]*:/.test(word)) return false;
  return /^(?:\.\.?\/|\/|~\/)/.test(word) || /[/.]/.test(word);
}

/** Every `@path` in `text`, in order, each once. */
export function findPathMentions(text: string): string[] {
  const paths: string[] = [];
  for (const match of text.matchAll(/(?:^|\s)@(\S+)/g)) {
    const path = match[1]?.replace(/[.,;!?)]+$/, '') ?? '';
    // `@../` style words keep their dots: only strip when something remains that is a path.
    const word = isPathMention(path) ? path : (match[1] ?? '');
    if (isPathMention(word) && !paths.includes(word)) paths.push(word);
  }
  return paths;
}

/**
 * Reads every `@path` in `text`. Throws a ConfigError naming the first path that is missing,
 * unreadable, binary (not an image) or too large, so nothing is sent with a file left out.
 */
export async function attachFiles(text: string, places: AttachmentPlaces): Promise<FileAttachments> {
  const blocks: UserContent[] = [];
  const notes: string[] = [];
  for (const path of findPathMentions(text)) {
    const read = await readAttachment(path, places);
    blocks.push(...read.blocks);
    notes.push(`attached @${path} (${read.bytes} bytes)`);
  }
  return { blocks, notes };
}

/** The places of this process: its working folder and the user's home. */
export function processPlaces(): AttachmentPlaces {
  return { cwd: process.cwd(), home: homedir() };
}

async function readAttachment(
  path: string,
  places: AttachmentPlaces,
): Promise<{ blocks: UserContent[]; bytes: number }> {
  const where = `@${path}`;
  const file = resolvePath(path, places);
  let size: number;
  try {
    const info = await stat(file);
    if (info.isDirectory()) throw new ConfigError(where, 'is a folder, not a file');
    size = info.size;
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(where, reason(error), { cause: error });
  }
  if (size > IMAGE_ATTACHMENT_LIMIT) throw tooLarge(where, size, IMAGE_ATTACHMENT_LIMIT);
  let data: Buffer;
  try {
    data = await readFile(file);
  } catch (error) {
    throw new ConfigError(where, reason(error), { cause: error });
  }
  const mimeType = imageType(data);
  if (mimeType !== undefined) {
    const header = { type: 'text' as const, text: `${path} (${mimeType}, image follows)` };
    return {
      blocks: [header, { type: 'image', mimeType, data: data.toString('base64') }],
      bytes: data.length,
    };
  }
  if (data.length > TEXT_ATTACHMENT_LIMIT) throw tooLarge(where, data.length, TEXT_ATTACHMENT_LIMIT);
  const text = decodeText(data);
  if (text === undefined) {
    throw new ConfigError(where, 'is a binary file (only text and png, jpeg, gif or webp images attach)');
  }
  return { blocks: [{ type: 'text', text: fenced(path, text) }], bytes: data.length };
}

function resolvePath(path: string, places: AttachmentPlaces): string {
  if (path.startsWith('~/')) return resolve(places.home, path.slice(2));
  return isAbsolute(path) ? path : resolve(places.cwd, path);
}

/** The path, then the text in a fence longer than any run of backticks inside it. */
function fenced(path: string, text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${path}\n${fence}\n${text.endsWith('\n') ? text : `${text}\n`}${fence}`;
}

/** UTF-8 text without NUL bytes, or undefined for anything else. */
function decodeText(data: Buffer): string | undefined {
  if (data.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    return undefined;
  }
}

/** An image the vendors take, known by its first bytes (not its name). */
function imageType(data: Buffer): string | undefined {
  const starts = (bytes: readonly number[], at = 0): boolean =>
    bytes.every((byte, index) => data[at + index] === byte);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (
    data
      .subarray(0, 6)
      .toString('latin1')
      .match(/^GIF8[79]a$/)
  )
    return 'image/gif';
  if (
    data.subarray(0, 4).toString('latin1') === 'RIFF' &&
    data.subarray(8, 12).toString('latin1') === 'WEBP'
  ) {
    return 'image/webp';
  }
  return undefined;
}

function tooLarge(where: string, size: number, limit: number): ConfigError {
  return new ConfigError(where, `is too large to attach (${size} bytes; the limit is ${limit})`);
}

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'cannot be read (permission denied)';
  return `cannot be read (${error instanceof Error ? error.message : String(error)})`;
}
