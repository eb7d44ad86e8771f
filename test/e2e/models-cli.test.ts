/**
 * `mcphost models pull|list|rm` as a user runs them: the built CLI, a throw-away HOME, and
 * HF_ENDPOINT pointing at a loopback server that answers as the Hugging Face Hub does. The
 * progress bar is checked in a real terminal (tmux).
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeHub, type FakeHub, type FakeHubFile } from '../fakes/hugging-face-server.js';
import { startFakeOllama } from '../fakes/ollama-server.js';
import { ggufShapedFile } from '../support/gguf-shaped-file.js';
import { CLI, runCli, startCli, temporaryHome, type TemporaryHome } from '../support/cli.js';
import { unusedPort } from '../support/loopback.js';
import { TmuxTerminal, tmuxAvailable } from '../support/tmux.js';

const MODEL = ggufShapedFile(200 * 1024, 'e2e');
const FILE = 'Qwen3-1.7B-Q4_K_M.gguf';
const CACHED = 'unsloth_Qwen3-1.7B-GGUF_Qwen3-1.7B-Q4_K_M.gguf';

let home: TemporaryHome;
let hub: FakeHub | undefined;

beforeEach(async () => {
  home = await temporaryHome();
});
afterEach(async () => {
  await hub?.close();
  hub = undefined;
  await home.remove();
});

/** The default model's repository, served by the fake (the short name resolves to it). */
async function defaultModelHub(file: FakeHubFile = { content: MODEL }): Promise<FakeHub> {
  hub = await startFakeHub({
    'unsloth/Qwen3-1.7B-GGUF': { files: { [FILE]: file }, tags: { Q4_K_M: FILE } },
  });
  return hub;
}

