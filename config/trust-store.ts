/**
 * Which project config files the user has trusted, remembered by absolute path and content hash:
 * a file that changes after it was trusted (a `git pull` that adds a server) is untrusted again.
 *
 * Kept in `$XDG_STATE_HOME/mcphost/trusted-configs.json` (`~/.local/state/mcphost/…` by default) —
 * state, not configuration: it is written by mcphost, not by the user. Written atomically (a
 * temporary file renamed over the old one), so a crash never leaves half a file; a file that cannot
 * be read or understood counts as "nothing trusted", which is the safe reading.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import * as z from 'zod';
import { writeFileAtomic } from '../src/util/atomic-file.js';
import type { ConfigEnvironment } from './parse.js';
import { mcphostFolder } from '../src/util/user-folders.js';

/** Remembers trusted project config files. */
export interface TrustStore {
  /** True when this exact content at this path was trusted. */
  isTrusted(path: string, sha256: string): Promise<boolean>;
  /** Remembers the content at this path as trusted (replacing an older version's entry). */
  trust(path: string, sha256: string): Promise<void>;
}

const storeSchema = z.object({
  version: z.literal(1),
  trusted: z.array(z.object({ path: z.string(), sha256: z.string(), trustedAt: z.string() })),
});

type StoreContent = z.infer<typeof storeSchema>;

/** The SHA-256 of a config file's text, as hex. */
export function hashConfigText(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Where the trust store lives for a user. */
export function defaultTrustStorePath(homeDir: string, env: ConfigEnvironment): string {
  return join(mcphostFolder('state', homeDir, env), 'trusted-configs.json');
}

async function readStore(file: string): Promise<StoreContent> {
  try {
    const parsed = storeSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
    if (parsed.success) return parsed.data;
  } catch {
    // Missing or unreadable: nothing is trusted.
  }
  return { version: 1, trusted: [] };
}

/** Writes `text` to `file` (creating its folder) so that readers see the old or the new content. */
async function writeFileAtomically(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, text);
}

/** A trust store kept in `file`. */
export function fileTrustStore(file: string, now: () => number = Date.now): TrustStore {
  return {
    async isTrusted(path, sha256) {
      const store = await readStore(file);
      const absolute = resolve(path);
      return store.trusted.some((entry) => entry.path === absolute && entry.sha256 === sha256);
    },
    async trust(path, sha256) {
      // Read again right before writing: another mcphost may have trusted something meanwhile.
      const store = await readStore(file);
      const absolute = resolve(path);
      const trusted = [
        ...store.trusted.filter((entry) => entry.path !== absolute),
        { path: absolute, sha256, trustedAt: new Date(now()).toISOString() },
      ];
      await writeFileAtomically(file, `${JSON.stringify({ version: 1, trusted }, null, 2)}\n`);
    },
  };
}
