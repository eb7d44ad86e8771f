/**
 * `mcphost batch`'s lock on its results file, with real processes of the built CLI: a second run
 * on a file in use fails at once (one line naming the file and the run holding it, exit 2, nothing
 * run or written), and the lock a `kill -9`ed run leaves behind does not stop the next run.
 */
import { access, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textReply, type FakeChatRequest, type FakeOllamaReply } from '../fakes/ollama-server.js';
import { runCli, startCli } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';
import { unwrapped } from '../support/untrusted.js';

const fixture = useCliFixture();

function promptOf(request: FakeChatRequest): string {
  const user = request.messages.filter((message) => message.role === 'user').at(-1);
  return unwrapped(user?.content ?? '');
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

async function waitFor(test: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let tries = 0; tries < 400; tries++) {
    if (await test()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A fake model that holds every answer until `release()`. */
async function heldModel() {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const model = await fixture.startModel([], {
    fallback: async (request): Promise<FakeOllamaReply> => {
      await released;
      return textReply(`answer to ${promptOf(request)}`);
    },
  });
  return { model, release };
}

async function jobsFile(count: number): Promise<{ jobs: string; out: string }> {
  const folder = await fixture.temporaryFolder('mcphost-batch-lock-');
  const jobs = join(folder, 'jobs.jsonl');
  await writeFile(jobs, `${Array.from({ length: count }, (_, index) => `job ${index + 1}`).join('\n')}\n`);
  return { jobs, out: join(folder, 'results.jsonl') };
}

describe('mcphost batch: the results file is locked for the run', () => {
  it('a second run on the same --out fails at once, naming the file and the run that holds it', async () => {
    const { jobs, out } = await jobsFile(3);
    const { model, release } = await heldModel();
    const args = ['batch', jobs, '--out', out, '-m', 'ollama:mistral-small', '--provider-url', model.url];
    const first = startCli(args, fixture.home.path);
    first.child.stdin.end();
    await waitFor(() => model.chatRequests.length === 3, 'the first run to ask for its three jobs');

    const second = await runCli(args, fixture.home.path);
    expect(second.code).toBe(2);
    const lines = second.stderr.trim().split('\n');
    expect(lines, second.stderr).toHaveLength(1);
    expect(lines[0]).toContain(`--out ${out}: in use by another mcphost batch (pid ${first.child.pid},`);
    // It asked the model nothing more.
    expect(model.chatRequests).toHaveLength(3);

    release();
    const done = await first.done;
    expect(done.code, done.stderr).toBe(0);
    const results = (await readFile(out, 'utf8')).trim().split('\n');
    expect(results).toHaveLength(3);
    // Released at the end: the lock and its owner file are gone, and a third run goes ahead.
    expect(await exists(`${out}.lock`)).toBe(false);
    expect(await exists(`${out}.lock.owner`)).toBe(false);
    const third = await runCli(args, fixture.home.path);
    expect(third.code, third.stderr).toBe(0);
    expect(third.stderr).toContain('3 jobs already in');
  });

  it('the lock a kill -9 left behind does not stop the next run', async () => {
    const { jobs, out } = await jobsFile(2);
    const { model, release } = await heldModel();
    const args = ['batch', jobs, '--out', out, '-m', 'ollama:mistral-small', '--provider-url', model.url];
    const first = startCli(args, fixture.home.path);
    first.child.stdin.end();
    await waitFor(() => model.chatRequests.length === 2, 'the first run to ask for its jobs');
    first.child.kill('SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');
    // Nothing released it: the lock is still there, fresh (well within the library's stale time).
    expect(await exists(`${out}.lock`)).toBe(true);
    expect(JSON.parse(await readFile(`${out}.lock.owner`, 'utf8'))).toMatchObject({ pid: first.child.pid });

    release();
    const second = await runCli(args, fixture.home.path);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toContain('in use');
    expect((await readFile(out, 'utf8')).trim().split('\n')).toHaveLength(2);
    expect(await exists(`${out}.lock`)).toBe(false);
  });
});
