/**
 * The `fs` built-in server: read, write, edit (exact-match replacement), list, search and describe
 * files, every path confined to the allowed directories by its real path (see allowed-paths.ts).
 */
import { lstat, mkdir, open, readdir, readlink, stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { CallToolResult, McpServer } from '@modelcontextprotocol/server';
import { glob } from 'tinyglobby';
import * as z from 'zod';
import { writeFileAtomic, type AtomicWriteOptions } from '../util/atomic-file.js';
import { AllowedPaths } from './allowed-paths.js';
import type { FileAccess } from './host.js';
import type { FsOptions } from './options.js';
import { describeThrown, errorResult, textResult } from './tool-result.js';

/** What `read_file` returns at most, unless configured. */
export const DEFAULT_MAX_READ_BYTES = 256 * 1024;
/** Files listed by one `search_files`, at most. */
const MAX_SEARCH_RESULTS = 200;
/** Files larger than this are skipped by a content search. */
const MAX_SEARCHED_FILE_BYTES = 1024 * 1024;
/** A NUL byte in this much of the start marks a file as binary. */
const BINARY_SNIFF_BYTES = 8192;

/** The model writes the user's files: they get the umask's permissions, not mcphost's private ones. */
const USER_FILE: AtomicWriteOptions = { newFile: 'umask' };

/** Where the server runs: its options, and the folder relative paths start from. */
export interface FsServerContext {
  readonly options: FsOptions;
  /** The default allowed directory, and the base of relative ones. */
  readonly cwd: string;
  /**
   * Where `read_file`, `write_file` and `edit_file` read and write text (an editor's buffers).
   * Absent: the disk. Paths are checked against the allowed directories first either way.
   */
  readonly files?: FileAccess;
}

const pathArgument = z
  .string()
  .min(1)
  .describe('A path: absolute, or relative to the first allowed directory');

/** Registers the `fs` tools on `server`. Fails when an allowed directory does not exist. */
export async function registerFsTools(server: McpServer, context: FsServerContext): Promise<void> {
  const allowed = await AllowedPaths.of(context.options.allowedDirectories ?? [context.cwd], context.cwd);
  const maxReadBytes = context.options.maxReadBytes ?? DEFAULT_MAX_READ_BYTES;
  const { files } = context;
  const readFor = (path: string, maxBytes: number): Promise<ReadText> =>
    files === undefined ? readText(path, maxBytes) : readThrough(files, path, maxBytes);
  // Every tool resolves its path first; a path outside is answered with the reason, not run.
  const withPath =
    <Args extends { path?: string | undefined }>(
      run: (path: string, args: Args) => Promise<CallToolResult>,
    ) =>
    async (args: Args): Promise<CallToolResult> => {
      const resolved = await allowed.resolve(args.path ?? '.');
      if ('error' in resolved) return errorResult(resolved.error);
      try {
        return await run(resolved.path, args);
      } catch (error) {
        return errorResult(describeThrown(error));
      }
    };

  server.registerTool(
    'read_file',
    {
      description: `Read a text file. Long files are cut at ${maxReadBytes} bytes; use offset/limit (lines) for a part.`,
      inputSchema: z.object({
        path: pathArgument,
        offset: z.number().int().min(1).optional().describe('First line to return (1-based)'),
        limit: z.number().int().min(1).optional().describe('How many lines to return'),
      }),
      annotations: { readOnlyHint: true },
    },
    withPath(async (path, { offset, limit }) => {
      const { text, size, cut } = await readFor(path, maxReadBytes);
      if (text === undefined) return errorResult(`${path} is a binary file (${size} bytes)`);
      if (offset === undefined && limit === undefined) {
        return textResult(
          cut ? `${text}\n[cut: the file has ${size} bytes; read on with offset/limit]` : text,
        );
      }
      const lines = text.split('\n');
      const first = (offset ?? 1) - 1;
      return textResult(lines.slice(first, limit === undefined ? undefined : first + limit).join('\n'));
    }),
  );

  server.registerTool(
    'write_file',
    {
      description: 'Create or replace a file with the given text (parent folders are created).',
      inputSchema: z.object({ path: pathArgument, content: z.string() }),
      annotations: { destructiveHint: true },
    },
    withPath(async (path, { content }) => {
      await mkdir(dirname(path), { recursive: true });
      if (files === undefined) await writeFileAtomic(path, content, USER_FILE);
      else await files.writeText(path, content);
      return textResult(`wrote ${Buffer.byteLength(content)} bytes to ${path}`);
    }),
  );

  server.registerTool(
    'edit_file',
    {
      description:
        'Replace exact text in a file. old_text must occur exactly once (or set replace_all); whitespace counts.',
      inputSchema: z.object({
        path: pathArgument,
        old_text: z.string().min(1).describe('The exact text to replace'),
        new_text: z.string().describe('What replaces it'),
        replace_all: z.boolean().optional().describe('Replace every occurrence'),
      }),
      annotations: { destructiveHint: true },
    },
    withPath(async (path, args) => {
      const { text } = await readFor(path, Number.MAX_SAFE_INTEGER);
      if (text === undefined) return errorResult(`${path} is a binary file`);
      const count = text.split(args.old_text).length - 1;
      if (count === 0) return errorResult(`old_text was not found in ${path} (it must match exactly)`);
      if (count > 1 && args.replace_all !== true) {
        return errorResult(
          `old_text occurs ${count} times in ${path}: add context to make it unique, or set replace_all`,
        );
      }
      // split/join, not String.replace: `$&` and friends in new_text are the model's text, not patterns.
      const edited = text.split(args.old_text).join(args.new_text);
      if (files === undefined) await writeFileAtomic(path, edited, USER_FILE);
      else await files.writeText(path, edited, text);
      return textResult(`replaced ${count} ${count === 1 ? 'occurrence' : 'occurrences'} in ${path}`);
    }),
  );

  server.registerTool(
    'list_directory',
    {
      description: 'List a folder: one entry a line, marked [dir], [file] (with its size) or [link].',
      inputSchema: z.object({ path: pathArgument.optional() }),
      annotations: { readOnlyHint: true },
    },
    withPath(async (path) => {
      const entries = await readdir(path, { withFileTypes: true });
      entries.sort((a, b) => a.name.localeCompare(b.name));
      const lines = await Promise.all(
        entries.map((entry) => describeEntry(join(path, entry.name), entry.name)),
      );
      return textResult(lines.length === 0 ? `${path} is empty` : lines.join('\n'));
    }),
  );

  server.registerTool(
    'search_files',
    {
      description: `Find files by glob pattern (e.g. "**/*.ts") under a folder, optionally only those whose text contains a string (matching lines are shown). At most ${MAX_SEARCH_RESULTS} results.`,
      inputSchema: z.object({
        pattern: z.string().min(1).describe('Glob pattern, relative to path'),
        path: pathArgument.optional().describe('Folder to search (default: the first allowed directory)'),
        contains: z.string().min(1).optional().describe('Only files containing this text'),
      }),
      annotations: { readOnlyHint: true },
    },
    withPath(async (path, { pattern, contains }) => {
      if (pattern.split(/[/\\]/).includes('..')) return errorResult('the pattern may not contain ".."');
      const found = await glob(pattern, {
        cwd: path,
        onlyFiles: true,
        followSymbolicLinks: false,
        dot: false,
      });
      found.sort();
      const lines: string[] = [];
      for (const name of found) {
        if (lines.length >= MAX_SEARCH_RESULTS) break;
        const real = await allowed.resolve(join(path, name));
        if ('error' in real) continue;
        if (contains === undefined) {
          lines.push(relative(path, join(path, name)));
          continue;
        }
        const matches = await matchingLines(real.path, contains);
        for (const match of matches) lines.push(`${name}:${match.line}: ${match.text}`);
      }
      const more = lines.length >= MAX_SEARCH_RESULTS ? `\n[stopped at ${MAX_SEARCH_RESULTS} results]` : '';
      return textResult(
        lines.length === 0 ? 'no matches' : `${lines.slice(0, MAX_SEARCH_RESULTS).join('\n')}${more}`,
      );
    }),
  );

  server.registerTool(
    'get_file_info',
    {
      description: 'Size, type, permissions and times of a file or folder.',
      inputSchema: z.object({ path: pathArgument }),
      annotations: { readOnlyHint: true },
    },
    withPath(async (path) => {
      const info = await stat(path);
      return textResult(
        [
          `path: ${path}`,
          `type: ${info.isDirectory() ? 'directory' : info.isFile() ? 'file' : 'other'}`,
          `size: ${info.size}`,
          `permissions: ${(info.mode & 0o777).toString(8)}`,
          `modified: ${info.mtime.toISOString()}`,
          `created: ${info.birthtime.toISOString()}`,
        ].join('\n'),
      );
    }),
  );

  server.registerTool(
    'list_allowed_directories',
    {
      description: 'The folders this server may read and write.',
      inputSchema: z.object({}),
      annotations: { readOnlyHint: true },
    },
    () => Promise.resolve(textResult(allowed.directories.join('\n'))),
  );
}

/** A read's text (undefined for a binary file), the file's full size in bytes, and whether it was cut. */
interface ReadText {
  readonly text: string | undefined;
  readonly size: number;
  readonly cut: boolean;
}

/** Reads at most `maxBytes` from the disk. */
async function readText(path: string, maxBytes: number): Promise<ReadText> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, maxBytes);
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    const bytes = buffer.subarray(0, bytesRead);
    if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return { text: undefined, size, cut: false };
    return { text: bytes.toString('utf8'), size, cut: size > bytesRead };
  } finally {
    await handle.close();
  }
}

