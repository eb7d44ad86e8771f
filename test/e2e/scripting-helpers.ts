/**
 * Running the built CLI where `runCli` is not enough: a stdin left open, a signal sent mid-run,
 * a script file executed through its shebang.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { CLI, type CliRun } from '../support/cli.js';

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

/** Every line of stdout, parsed as JSON. */
export function jsonLines<T>(stdout: string): T[] {
  return stdout
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as T);
}
