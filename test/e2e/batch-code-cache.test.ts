/**
 * `mcphost batch` lets V8's young generation grow while its jobs run and sets the executable's
 * flag back after them (src/cli/batch/batch-command.ts): without setting it back, the code cache
 * written at exit was made under other flags, V8 refused it on every later batch, and each run
 * compiled and wrote it again. On Node < 22.1 only (the executable's own cache; Node's own is used
 * from 22.1).
 */
import { writeFile } from 'node:fs/promises';
import * as nodeModule from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textReply } from '../fakes/ollama-server.js';
import { runCli } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';

const nodeHasCompileCache =
  typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function';

describe.skipIf(nodeHasCompileCache)('mcphost batch and the code cache', () => {
  const fixture = useCliFixture();

  it('a second batch uses the cache the first wrote', async () => {
    const folder = await fixture.temporaryFolder('mcphost-batch-cache-');
    const jobs = join(folder, 'jobs.jsonl');
    await writeFile(jobs, 'Say hello\nSay goodbye\n');
    const model = await fixture.startModel([], { fallback: textReply('done') });
    const run = (out: string) =>
      runCli(
        [
          'batch',
          jobs,
          '--out',
          join(folder, out),
          '-m',
          'ollama:mistral-small',
          '--provider-url',
          model.url,
        ],
        fixture.home.path,
        { env: { NODE_DEBUG: 'mcphost' } },
      );
    const first = await run('first.jsonl');
    const second = await run('second.jsonl');
    expect(first.code, first.stderr).toBe(0);
    expect(second.code, second.stderr).toBe(0);
    expect(first.stderr).toMatch(/code cache: missing, written .*\/code-cache\/batch-/);
    expect(second.stderr).toMatch(/code cache: used .*\/code-cache\/batch-/);
  });
});
