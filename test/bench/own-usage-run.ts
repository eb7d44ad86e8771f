/**
 * One run of `node …args` measured from inside (test/bench/peak-rss.mjs writes the process's own
 * CPU time at exit): CPU in ms, the process alone, and wall time in ms from the spawn to its close.
 */
import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { TemporaryHome } from '../support/cli.js';
import { REPOSITORY } from '../support/cli.js';

const OWN_USAGE_PRELOAD = join(REPOSITORY, 'test/bench/peak-rss.mjs');

export interface OwnUsageRun {
  readonly home: TemporaryHome;
  /** Node's arguments after the preload: a script and its own arguments. */
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** A run whose stderr says something went wrong although it exited 0 (a telemetry warning). */
  readonly failsOn?: (stderr: string) => boolean;
}

export function ownUsageRun(run: OwnUsageRun): Promise<{ cpu: number; wall: number }> {
  const file = join(run.home.path, 'own-usage.json');
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', OWN_USAGE_PRELOAD, ...run.args], {
      env: { PATH: process.env.PATH, HOME: run.home.path, PEAK_RSS_FILE: file, ...run.env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const wall = performance.now() - started;
      if (code !== 0 || run.failsOn?.(stderr) === true) {
        reject(new Error(`${run.args.join(' ')} exited ${code}: ${stderr}`));
        return;
      }
      readFile(file, 'utf8')
        .then(async (text) => {
          await rm(file);
          resolve({ cpu: (JSON.parse(text) as { cpu: number }).cpu / 1000, wall });
        })
        .catch(reject);
    });
  });
}
