/**
 * The `sandbox` setting of a stdio server entry and of the built-in `bash` server, as zod checks
 * it. Light on purpose (zod only): the config loader and the built-in options import it, while
 * the code that builds a sandbox (sandbox.ts) loads only when a server is started.
 */
import * as z from 'zod';

const pathList = z.array(z.string().min(1));

/** What a sandbox lets through. Every field is optional; `{}` is the strictest sandbox. */
export const sandboxSettingsSchema = z.strictObject({
  /**
   * Folders (or files) the sandboxed process may write. Everything else is read-only. `~/` is the
   * home folder; a relative path is from the server's working folder. Default: none for a server,
   * the working folder for `bash`.
   */
  writable: pathList.optional(),
  /** Paths it may not read at all, besides the default ones ({@link DEFAULT_HIDDEN_PATHS}). */
  hidden: pathList.optional(),
  /** True: the network is reachable. Default false: only a loopback of its own. */
  network: z.boolean().optional(),
});

/** A sandbox, as configured. */
export type SandboxSettings = z.infer<typeof sandboxSettingsSchema>;

/**
 * The key as users write it: an object, or `true` for the defaults, or `false` for none (the same
 * as leaving it out; `--sandbox` still turns it on).
 */
export const sandboxOptionSchema = z.preprocess(
  (value) => (value === true ? {} : value === false ? undefined : value),
  sandboxSettingsSchema.optional(),
);

/**
 * Hidden in every sandbox (when they exist): where keys and tokens usually live, the sockets of
 * agents and container engines (a socket on a read-only file system still connects), and
 * mcphost's own state folder (sign-in tokens, conversations, trust). `~/` is the home folder.
 */
export const DEFAULT_HIDDEN_PATHS: readonly string[] = [
  '~/.ssh',
  '~/.gnupg',
  '~/.aws',
  '~/.azure',
  '~/.config/gcloud',
  '~/.kube',
  '~/.docker',
  '~/.netrc',
  '~/.git-credentials',
  '~/.config/gh',
  '~/.npmrc',
  '~/.pypirc',
  '/run/user',
  '/run/docker.sock',
  '/run/containerd',
  '/run/podman',
];
