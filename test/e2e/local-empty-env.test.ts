/**
 * `CI=` (set, empty), as some CI systems and shells leave it, and node-llama-cpp's own variables set
 * empty: node-llama-cpp refuses to load under them (env-var: "CI" should be either "true", "false"…).
 * An empty variable means "not set" to everyone else, and the embedded model must run under it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, temporaryHome, type TemporaryHome } from '../support/cli.js';
import { writeTinyGguf } from '../fixtures/tiny-gguf.js';

let folder: string;
let model: string;
let home: TemporaryHome;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-empty-env-'));
  model = await writeTinyGguf(join(folder, 'noise.gguf'));
  home = await temporaryHome();
});
afterAll(async () => {
  await home.remove();
  await rm(folder, { recursive: true, force: true });
});

describe('the embedded model under empty environment variables', () => {
  it('answers with CI, NODE_LLAMA_CPP_GPU and NODE_LLAMA_CPP_DEBUG set but empty', async () => {
    const run = await runCli(['-m', `local:${model}`, '-p', 'hello', '--max-tokens', '4'], home.path, {
      env: { MCPHOST_LOCAL_THREADS: '1', CI: '', NODE_LLAMA_CPP_GPU: '', NODE_LLAMA_CPP_DEBUG: '' },
    });
    // (A HOME without a config says so on stderr; that line is not what this test is about.)
    expect(run.stderr).not.toContain('node-llama-cpp');
    expect(run.code).toBe(0);
    expect(run.stdout.length).toBeGreaterThan(1);
  });
});
