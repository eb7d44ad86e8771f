/**
 * `@path` attachments with `mcphost -p`, end to end: the built CLI run in a folder of files, the
 * fake Ollama recording what the model received.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { textReply } from '../fakes/ollama-server.js';
import { runCli } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

const fixture = useCliFixture();
let work: string;

beforeEach(async () => {
  work = await fixture.temporaryFolder('mcphost-work-');
  await writeFile(join(work, 'notes.md'), 'the password is mango\n');
  await writeFile(join(work, 'chart.png'), PNG);
});

describe('mcphost -p with @path', () => {
  it('sends a text file as a fenced block and an image as an image', async () => {
    const ollama = await fixture.startModel([textReply('done')]);
    const run = await runCli(
      ['-p', 'summarise @notes.md and @./chart.png.', '--provider-url', ollama.url],
      fixture.home.path,
      {
        cwd: work,
      },
    );
    expect(run.stderr).not.toContain('Error');
    expect(run.code).toBe(0);
    const user = ollama.chatRequests[0]?.messages.find((message) => message.role === 'user');
    expect(user?.content).toContain('summarise @notes.md and @./chart.png.');
    expect(user?.content).toContain('notes.md\n```\nthe password is mango\n```');
    expect(user?.images).toEqual([PNG.toString('base64')]);
    expect(run.stderr).toContain('attached @notes.md (22 bytes)');
  });

  it('sends nothing when a file is missing, and names it in one line (exit 2)', async () => {
    const ollama = await fixture.startModel([textReply('should not be asked')]);
    const run = await runCli(
      ['-p', 'read @notes.md and @./gone.txt', '--provider-url', ollama.url],
      fixture.home.path,
      {
        cwd: work,
      },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('@./gone.txt: no such file');
    expect(
      run.stderr
        .trim()
        .split('\n')
        .filter((line) => line.includes('gone.txt')),
    ).toHaveLength(1);
    expect(ollama.chatRequests).toHaveLength(0);
  });
});
