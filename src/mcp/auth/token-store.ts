/**
 * Where sign-ins are remembered: tokens, the client registration an authorization server gave us,
 * and when the tokens were obtained, keyed by the server's URL (not its name, so that renaming a
 * server in the config keeps its sign-in, and two configs naming one URL share it).
 *
 * State, not configuration: `$XDG_STATE_HOME/mcphost/oauth.json` (`~/.local/state/mcphost/…` by
 * default), mode 0600 in a 0700 folder, replaced atomically. A file that cannot be read or
 * understood counts as "signed in nowhere", which is the safe reading (the user signs in again).
 */
import { chmod, mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as z from 'zod';
import { writeFileAtomic } from '../../util/atomic-file.js';
import { mcphostFolder } from '../../util/user-folders.js';
import { withFileLock } from '../../util/file-lock.js';

/** Tokens as the authorization server sent them; unknown fields are kept as they were. */
const tokensSchema = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string(),
  refresh_token: z.string().optional(),
  expires_in: z.number().optional(),
  scope: z.string().optional(),
  issuer: z.string().optional(),
});

/** A client registration (RFC 7591 response, or a client ID metadata document URL). */
const clientSchema = z.looseObject({
  client_id: z.string().min(1),
  client_secret: z.string().optional(),
  issuer: z.string().optional(),
  redirect_uris: z.array(z.string()).optional(),
});

const entrySchema = z.object({
  tokens: tokensSchema.optional(),
  /** When the tokens were obtained (ms since the epoch): with `expires_in`, when they expire. */
  obtainedAt: z.number().optional(),
  /** The scope a server asked for (step-up) when no one could sign in: the next sign-in asks for it. */
  scope: z.string().optional(),
  /** A client we registered dynamically (a configured client id is never stored). */
  client: clientSchema.optional(),
});

const fileSchema = z.object({
  version: z.literal(1),
  servers: z.record(z.string(), entrySchema),
});

export type StoredTokens = z.infer<typeof tokensSchema>;
export type StoredClient = z.infer<typeof clientSchema>;
/** What is remembered for one server URL. */
export type SignInEntry = z.infer<typeof entrySchema>;

/** The default place of the store, from the environment (`XDG_STATE_HOME`) and the home folder. */
export function defaultSignInStorePath(
  homeDir: string,
  env: Readonly<Record<string, string | undefined>>,
): string {
  return join(mcphostFolder('state', homeDir, env), 'oauth.json');
}

/** The key of a server: its URL without a fragment, so `https://x/mcp` and `https://x/mcp#a` agree. */
export function serverKey(serverUrl: string | URL): string {
  const url = new URL(serverUrl);
  url.hash = '';
  return url.href;
}

/**
 * The sign-in store in one file. Updates within this process are serialised (a read-modify-write
 * each), and across processes they hold a lock (`oauth.json.lock`, proper-lockfile's atomic
 * `mkdir`): two mcphost processes saving tokens at once do not lose one another's.
 */
export class SignInStore {
  readonly file: string;
  #last: Promise<unknown> = Promise.resolve();

  constructor(file: string) {
    this.file = file;
  }

  /** What is remembered for a server URL (an empty entry when nothing is). */
  async get(serverUrl: string | URL): Promise<SignInEntry> {
    const content = await this.#read();
    return content.servers[serverKey(serverUrl)] ?? {};
  }

  /** Every server URL with something remembered. */
  async list(): Promise<ReadonlyMap<string, SignInEntry>> {
    return new Map(Object.entries((await this.#read()).servers));
  }

  /** Replaces a server's entry with what `change` makes of it; an empty result removes the entry. */
  update(serverUrl: string | URL, change: (entry: SignInEntry) => SignInEntry): Promise<void> {
    const key = serverKey(serverUrl);
    const next = this.#last.then(() =>
      this.#locked(async () => {
        // Read under the lock: another process may have written since our last read.
        const content = await this.#read();
        const updated = change(content.servers[key] ?? {});
        const isEmpty = Object.values(updated).every((value: unknown) => value === undefined);
        const servers = Object.fromEntries(
          Object.entries({ ...content.servers, [key]: updated }).filter(([name]) => name !== key || !isEmpty),
        );
        await this.#write({ version: 1, servers });
      }),
    );
    this.#last = next.catch(() => undefined);
    return next;
  }

  /** Forgets a server (tokens and registration). True when something was remembered. */
  async forget(serverUrl: string | URL): Promise<boolean> {
    const had = Object.keys(await this.get(serverUrl)).length > 0;
    await this.update(serverUrl, () => ({}));
    return had;
  }

  /** Runs `work` holding the store's lock across processes. */
  async #locked(work: () => Promise<void>): Promise<void> {
    await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
    await withFileLock(this.file, work);
  }

  async #read(): Promise<z.infer<typeof fileSchema>> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch {
      return { version: 1, servers: {} };
    }
    try {
      const parsed = fileSchema.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data;
    } catch {
      // Not JSON: treated as empty, as below.
    }
    return { version: 1, servers: {} };
  }

  async #write(content: z.infer<typeof fileSchema>): Promise<void> {
    await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.file, `${JSON.stringify(content, null, 2)}\n`);
    // writeFileAtomic keeps an existing file's mode; tokens are never readable by others.
    await chmod(this.file, 0o600);
  }
}
