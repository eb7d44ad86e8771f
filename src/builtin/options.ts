/**
 * The built-in servers and their options: one zod schema per server, so that the config file, the
 * `--builtin` flag and the library all check options the same way. This module is light (zod
 * only): the servers themselves, and the server SDK, are loaded when one is started.
 */
import * as z from 'zod';
import { sandboxOptionSchema } from '../safety/sandbox-settings.js';
import type { BuiltinServerName } from './names.js';

export { BUILTIN_SERVER_NAMES, builtinServerNamed, type BuiltinServerName } from './names.js';

const positiveInteger = z.number().int().positive();
const pathList = z.array(z.string().min(1)).min(1);

/** `fs`: files, confined to the allowed directories. */
export const fsOptionsSchema = z
  .strictObject({
    /** Directories the tools may reach (default: the current folder). Relative ones are from it. */
    allowedDirectories: pathList.optional(),
    /** The Go mcphost's spelling of `allowedDirectories`. */
    allowed_directories: pathList.optional(),
    /** The most bytes `read_file` returns; the rest is cut with a note. Default 256 KiB. */
    maxReadBytes: positiveInteger.optional(),
  })
  .refine(
    (options) => options.allowedDirectories === undefined || options.allowed_directories === undefined,
    {
      error: 'give "allowedDirectories" or "allowed_directories", not both',
    },
  )
  .transform(({ allowedDirectories, allowed_directories, ...rest }) => ({
    ...rest,
    ...((allowedDirectories ?? allowed_directories) === undefined
      ? {}
      : { allowedDirectories: allowedDirectories ?? allowed_directories }),
  }));

/** `bash`: shell commands, each in its own process group. */
export const bashOptionsSchema = z.strictObject({
  /** A command still running after this long is ended with its whole process group. Default 2 minutes. */
  timeoutMs: positiveInteger.optional(),
  /** The most output (stdout and stderr together) kept, in bytes. Default 30,000. */
  maxOutputBytes: positiveInteger.optional(),
  /** Where commands run. Default: the current folder. */
  cwd: z.string().min(1).optional(),
  /** Ask the user before every command (an approval rule of its own). Default true. */
  requireApproval: z.boolean().optional(),
  /**
   * Run every command in a sandbox (docs/safety.md): `{ writable, hidden, network }`, or `true`
   * for the defaults (the working folder writable, no network). Default: none, unless `--sandbox`.
   */
  sandbox: sandboxOptionSchema,
});

/** `todo`: a list the model keeps for the session. No options. */
export const todoOptionsSchema = z.strictObject({});

/** `fetch`: HTTP GET, HTML turned into Markdown. */
export const fetchOptionsSchema = z.strictObject({
  /** The whole fetch (every redirect and the body) must end within this. Default 30 s. */
  timeoutMs: positiveInteger.optional(),
  /** The most bytes of a body read (after decompression); the rest is cut. Default 5 MB. */
  maxBytes: positiveInteger.optional(),
  /** Redirects followed before giving up. Default 5. */
  maxRedirects: z.number().int().min(0).optional(),
  /** Reach loopback, private, link-local and other non-public addresses. Default false. */
  allowPrivateNetworks: z.boolean().optional(),
  /** Addresses or CIDR ranges reachable even though they are not public (`"10.1.0.0/16"`). */
  allowedAddresses: z.array(z.string().min(1)).optional(),
});

export type FsOptions = z.infer<typeof fsOptionsSchema>;
export type BashOptions = z.infer<typeof bashOptionsSchema>;
export type TodoOptions = z.infer<typeof todoOptionsSchema>;
export type FetchOptions = z.infer<typeof fetchOptionsSchema>;

/** One built-in server with its checked options. */
export type BuiltinServerSettings =
  | { readonly name: 'fs'; readonly options: FsOptions }
  | { readonly name: 'bash'; readonly options: BashOptions }
  | { readonly name: 'todo'; readonly options: TodoOptions }
  | { readonly name: 'fetch'; readonly options: FetchOptions };

/** Checks a built-in server's options: settings, or zod's error (paths relative to the options). */
export function parseBuiltinOptions(
  name: BuiltinServerName,
  options: unknown,
):
  | { readonly ok: true; readonly settings: BuiltinServerSettings }
  | { readonly ok: false; readonly error: z.ZodError } {
  const given = options ?? {};
  switch (name) {
    case 'fs': {
      const result = fsOptionsSchema.safeParse(given, { reportInput: true });
      return result.success
        ? { ok: true, settings: { name, options: result.data } }
        : { ok: false, error: result.error };
    }
    case 'bash': {
      const result = bashOptionsSchema.safeParse(given, { reportInput: true });
      return result.success
        ? { ok: true, settings: { name, options: result.data } }
        : { ok: false, error: result.error };
    }
    case 'todo': {
      const result = todoOptionsSchema.safeParse(given, { reportInput: true });
      return result.success
        ? { ok: true, settings: { name, options: result.data } }
        : { ok: false, error: result.error };
    }
    case 'fetch': {
      const result = fetchOptionsSchema.safeParse(given, { reportInput: true });
      return result.success
        ? { ok: true, settings: { name, options: result.data } }
        : { ok: false, error: result.error };
    }
    default: {
      const unexpected: never = name;
      return unexpected;
    }
  }
}

/** Whether calls to this server need the user's yes by default (bash, unless turned off). */
export function requiresApproval(settings: BuiltinServerSettings): boolean {
  return settings.name === 'bash' && settings.options.requireApproval !== false;
}
