/**
 * Conversations saved by default in the state folder, one folder per working folder, and found
 * again with `--continue` and `--resume [ID]`; `--no-session-persistence` saves nothing.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { errorReply, textReply } from '../fakes/ollama-server.js';
import { runCli } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';
import { UNTRUSTED_CONTENT_CLAUSE } from '../../src/safety/untrusted-content.js';

const fixture = useCliFixture({ config: { mcpServers: {} } });
let project: string;

beforeEach(async () => {
  project = join(fixture.home.path, 'project');
  await mkdir(project);
  await fixture.startModel([], { fallback: textReply('an answer') });
});

const saved = (folder: string) =>
  join(fixture.home.path, '.local/state/mcphost/sessions', resolve(folder).replace(/[^A-Za-z0-9._-]/g, '-'));

function run(args: string[], cwd = project) {
  return runCli([...args, '--provider-url', fixture.model.url], fixture.home.path, { cwd });
}

describe('saved conversations', () => {
  it('saves every -p run in the state folder of its working folder, and -c continues the latest', async () => {
    expect((await run(['-p', 'first question'])).code).toBe(0);
    const files = await readdir(saved(project));
    expect(files).toHaveLength(1);

    const continued = await run(['-c', '-p', 'second question']);
    expect(continued.code).toBe(0);
    const id = files[0]?.replace(/\.jsonl?$/, '') ?? '';
    expect(continued.stderr).toContain(
      `continuing ${id}: 2 messages\n  you: first question\n  model: an answer`,
    );
    // The model got the whole conversation, and it went on in the same file.
    const last = fixture.model.chatRequests
      .at(-1)
      ?.messages.map((message) => [message.role, message.content]);
    expect(last).toEqual([
      ['system', UNTRUSTED_CONTENT_CLAUSE],
      ['user', 'first question'],
      ['assistant', 'an answer'],
      ['user', 'second question'],
    ]);
    expect(await readdir(saved(project))).toEqual(files);

    // Another folder has no conversations of its own.
    const elsewhere = await run(['-c', '-p', 'x'], fixture.home.path);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toBe(`mcphost: --continue: no saved conversation for ${fixture.home.path}\n`);
  });

  it('--resume lists the conversations when not on a terminal, and takes an ID or its start', async () => {
    await run(['-p', 'about cats']);
    await run(['-p', 'about dogs']);
    const [older, newer] = (await readdir(saved(project))).sort();
    const listing = await run(['--resume', '-p', 'x']);
    expect(listing.code).toBe(2);
    expect(listing.stderr).toMatch(/--resume: give the ID of one of these \(mcphost --resume ID\):\n/);
    expect(listing.stderr).toMatch(/\n {3}1\. \d{4}-\d\d-\d\d \d\d:\d\d +2 messages, \d+ B +about dogs\n/);
    expect(listing.stderr).toMatch(/\n {3}2\. .*about cats\n/);

    const id = older?.replace(/\.jsonl?$/, '') ?? '';
    const resumed = await run(['--resume', id.slice(0, -2), '-p', 'more']);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(`continuing ${id}: 2 messages\n  you: about cats`);
    expect(newer).toBeDefined();
    const unknown = await run(['--resume', 'nope', '-p', 'x']);
    expect(unknown.stderr).toBe(
      'mcphost: --resume: no saved conversation "nope" in this folder (mcphost --resume lists them)\n',
    );
  });

  it('a run that fails before any answer is not kept; the list previews the first line of each', async () => {
    await fixture.closeModel();
    await fixture.startModel([errorReply(400, 'invalid request')], { fallback: textReply('an answer') });
    const failed = await run(['-p', 'this one fails']);
    expect(failed.code).toBe(3);
    // The folder may exist (it is made before the run); no conversation is in it.
    expect(await readdir(saved(project)).catch(() => [])).toEqual([]);

    expect((await run(['-p', 'about birds\nwith a second line\nand a third'])).code).toBe(0);
    expect(await readdir(saved(project))).toHaveLength(1);
    const listing = await run(['--resume', '-p', 'x']);
    expect(listing.stderr).toMatch(/\n {3}1\. .*2 messages, \d+ B +about birds\n/);
    expect(listing.stderr).not.toContain('second line');
    expect(listing.stderr).not.toContain('this one fails');
  });

  it('--no-session-persistence saves nothing, and -s still names a file', async () => {
    expect((await run(['--no-session-persistence', '-p', 'secret'])).code).toBe(0);
    await expect(readdir(saved(project))).rejects.toThrow(/ENOENT/);
    expect((await run(['-s', 'mine.json', '-p', 'kept'])).code).toBe(0);
    expect(await readdir(project)).toEqual(['mine.json']);
    await expect(readdir(saved(project))).rejects.toThrow(/ENOENT/);
  });

  it('sessionPersistence: false in the home config saves nothing; --session-persistence overrides it', async () => {
    await fixture.home.writeConfig({ mcpServers: {}, sessionPersistence: false });
    expect((await run(['-p', 'secret'])).code).toBe(0);
    await expect(readdir(saved(project))).rejects.toThrow(/ENOENT/);
    // The chat too: a piped chat that ends at once saves no file either.
    expect(
      (
        await runCli(['--provider-url', fixture.model.url], fixture.home.path, {
          cwd: project,
          stdin: 'hi\n',
        })
      ).code,
    ).toBe(0);
    await expect(readdir(saved(project))).rejects.toThrow(/ENOENT/);
    expect((await run(['--session-persistence', '-p', 'kept'])).code).toBe(0);
    expect(await readdir(saved(project))).toHaveLength(1);
  });

  it('sessionPersistence in a --config file counts as the home config does; a bad value is one line', async () => {
    const file = join(fixture.home.path, 'other.json');
    await writeFile(file, JSON.stringify({ sessionPersistence: false }));
    expect((await run(['--config', file, '-p', 'secret'])).code).toBe(0);
    await expect(readdir(saved(project))).rejects.toThrow(/ENOENT/);
    await fixture.home.writeConfig({ sessionPersistence: 'no' });
    const bad = await run(['-p', 'x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain('sessionPersistence');
  });

  it('follows $XDG_STATE_HOME', async () => {
    const state = join(fixture.home.path, 'state');
    await runCli(['-p', 'hello', '--provider-url', fixture.model.url], fixture.home.path, {
      cwd: project,
      env: { XDG_STATE_HOME: state },
    });
    const key = resolve(project).replace(/[^A-Za-z0-9._-]/g, '-');
    expect(await readdir(join(state, 'mcphost/sessions', key))).toHaveLength(1);
  });
});
