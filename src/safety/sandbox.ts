/**
 * The sandbox of a stdio server or a `bash` command, on Linux through bubblewrap (`bwrap`): the
 * command line that runs a command inside one, or the reason it cannot.
 *
 * Inside, the process sees the whole file system read-only, except:
 *
 * - the folders named `writable` (for `bash`, its working folder by default), bound read-write;
 * - a private, empty `/tmp` (TMPDIR points there); the paths the command is started with (its
 *   program, its working folder, arguments that are existing absolute paths) stay visible there
 *   read-only with the whole top folder under `/tmp` holding each, so a server started from a
 *   project under `/tmp` still starts and finds its neighbouring files;
 * - hidden paths (the defaults of sandbox-settings.ts, and `hidden`): an empty, read-only folder
 *   in place of a folder, an unreadable file in place of a file;
 * - its own `/dev` and `/proc`, and its own pid namespace, so that it sees only its own
 *   processes and all of them die with it (`--die-with-parent`, `--unshare-pid`: when bwrap's
 *   first process ends, the kernel ends every process of the namespace);
 * - no network unless `network: true`: a network namespace with only its own loopback;
 * - no capabilities, even when mcphost runs as root (`--cap-drop ALL`: as root, bwrap keeps them
 *   unless told, and a process with CAP_SYS_ADMIN could remount the file system read-write).
 *
 * Why a plan is refused rather than loosened: a sandbox that was asked for and cannot be made, or
 * that hides what the command needs, must say so, never run the command without it.
 *
 * Written by hand rather than with a library: the npm packages that wrap bwrap are small, young
 * and build the same argument list; ours is checked against a real bwrap in the tests.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { mcphostFolder } from '../util/user-folders.js';
import { DEFAULT_HIDDEN_PATHS, type SandboxSettings } from './sandbox-settings.js';

/** What to run in a sandbox. */
export interface SandboxRequest {
  /** The program, as configured (a name looked up on the environment's PATH, or a path). */
  readonly command: string;
  readonly args: readonly string[];
  /** The absolute working folder. */
  readonly cwd: string;
  /** The child's environment: its PATH finds bwrap and the program, its HOME is `~`. */
  readonly env: Readonly<Record<string, string>>;
  readonly settings: SandboxSettings;
  /** Writable besides `settings.writable` (bash: its working folder). */
  readonly defaultWritable?: readonly string[];
}

/** The command line that runs the request in its sandbox, or why there is none. */
export type SandboxPlan =
  | { readonly kind: 'ready'; readonly command: string; readonly args: readonly string[] }
  | { readonly kind: 'refused'; readonly reason: string };

/** Said when bwrap is missing, with how to get it. */
export const BWRAP_MISSING =
  'bwrap (bubblewrap) is not on PATH: install it (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)';

/** The private /tmp every sandbox gets. */
const SANDBOX_TMP = '/tmp';

