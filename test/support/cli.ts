/** Runs the built CLI (`dist/bin/mcphost.js`) as a user would, with its own HOME. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));
export const CLI = join(REPOSITORY, 'dist/bin/mcphost.js');

/** Path of an installed MCP server's entry (run with `node`). */
export function npmServer(name: 'everything' | 'filesystem' | 'memory' | 'sequential-thinking'): string {
  return join(REPOSITORY, `node_modules/@modelcontextprotocol/server-${name}/dist/index.js`);
}

/** A config entry (`command` + `args`) that runs an installed MCP server from npm with `node`. */
export function npmServerConfig(
  name: Parameters<typeof npmServer>[0],
  ...args: string[]
): { command: string; args: string[] } {
  return { command: process.execPath, args: [npmServer(name), ...args] };
}

/** server-everything over stdio: the tests' general-purpose real server. */
export const EVERYTHING_SERVER = npmServerConfig('everything', 'stdio');

export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliRunOptions extends StartOptions {
  readonly stdin?: string;
}

/** A temporary HOME holding an optional `.mcp.json`. */
export interface TemporaryHome {
  readonly path: string;
  writeConfig(config: unknown, name?: string): Promise<string>;
  remove(): Promise<void>;
}

export async function temporaryHome(): Promise<TemporaryHome> {
  const path = await mkdtemp(join(tmpdir(), 'mcphost-home-'));
  return {
    path,
    async writeConfig(config, name = '.mcp.json') {
      const file = join(path, name);
      await writeFile(file, typeof config === 'string' ? config : JSON.stringify(config, null, 2));
      return file;
    },
    // A chat ended by closing its terminal saves its conversation on the way out (SIGHUP), and may
    // still be writing in this HOME as it is removed (ENOTEMPTY): rm then tries again.
    remove: () => rm(path, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }),
  };
}

export interface RunningCli {
  readonly child: ChildProcessWithoutNullStreams;
  /** Output so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout satisfies `test` (rejects if the process ends first). */
  waitForStdout(test: (stdout: string) => boolean): Promise<void>;
  /** Resolves when the process has ended. */
  readonly done: Promise<CliRun>;
}

export interface StartOptions {
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Program and leading arguments; default `node dist/bin/mcphost.js`. */
  readonly command?: readonly string[];
  readonly timeoutMs?: number;
}

/** Starts `mcphost ...args` with a HOME of its own; stdin stays open until the test ends it. */
export function startCli(args: readonly string[], home: string, options: StartOptions = {}): RunningCli {
  const [program = process.execPath, ...leading] = options.command ?? [process.execPath, CLI];
  const child = spawn(program, [...leading, ...args], {
    cwd: options.cwd ?? home,
    env: { PATH: process.env.PATH ?? '', HOME: home, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let waiters: Array<{ test: (text: string) => boolean; resolve: () => void }> = [];
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    const ready = waiters.filter((waiter) => waiter.test(stdout));
    waiters = waiters.filter((waiter) => !ready.includes(waiter));
    for (const waiter of ready) waiter.resolve();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<CliRun>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mcphost ${args.join(' ')} did not finish; stderr so far:\n${stderr}`));
    }, options.timeoutMs ?? 25_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    waitForStdout: (test) =>
      test(stdout)
        ? Promise.resolve()
        : Promise.race([
            new Promise<void>((resolve) => waiters.push({ test, resolve })),
            done.then((run) => {
              throw new Error(
                `mcphost ended (code ${run.code}) before the expected output; stderr:\n${run.stderr}`,
              );
            }),
          ]),
    done,
  };
}

/** Runs `mcphost ...args` to completion. HOME is required so no test reads the real ~/.mcp.json. */
export function runCli(args: readonly string[], home: string, options: CliRunOptions = {}): Promise<CliRun> {
  const running = startCli(args, home, options);
  running.child.stdin.end(options.stdin ?? '');
  return running.done;
}

export { isAlive } from './processes.js';
