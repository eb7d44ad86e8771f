/**
 * Downloads of `local:` models through node-llama-cpp's real downloader against a loopback server
 * that answers as the Hugging Face Hub does, chosen with HF_ENDPOINT as a user would.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AbortedError, ConfigError, ProviderError } from '../../src/core/errors.js';
import {
  ensureLocalModelFile,
  listLocalModels,
  removeLocalModel,
  type DownloadProgress,
} from '../../providers/local/model-files.js';
import { parseLocalModelName } from '../../providers/local/model-names.js';
import { resolveLocalModelFile } from '../../providers/local/resolve-model.js';
import { startFakeHub, type FakeHub, type FakeHubRepository } from '../fakes/hugging-face-server.js';
import { ggufShapedFile } from '../support/gguf-shaped-file.js';
import { unusedPort } from '../support/loopback.js';

const MODEL = ggufShapedFile(300 * 1024);
const SHA256 = createHash('sha256').update(MODEL).digest('hex');

let folder: string;
let hub: FakeHub | undefined;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-models-'));
});
afterEach(async () => {
  await hub?.close();
  hub = undefined;
  await rm(folder, { recursive: true, force: true });
});

const name = (text: string) => parseLocalModelName(text, { source: '--model', cwd: folder });
const cacheFolder = () => join(folder, 'cache', 'models');

async function hubWith(repository: Partial<FakeHubRepository> & { files?: FakeHubRepository['files'] } = {}) {
  hub = await startFakeHub({
    'tiny/Tiny-GGUF': {
      files: { 'tiny-Q4_K_M.gguf': { content: MODEL } },
      tags: { Q4_K_M: 'tiny-Q4_K_M.gguf' },
      ...repository,
    },
  });
  return hub;
}

function options(
  extra: {
    env?: Record<string, string>;
    signal?: AbortSignal;
    onProgress?: (p: DownloadProgress) => void;
    stallTimeoutMs?: number;
  } = {},
) {
  return {
    cacheFolder: cacheFolder(),
    env: { HF_ENDPOINT: hub?.url ?? '', ...extra.env },
    homeDir: folder,
    ...(extra.signal === undefined ? {} : { signal: extra.signal }),
    ...(extra.onProgress === undefined ? {} : { onProgress: extra.onProgress }),
    ...(extra.stallTimeoutMs === undefined ? {} : { stallTimeoutMs: extra.stallTimeoutMs }),
  };
}

describe('ensureLocalModelFile', () => {
  it('downloads a whole file once, reports progress, and a second run uses the cache with no request', async () => {
    await hubWith();
    const progress: DownloadProgress[] = [];
    const path = await ensureLocalModelFile(
      name('hf:tiny/Tiny-GGUF:q4_k_m'),
      options({ onProgress: (p) => progress.push(p) }),
    );
    expect(path).toBe(join(cacheFolder(), 'tiny_Tiny-GGUF_tiny-Q4_K_M.gguf'));
    expect(
      createHash('sha256')
        .update(await readFile(path))
        .digest('hex'),
    ).toBe(SHA256);
    expect(hub?.requests.some((request) => request.path === '/v2/tiny/Tiny-GGUF/manifests/Q4_K_M')).toBe(
      true,
    );
    expect(progress.at(-1)).toMatchObject({
      downloadedBytes: MODEL.length,
      totalBytes: MODEL.length,
      fileName: 'tiny_Tiny-GGUF_tiny-Q4_K_M.gguf',
    });
    const before = hub?.requests.length ?? 0;
    expect(await ensureLocalModelFile(name('hf:tiny/Tiny-GGUF:Q4_K_M'), options())).toBe(path);
    expect(hub?.requests.length).toBe(before);
    const listed = await listLocalModels(cacheFolder());
    expect(listed.models).toEqual([{ name: 'hf:tiny/Tiny-GGUF:Q4_K_M', path, sizeBytes: MODEL.length }]);
    expect(listed.partial).toEqual([]);
  });

  it('downloads hf:owner/repo/file.gguf from a plain (non-LFS) file without a manifest', async () => {
    await hubWith({ files: { 'sub/tiny.gguf': { content: MODEL, lfs: false } } });
    const path = await ensureLocalModelFile(name('hf:tiny/Tiny-GGUF/sub/tiny.gguf'), options());
    expect(path).toBe(join(cacheFolder(), 'tiny_Tiny-GGUF_sub__tiny.gguf'));
    expect((await stat(path)).size).toBe(MODEL.length);
    expect(hub?.requests.some((request) => request.path.includes('/manifests/'))).toBe(false);
  });

  it('resumes a download stopped half way with a range request, and keeps no half file in the cache', async () => {
    // ipull writes (and can resume) whole 5 MiB chunks, over parallel range requests: 0–5, 5–10
    // and 10–12 MiB. The last stalls at 11 MiB, so the stop comes when exactly the first two are done.
    const MiB = 1024 * 1024;
    const big = ggufShapedFile(12 * MiB, 'big');
    const bigSha256 = createHash('sha256').update(big).digest('hex');
    const repository = (file: FakeHubRepository['files'][string]) => ({
      'tiny/Tiny-GGUF': { files: { 'tiny-Q4_K_M.gguf': file }, tags: { Q4_K_M: 'tiny-Q4_K_M.gguf' } },
    });
    const stalling = await startFakeHub(
      repository({ content: big, stallAfterBytes: 11 * MiB, chunkBytes: 256 * 1024 }),
    );
    hub = stalling;
    const controller = new AbortController();
    const stopping = ensureLocalModelFile(
      name('hf:tiny/Tiny-GGUF:Q4_K_M'),
      options({
        signal: controller.signal,
        onProgress: (p) => {
          if (p.downloadedBytes >= 11 * MiB) controller.abort();
        },
      }),
    );
    await expect(stopping).rejects.toBeInstanceOf(AbortedError);
    await stalling.close();
    expect(await readdir(cacheFolder())).toEqual(['.partial']);
    const partial = await listLocalModels(cacheFolder());
    expect(partial.models).toEqual([]);
    expect(partial.partial).toHaveLength(1);
    expect(partial.partial[0]?.path).toMatch(/\.ipull$/);

    const server = await startFakeHub(repository({ content: big }));
    hub = server;
    const path = await ensureLocalModelFile(name('hf:tiny/Tiny-GGUF:Q4_K_M'), options());
    expect(
      createHash('sha256')
        .update(await readFile(path))
        .digest('hex'),
    ).toBe(bigSha256);
    const ranges = server.requests
      .map((request) => /^bytes=(\d+)-(\d+)$/.exec(request.headers.range ?? ''))
      .filter((range) => range !== null)
      .map((range) => ({ start: Number(range[1]), end: Number(range[2]) }));
    // Only the unfinished chunk is fetched again.
    expect(ranges).toEqual([{ start: 10 * MiB, end: 12 * MiB - 1 }]);
    expect((await listLocalModels(cacheFolder())).partial).toEqual([]);
  });

  it('downloads once when two runs ask for the same model at the same time', async () => {
    const server = await hubWith({ files: { 'tiny-Q4_K_M.gguf': { content: MODEL, chunkDelayMs: 5 } } });
    const [first, second] = await Promise.all([
      ensureLocalModelFile(name('hf:tiny/Tiny-GGUF:Q4_K_M'), options()),
      ensureLocalModelFile(name('hf:tiny/Tiny-GGUF:q4_k_m'), options()),
    ]);
    expect(second).toBe(first);
    expect(
      createHash('sha256')
        .update(await readFile(first))
        .digest('hex'),
    ).toBe(SHA256);
    // ipull's first GET of the file (for its size) is made by the one run that downloads.
    expect(server.requests.filter((request) => request.path.includes('?download=true'))).toHaveLength(1);
  });

  it('names the model and the endpoint on a 404', async () => {
    await hubWith();
    const failure = ensureLocalModelFile(name('hf:tiny/Tiny-GGUF:Q8_0'), options());
    await expect(failure).rejects.toBeInstanceOf(ProviderError);
    await expect(failure).rejects.toThrow(
      `cannot download hf:tiny/Tiny-GGUF:Q8_0: ${hub?.url}/ has no quantization Q8_0 of tiny/Tiny-GGUF`,
    );
    const missingFile = ensureLocalModelFile(name('hf:tiny/Tiny-GGUF/nope.gguf'), options());
    await expect(missingFile).rejects.toThrow(
      `${hub?.url}/tiny/Tiny-GGUF/resolve/main/nope.gguf was not found (HTTP 404)`,
    );
  });

  it('gives up a stalled body, keeps the partial file out of the cache, and a later run completes it', async () => {
    const hubServer = await hubWith({
      files: { 'tiny-Q4_K_M.gguf': { content: MODEL, stallAfterBytes: 64 * 1024 } },
    });
    const stalled = ensureLocalModelFile(name('hf:tiny/Tiny-GGUF:Q4_K_M'), options({ stallTimeoutMs: 500 }));
    await expect(stalled).rejects.toThrow(/sent nothing for 0\.5 s/);
    expect((await listLocalModels(cacheFolder())).models).toEqual([]);
    await hubServer.close();
    hub = await startFakeHub({
      'tiny/Tiny-GGUF': {
        files: { 'tiny-Q4_K_M.gguf': { content: MODEL } },
        tags: { Q4_K_M: 'tiny-Q4_K_M.gguf' },
      },
    });
    const path = await ensureLocalModelFile(name('hf:tiny/Tiny-GGUF:Q4_K_M'), options());
    expect(
      createHash('sha256')
        .update(await readFile(path))
        .digest('hex'),
    ).toBe(SHA256);
  });

  it('rejects a file whose size is not the announced one, and does not cache it', async () => {
    await hubWith({ files: { 'tiny-Q4_K_M.gguf': { content: MODEL, announcedSize: MODEL.length + 1000 } } });
    await expect(ensureLocalModelFile(name('hf:tiny/Tiny-GGUF:Q4_K_M'), options())).rejects.toThrow(
      `it is ${MODEL.length} bytes, the server announced ${MODEL.length + 1000}; it was not kept`,
    );
    expect((await listLocalModels(cacheFolder())).models).toEqual([]);
    expect((await listLocalModels(cacheFolder())).partial).toEqual([]);
  });

  it('rejects a file whose SHA-256 is not the announced one', async () => {
    await hubWith({ files: { 'tiny-Q4_K_M.gguf': { content: MODEL, announcedSha256: '0'.repeat(64) } } });
    await expect(ensureLocalModelFile(name('hf:tiny/Tiny-GGUF:Q4_K_M'), options())).rejects.toThrow(
      /its SHA-256 is [0-9a-f]{64}, the server announced 0{64}/,
    );
    expect((await listLocalModels(cacheFolder())).models).toEqual([]);
  });

  it('rejects a file that is not GGUF', async () => {
    await hubWith({ files: { 'tiny-Q4_K_M.gguf': { content: Buffer.from('<html>not a model</html>') } } });
    await expect(ensureLocalModelFile(name('hf:tiny/Tiny-GGUF:Q4_K_M'), options())).rejects.toThrow(
      'no GGUF header',
    );
  });

  it('sends HF_TOKEN as a bearer header to the manifest, the resolve endpoint and the file', async () => {
    await hubWith({ token: 'hf_secret' });
    await expect(ensureLocalModelFile(name('hf:tiny/Tiny-GGUF:Q4_K_M'), options())).rejects.toThrow(
      /HTTP 401 \(a gated or private model: set HF_TOKEN\)/,
    );
    const path = await ensureLocalModelFile(
      name('hf:tiny/Tiny-GGUF:Q4_K_M'),
      options({ env: { HF_TOKEN: 'hf_secret' } }),
    );
    expect((await stat(path)).size).toBe(MODEL.length);
    const withToken = (hub?.requests ?? []).filter(
      (request) => request.headers.authorization === 'Bearer hf_secret',
    );
    expect(withToken.some((request) => request.path.includes('/manifests/'))).toBe(true);
    expect(withToken.some((request) => request.path.includes('/resolve/'))).toBe(true);
    expect(withToken.some((request) => request.path.startsWith('/cdn/'))).toBe(true);
  });

  it('fails at once, naming the endpoint, when nothing answers', async () => {
    const endpoint = `http://127.0.0.1:${await unusedPort()}`;
    const failure = ensureLocalModelFile(name('qwen3-1.7b'), {
      ...options(),
      env: { HF_ENDPOINT: endpoint },
    });
    await expect(failure).rejects.toThrow(
      `cannot download qwen3-1.7b: ${endpoint}/ is unreachable (connect ECONNREFUSED`,
    );
    await expect(failure).rejects.toMatchObject({ retryable: false });
  });

  it('removes a downloaded model, its record and nothing else', async () => {
    await hubWith();
    const path = await ensureLocalModelFile(name('hf:tiny/Tiny-GGUF:Q4_K_M'), options());
    expect(await removeLocalModel(name('hf:tiny/Tiny-GGUF:Q4_K_M'), cacheFolder())).toEqual([path]);
    expect(await readdir(cacheFolder())).toEqual(['.partial']);
    expect(await removeLocalModel(name('hf:tiny/Tiny-GGUF:Q4_K_M'), cacheFolder())).toEqual([]);
  });

  it('takes a file path as it is, with no request, and names a missing one', async () => {
    await writeFile(join(folder, 'mine.gguf'), MODEL);
    const base = { ...options(), env: {}, source: '--model', cwd: folder };
    expect(await resolveLocalModelFile('./mine.gguf', base)).toBe(join(folder, 'mine.gguf'));
    const missing = resolveLocalModelFile('./gone.gguf', base);
    await expect(missing).rejects.toBeInstanceOf(ConfigError);
    await expect(missing).rejects.toThrow(`--model: no model file at ${join(folder, 'gone.gguf')}`);
    await expect(resolveLocalModelFile('qwen9', base)).rejects.toThrow(
      '--model: local model "qwen9" is not a known short name',
    );
  });
});