/** Finds a program as `execvp` would: a path as it is (from `cwd`), a name on `path`. */
export function findProgram(name: string, path: string | undefined, cwd: string): string | undefined {
  if (name.includes('/')) {
    const candidate = resolve(cwd, name);
    return isExecutableFile(candidate) ? candidate : undefined;
  }
  for (const folder of (path ?? '').split(delimiter)) {
    if (folder === '') continue;
    const candidate = join(folder, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Where bwrap is, or why no sandbox can be made on this machine with this PATH. */
function findBwrap(
  env: Readonly<Record<string, string | undefined>>,
): { readonly bwrap: string } | { readonly missing: string } {
  if (process.platform !== 'linux') {
    return {
      missing: `a sandbox needs Linux with bubblewrap; on ${process.platform} mcphost cannot make one`,
    };
  }
  const bwrap = findProgram('bwrap', env.PATH, process.cwd());
  return bwrap === undefined ? { missing: BWRAP_MISSING } : { bwrap };
}

/** Probe outcomes by bwrap path: a machine's answer does not change during a run. */
const probes = new Map<string, Promise<string | undefined>>();

/**
 * Why a sandbox cannot be made here (no Linux, no bwrap, or bwrap refuses: no user namespaces…),
 * or `undefined` when one can. Runs bwrap once with the flags every sandbox uses (about 5 ms).
 */
export function sandboxUnavailable(
  env: Readonly<Record<string, string | undefined>>,
): Promise<string | undefined> {
  const found = findBwrap(env);
  if ('missing' in found) return Promise.resolve(found.missing);
  const { bwrap } = found;
  let probe = probes.get(bwrap);
  if (probe === undefined) {
    probe = runProbe(bwrap);
    probes.set(bwrap, probe);
  }
  return probe;
}

function runProbe(bwrap: string): Promise<string | undefined> {
  const args = [
    ...isolationFlags(false),
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--',
    '/bin/sh',
    '-c',
    ':',
  ];
  return new Promise((resolvePromise) => {
    const child = spawn(bwrap, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', (error) => resolvePromise(`bwrap cannot be run: ${error.message}`));
    child.once('close', (code) => {
      if (code === 0) {
        resolvePromise(undefined);
        return;
      }
      const said = stderr.trim().split('\n')[0] ?? '';
      resolvePromise(
        `bwrap cannot make a sandbox here (exit code ${String(code)}${said === '' ? '' : `: ${said}`})`,
      );
    });
  });
}

/** Namespaces and privileges every sandbox gives up. */
function isolationFlags(network: boolean): string[] {
  return [
    '--die-with-parent',
    '--unshare-pid',
    '--unshare-ipc',
    ...(network ? [] : ['--unshare-net']),
    '--cap-drop',
    'ALL',
  ];
}

/** `~/x` from HOME, a relative path from `cwd`. */
function expandPath(path: string, home: string | undefined, cwd: string): string {
  if ((path === '~' || path.startsWith('~/')) && home !== undefined) return join(home, path.slice(1));
  return resolve(cwd, path);
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** True when `path` is `folder` or inside it. */
function within(path: string, folder: string): boolean {
  const rest = relative(folder, path);
  return rest === '' || (rest !== '..' && !rest.startsWith(`..${sep}`) && !isAbsolute(rest));
}

function depth(path: string): number {
  return path.split('/').length;
}

/** A path the command is started with, and what names it (for the error that says it is hidden). */
interface NeededPath {
  readonly path: string;
  readonly what: string;
}

/** The bwrap command line for a request, or why it cannot be made. */
export function planSandbox(request: SandboxRequest): SandboxPlan {
  const found = findBwrap(request.env);
  if ('missing' in found) return { kind: 'refused', reason: found.missing };
  const { env, settings } = request;
  const cwd = realPath(request.cwd);
  if (cwd === undefined)
    return { kind: 'refused', reason: `its working folder ${request.cwd} does not exist` };
  const program = findProgram(request.command, env.PATH, request.cwd);
  if (program === undefined) {
    return { kind: 'refused', reason: `no such command "${request.command}" (is it installed and on PATH?)` };
  }
  const expand = (path: string): string => expandPath(path, env.HOME, cwd);

  const writable: string[] = [];
  for (const given of [...(request.defaultWritable ?? []), ...(settings.writable ?? [])]) {
    const real = realPath(expand(given));
    if (real === undefined)
      return { kind: 'refused', reason: `sandbox.writable: ${expand(given)} does not exist` };
    writable.push(real);
  }
  const hidden = hiddenPaths(request, expand);
  const needed: NeededPath[] = [
    { path: realPath(program) ?? program, what: 'its program' },
    { path: cwd, what: 'its working folder' },
    ...request.args.flatMap((arg, index) => {
      const real = isAbsolute(arg) ? realPath(arg) : undefined;
      return real === undefined ? [] : [{ path: real, what: `argument ${index + 1}` }];
    }),
    ...writable.map((path) => ({ path, what: 'sandbox.writable' })),
  ];
  for (const { path, what } of needed) {
    const hider = hidden.find((folder) => within(path, folder));
    if (hider !== undefined) {
      const where = hider === path ? path : `${path}, inside ${hider}`;
      return { kind: 'refused', reason: `the sandbox hides ${where}, which ${what} names` };
    }
  }

  return {
    kind: 'ready',
    command: found.bwrap,
    args: [
      ...isolationFlags(settings.network === true),
      ...['--ro-bind', '/', '/', '--dev', '/dev', '--tmpfs', '/dev/shm', '--proc', '/proc'],
      ...['--tmpfs', SANDBOX_TMP],
      ...mountArgs(
        needed.map(({ path }) => path),
        writable,
        hidden,
      ),
      ...['--setenv', 'TMPDIR', SANDBOX_TMP, '--chdir', cwd],
      '--',
      program,
      ...request.args,
    ],
  };
}

/**
 * The paths to hide that exist (the defaults, mcphost's state folder, the configured ones), as
 * real paths, without those inside another: the outer one hides them already, and being read-only
 * it could not take a mount.
 */
function hiddenPaths(request: SandboxRequest, expand: (path: string) => string): string[] {
  const { env } = request;
  const given = [
    ...DEFAULT_HIDDEN_PATHS,
    ...(env.HOME === undefined ? [] : [mcphostFolder('state', env.HOME, env)]),
    ...(request.settings.hidden ?? []),
  ];
  const all = [...new Set(given.map((path) => realPath(expand(path))).filter((path) => path !== undefined))];
  return all.filter((path) => !all.some((other) => other !== path && within(path, other)));
}

/** `/tmp/a/b/c` → `/tmp/a`; `/tmp` itself stays. */
function topFolderUnderTmp(path: string): string {
  const [top] = relative(SANDBOX_TMP, path).split(sep);
  return top === undefined || top === '' ? path : join(SANDBOX_TMP, top);
}

/**
 * The mounts over the read-only root and the private /tmp: what the command is started with and
 * lies under /tmp, bound back read-only; the writable folders; then the hidden paths, last, so
 * that they win. Parents are mounted before what is inside them.
 */
function mountArgs(
  needed: readonly string[],
  writable: readonly string[],
  hidden: readonly string[],
): string[] {
  const readOnly = needed
    .filter((path) => within(path, SANDBOX_TMP) && !writable.some((folder) => within(path, folder)))
    // Its whole top folder under /tmp: a script there imports its neighbours (a project cloned
    // into /tmp, a package unpacked there), and outside /tmp all of that is readable anyway.
    .map(topFolderUnderTmp);
  const binds = [
    ...[...new Set(readOnly)].map((path) => ['--ro-bind', path] as const),
    ...[...new Set(writable)].map((path) => ['--bind', path] as const),
  ].sort((a, b) => depth(a[1]) - depth(b[1]));
  const bound = binds.map(([, path]) => path);
  const hides = hidden
    // Under the private /tmp, only what was bound back needs hiding.
    .filter((path) => !within(path, SANDBOX_TMP) || bound.some((folder) => within(path, folder)))
    .flatMap((path) =>
      statSync(path).isDirectory()
        ? ['--tmpfs', path, '--remount-ro', path]
        : // A device bound on a nodev mount cannot be opened: reading the file fails (EACCES).
          ['--ro-bind', '/dev/null', path],
    );
  return [...binds.flatMap(([flag, path]) => [flag, path, path]), ...hides];
}
