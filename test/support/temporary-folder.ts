/** A fresh temporary folder for each test of a file, removed after it. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';

/** Registers the hooks; read `.path` inside a test (it changes from one test to the next). */
export function useTemporaryFolder(prefix: string): { readonly path: string } {
  let current: string | undefined;
  beforeEach(async () => {
    current = await mkdtemp(join(tmpdir(), prefix));
  });
  afterEach(async () => {
    if (current !== undefined) await rm(current, { recursive: true, force: true });
    current = undefined;
  });
  return {
    get path(): string {
      if (current === undefined) throw new Error('the temporary folder exists only inside a test');
      return current;
    },
  };
}