/** Reads through the host (an editor's buffer, which may differ from the disk), cut as a disk read is. */
async function readThrough(files: FileAccess, path: string, maxBytes: number): Promise<ReadText> {
  const whole = Buffer.from(await files.readText(path), 'utf8');
  if (whole.subarray(0, BINARY_SNIFF_BYTES).includes(0))
    return { text: undefined, size: whole.length, cut: false };
  if (whole.length <= maxBytes) return { text: whole.toString('utf8'), size: whole.length, cut: false };
  return { text: whole.subarray(0, maxBytes).toString('utf8'), size: whole.length, cut: true };
}

async function describeEntry(path: string, name: string): Promise<string> {
  const info = await lstat(path);
  if (info.isSymbolicLink()) return `[link] ${name} -> ${await readlink(path)}`;
  if (info.isDirectory()) return `[dir]  ${name}`;
  return `[file] ${name} (${info.size} bytes)`;
}

async function matchingLines(path: string, needle: string): Promise<Array<{ line: number; text: string }>> {
  const { text, size } = await readText(path, MAX_SEARCHED_FILE_BYTES);
  if (text === undefined || size > MAX_SEARCHED_FILE_BYTES) return [];
  return text
    .split('\n')
    .map((line, index) => ({ line: index + 1, text: line }))
    .filter((line) => line.text.includes(needle))
    .map((line) => ({ ...line, text: line.text.length > 200 ? `${line.text.slice(0, 200)}…` : line.text }));
}