describe('mcphost models', () => {
  it('pulls the default model with progress lines, lists it, pulls it again from the cache, removes it', async () => {
    const server = await defaultModelHub();
    const env = { HF_ENDPOINT: server.url };
    const pulled = await runCli(['models', 'pull'], home.path, { env });
    expect(pulled.stderr).toContain(`mcphost: downloading qwen3-1.7b (${CACHED})`);
    expect(pulled.stderr).toMatch(/mcphost: qwen3-1\.7b: 100% {2}204\.8 KB \/ 204\.8 KB/);
    expect(pulled.code).toBe(0);
    const path = join(home.path, '.cache', 'mcphost', 'models', CACHED);
    expect(pulled.stdout).toBe(`${path}\n`);
    expect(
      createHash('sha256')
        .update(await readFile(path))
        .digest('hex'),
    ).toBe(createHash('sha256').update(MODEL).digest('hex'));

    const listed = await runCli(['models', 'list'], home.path, { env });
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n')[0]).toMatch(/^NAME\s+FILE\s+SIZE$/);
    expect(listed.stdout).toMatch(
      new RegExp(`^qwen3-1\\.7b\\s+${path.replaceAll('.', '\\.')}\\s+204\\.8 KB$`, 'm'),
    );

    const requests = server.requests.length;
    const again = await runCli(['models', 'pull', 'local:qwen3-1.7b'], home.path, { env });
    expect(again.code).toBe(0);
    expect(again.stderr).toBe('mcphost: qwen3-1.7b is already downloaded\n');
    expect(server.requests.length).toBe(requests);

    const removed = await runCli(['models', 'rm', 'qwen3-1.7b'], home.path, { env });
    expect(removed.stdout).toBe(`removed ${path}\n`);
    expect(removed.code).toBe(0);
    const empty = await runCli(['models', 'list'], home.path, { env });
    expect(empty.stdout).toMatch(/^No local models downloaded yet/);
    const twice = await runCli(['models', 'rm', 'qwen3-1.7b'], home.path, { env });
    expect(twice.stderr).toBe(
      'mcphost: models rm: qwen3-1.7b is not downloaded (mcphost models list shows what is)\n',
    );
    expect(twice.code).toBe(2);
  });

  it('stops on Ctrl-C with exit code 130, keeping the partial download out of the cache for the next pull', async () => {
    const big = ggufShapedFile(12 * 1024 * 1024, 'ctrl-c');
    const server = await defaultModelHub({
      content: big,
      stallAfterBytes: 11 * 1024 * 1024,
      chunkBytes: 256 * 1024,
    });
    const running = startCli(['models', 'pull'], home.path, { env: { HF_ENDPOINT: server.url } });
    running.child.stdin.end();
    // Interrupted once the partial file holds something: on a loaded machine the "downloading" line
    // comes well before the first byte is written.
    const partial = join(home.path, '.cache', 'mcphost', 'models', '.partial');
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        void readdir(partial, { withFileTypes: true })
          .then((entries) => {
            if (!entries.some((entry) => entry.name.endsWith('.ipull'))) return;
            clearInterval(poll);
            resolve();
          })
          .catch(() => undefined);
      }, 50);
    });
    running.child.kill('SIGINT');
    const run = await running.done;
    expect(run.code).toBe(130);
    expect(run.stdout).toBe('');
    const models = join(home.path, '.cache', 'mcphost', 'models');
    expect(await readdir(models)).toEqual(['.partial']);
    const listed = await runCli(['models', 'list'], home.path);
    expect(listed.stdout).toMatch(
      /^partial download: .*\.partial\/unsloth_Qwen3-1\.7B-GGUF_Qwen3-1\.7B-Q4_K_M\.gguf\.ipull/m,
    );
  });

  it('fails at once with exit code 3 naming the endpoint when nothing answers', async () => {
    const endpoint = `http://127.0.0.1:${await unusedPort()}`;
    const run = await runCli(['models', 'pull'], home.path, { env: { HF_ENDPOINT: endpoint } });
    expect(run.stderr).toMatch(
      new RegExp(
        `^mcphost: cannot download qwen3-1\\.7b: ${endpoint}/ is unreachable \\(connect ECONNREFUSED [^)]+\\)\\n$`,
      ),
    );
    expect(run.code).toBe(3);
  });

  it('says a 404 in one line naming the model and the endpoint, exit code 3', async () => {
    const server = await defaultModelHub();
    const run = await runCli(['models', 'pull', 'hf:unsloth/Qwen3-1.7B-GGUF:Q8_0'], home.path, {
      env: { HF_ENDPOINT: server.url },
    });
    expect(run.stderr).toBe(
      `mcphost: cannot download hf:unsloth/Qwen3-1.7B-GGUF:Q8_0: ${server.url}/ has no quantization Q8_0 of unsloth/Qwen3-1.7B-GGUF\n`,
    );
    expect(run.code).toBe(3);
  });

  it('pulls, lists and removes ollama: models through the Ollama server OLLAMA_HOST names', async () => {
    const ollama = await startFakeOllama([], { models: ['mistral-small'] });
    try {
      const env = { OLLAMA_HOST: ollama.url };
      const pulled = await runCli(['models', 'pull', 'ollama:qwen2.5:3b'], home.path, { env });
      expect(pulled.code, pulled.stderr).toBe(0);
      expect(pulled.stderr).toContain('mcphost: pulling manifest\n');
      expect(pulled.stderr).toMatch(/100% \[#+\]/);
      expect(pulled.stderr).toContain(`mcphost: pulled qwen2.5:3b into Ollama at ${ollama.url}\n`);

      const listed = await runCli(['models', 'list', 'ollama'], home.path, { env });
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(/^NAME\s+SIZE$/m);
      expect(listed.stdout).toMatch(/^qwen2\.5:3b\s+\S+/m);
      expect(listed.stdout).toMatch(/^mistral-small:latest\s+/m);

      const removed = await runCli(['models', 'rm', 'ollama:qwen2.5:3b'], home.path, { env });
      expect(removed.code, removed.stderr).toBe(0);
      const after = await runCli(['models', 'list', 'ollama'], home.path, { env });
      expect(after.stdout).not.toContain('qwen2.5:3b');

      const unknown = await runCli(['models', 'pull', 'ollama:no-such-model'], home.path, { env });
      expect(unknown.code).toBe(3);
      expect(unknown.stderr).toMatch(/file does not exist/);
    } finally {
      await ollama.close();
    }
  });

  it.skipIf(!tmuxAvailable())(
    'draws a progress bar with size, speed and time left in a terminal',
    async () => {
      const big = ggufShapedFile(12 * 1024 * 1024, 'bar');
      const server = await defaultModelHub({ content: big, chunkDelayMs: 40, chunkBytes: 128 * 1024 });
      const terminal = await TmuxTerminal.start({
        command: [process.execPath, CLI, 'models', 'pull'],
        env: {
          HOME: home.path,
          PATH: process.env.PATH ?? '',
          TERM: 'xterm-256color',
          HF_ENDPOINT: server.url,
        },
        cwd: home.path,
        columns: 100,
      });
      try {
        const during = await terminal.waitFor(
          /qwen3-1\.7b \[#*-+\]\s+\d+%\s+[\d.]+ MB \/ 12\.6 MB\s+[\d.]+ [KM]B\/s\s+\d+:\d\d left/,
        );
        expect(during).not.toContain('\n\n');
        expect(await terminal.waitForExit(30_000)).toBe(0);
        const after = terminal.capture();
        // One line redrawn in place, not one line per update.
        expect(after.match(/qwen3-1\.7b \[/g)).toHaveLength(1);
        expect(after).toMatch(/qwen3-1\.7b \[#{24}\] 100% {2}12\.6 MB \/ 12\.6 MB/);
      } finally {
        await terminal.close();
      }
    },
  );
});
