/**
 * `mcphost batch` in a real terminal (tmux, the built CLI, the fake Ollama behind the real client):
 * the progress bar is drawn in place with done, failed, running, rate, time left and tokens, and
 * gives way to the summary at the end.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeOllamaReply } from '../fakes/ollama-server.js';
import { CLI } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';
import { TmuxTerminal, tmuxAvailable } from '../support/tmux.js';
import { unwrapped } from '../support/untrusted.js';

const hasTmux = tmuxAvailable();
if (!hasTmux) console.warn('tmux is not installed: skipping the terminal tests (apt-get install tmux)');

const fixture = useCliFixture();
let terminal: TmuxTerminal | undefined;
afterEach(async () => {
  await terminal?.close();
  terminal = undefined;
});

describe.skipIf(!hasTmux)('mcphost batch in a terminal', () => {
  it('draws a progress bar in place, then the summary', async () => {
    const folder = await fixture.temporaryFolder('mcphost-batch-tmux-');
    const jobs = join(folder, 'jobs.jsonl');
    await writeFile(jobs, ['one', 'two', 'three', 'four held', 'five held', 'six held'].join('\n'));
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const model = await fixture.startModel([], {
      fallback: async (request): Promise<FakeOllamaReply> => {
        const prompt = unwrapped(
          request.messages.filter((message) => message.role === 'user').at(-1)?.content ?? '',
        );
        if (prompt.endsWith('held')) await released;
        return { type: 'answer', text: `answer to ${prompt}`, promptEvalCount: 100, evalCount: 20 };
      },
    });
    terminal = await TmuxTerminal.start({
      command: [
        process.execPath,
        CLI,
        'batch',
        jobs,
        '--out',
        join(folder, 'results.jsonl'),
        '--concurrency',
        '3',
        '-m',
        'ollama:mistral-small',
        '--provider-url',
        model.url,
      ],
      env: { PATH: process.env.PATH ?? '', HOME: fixture.home.path, TERM: 'xterm-256color' },
      cwd: folder,
      columns: 120,
    });
    // Three done, three held: half the bar, the counts, a rate, the time left, the tokens.
    const midway = await terminal.waitFor(
      /\[#{12}\.{12}\] 3\/6 done, 0 failed, 3 running, [\d.]+ jobs\/s, about \w+ left, 360 tokens/,
    );
    // Redrawn in place: one bar on the screen, not a line per job.
    expect(midway.match(/\] \d\/6 done/g)).toHaveLength(1);
    release();
    const end = await terminal.waitFor(/6 ok, 0 failed; 720 tokens; [\d.]+s; results in /);
    expect(await terminal.waitForExit()).toBe(0);
    // The bar gave way to the summary.
    expect(end).not.toMatch(/\] \d\/6 done/);
    expect(model.chatRequests).toHaveLength(6);
  });
});
