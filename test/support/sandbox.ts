/**
 * For the sandbox tests: they need a bwrap that can make a sandbox on this machine (`.ci/run`
 * installs bubblewrap). Where it cannot, they fail at once saying why, instead of passing
 * without having tested anything.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll } from 'vitest';
import { sandboxUnavailable } from '../../src/safety/sandbox.js';

/** Fails every test of the file, with bwrap's reason, when no sandbox can be made here. */
export function requireSandboxSupport(): void {
  beforeAll(async () => {
    const reason = await sandboxUnavailable(process.env);
    if (reason !== undefined) {
      throw new Error(`the sandbox tests need a working bubblewrap (apt-get install bubblewrap): ${reason}`);
    }
  });
}

/**
 * A throw-away folder outside /tmp: inside a sandbox /tmp is private, so a HOME under it would be
 * hidden whatever the settings say, and a test of "this file is hidden" would pass for the
 * wrong reason. /var/tmp is the system's other temporary folder.
 */
export async function folderOutsideTmp(
  prefix: string,
): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join('/var/tmp', prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}
