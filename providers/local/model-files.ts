/**
 * A local model's file: found in the cache with no request, else downloaded once with
 * node-llama-cpp's downloader (resumable), checked (size, GGUF header, SHA-256 when the endpoint
 * gives one), and only then moved into the cache. Progress is reported as data; nothing prints.
 */
import { mkdir, open, rm, stat, truncate } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { AbortedError, ConfigError, ProviderError } from '../../src/core/errors.js';
import {
  admitModelFile,
  findCachedModel,
  hasGgufHeader,
  PARTIAL_FOLDER,
  readModelCache,
  removeModelFile,
  sha256OfFile,
  type CachedModelFile,
} from './model-cache.js';
import {
  downloadError,
  huggingFaceEndpoint,
  huggingFaceToken,
  manifestFileName,
  remoteFile,
  resolveUrl,
  type Environment,
  type HubRequestOptions,
} from './hugging-face.js';
import { importNodeLlamaCpp } from './binding.js';
import { localModelLabel, type LocalModelReference } from './model-names.js';
import { definedProperties } from '../../src/util/defined-properties.js';

/** How far a download is. Drawn by src/cli: a bar in a terminal, lines otherwise. */
export interface DownloadProgress {
  /** The model as the user named it (`qwen3-1.7b`, `hf:…`). */
  readonly model: string;
  /** The file being downloaded. */
  readonly fileName: string;
  readonly downloadedBytes: number;
  /** Undefined until the server has said. */
  readonly totalBytes?: number;
  /** Averaged over the last seconds; undefined before there is any. */
  readonly bytesPerSecond?: number;
  readonly secondsLeft?: number;
}

export interface EnsureLocalModelOptions {
  /** `<mcphostFolder('cache')>/models`. */
  readonly cacheFolder: string;
  /** HF_ENDPOINT / MODEL_ENDPOINT, HF_TOKEN, HF_HOME… (never read from process.env here). */
  readonly env: Environment;
  /** Ctrl-C: stops the download, keeping the partial file for the next run to resume. */
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: DownloadProgress) => void;
  /** The home folder, for `~/.cache/huggingface/token`; defaults to the OS's. */
  readonly homeDir?: string;
  /** A download that receives nothing for this long is stopped (its partial file kept). */
  readonly stallTimeoutMs?: number;
  /** Per metadata request (manifest, HEAD). */
  readonly requestTimeoutMs?: number;
}

/** No byte for this long and the download is given up (resumable next time). */
export const DEFAULT_STALL_TIMEOUT_MS = 60_000;

/**
 * The absolute path of the model's complete, checked file, downloading it when it is not cached.
 * A file path is returned as it is once it exists. Throws ConfigError for a missing file path,
 * ProviderError (exit code 3) when the download fails, AbortedError when `signal` stops it.
 */
export async function ensureLocalModelFile(
  reference: LocalModelReference,
  options: EnsureLocalModelOptions,
): Promise<string> {
  if (reference.kind === 'file') {
    const info = await stat(reference.path).catch(() => undefined);
    if (info?.isFile() !== true) throw new ConfigError('--model', `no model file at ${reference.path}`);
    return reference.path;
  }
  const cached = await findCachedModel(options.cacheFolder, reference.uri);
  if (cached !== undefined) return cached;
  return downloadModel(reference, options);
}

type HubReference = Exclude<LocalModelReference, { kind: 'file' }>;

async function downloadModel(reference: HubReference, options: EnsureLocalModelOptions): Promise<string> {
  const label = localModelLabel(reference);
  const endpoint = huggingFaceEndpoint(options.env);
  const token = await huggingFaceToken(options.env, options.homeDir ?? homedir());
  const hub: HubRequestOptions = {
    endpoint,
    token,
    label,
    signal: options.signal,
    ...definedProperties({ timeoutMs: options.requestTimeoutMs }),
  };
  const branch = reference.kind === 'hugging-face-file' ? reference.branch : 'main';
  const filePath =
    reference.kind === 'hugging-face-file'
      ? reference.filePath
      : await manifestFileName(reference.owner, reference.repository, reference.tag, hub);
  if (/-\d{5}-of-\d{5}\.gguf$/i.test(filePath))
    throw downloadError(hub, `${filePath} is split in parts, which mcphost does not download yet`);
  const remote = await remoteFile(
    resolveUrl(endpoint, reference.owner, reference.repository, branch, filePath),
    hub,
  );
  const fileName = cacheFileName(reference.owner, reference.repository, branch, filePath);
  const partialFolder = join(options.cacheFolder, PARTIAL_FOLDER);
  await mkdir(partialFolder, { recursive: true });
  const staged = join(partialFolder, fileName);
  // Two runs pulling the same model would write one `.ipull` file at once: the second waits for
  // the first (proper-lockfile, as the sign-in store uses) and then finds the file in the cache.
  const { lock } = await import('proper-lockfile');
  const release = await lock(staged, { realpath: false, retries: DOWNLOAD_LOCK_RETRIES, stale: 30_000 });
  try {
    const meanwhile = await findCachedModel(options.cacheFolder, reference.uri);
    if (meanwhile !== undefined) return meanwhile;
    return await fetchCheckAndAdmit(
      reference,
      staged,
      remote,
      { ...options, endpoint, token, label },
      branch,
      filePath,
    );
  } finally {
    await release();
  }
}

/** Waiting for another run's download of the same file: up to an hour, polled every 2 s. */
const DOWNLOAD_LOCK_RETRIES = { retries: 1800, minTimeout: 2000, maxTimeout: 2000, factor: 1 };

async function fetchCheckAndAdmit(
  reference: HubReference,
  staged: string,
  remote: Awaited<ReturnType<typeof remoteFile>>,
  options: FetchOptions,
  branch: string,
  filePath: string,
): Promise<string> {
  const { label } = options;
  const fileName = basename(staged);
  await fetchInto(
    staged,
    `hf:${reference.owner}/${reference.repository}/${filePath}${branch === 'main' ? '' : `#${branch}`}`,
    options,
  );
  const sha256 = await checkDownload(staged, remote, label, options.signal);
  const target = join(options.cacheFolder, fileName);
  await admitModelFile(staged, target, {
    reference: reference.uri,
    ...definedProperties({ shortName: reference.shortName }),
    file: fileName,
    sizeBytes: (await stat(staged)).size,
    sha256,
    url: remote.url,
    downloadedAt: new Date().toISOString(),
  });
  return target;
}

/** `owner_repo_path__to__file.gguf`, `@branch` before `.gguf` when not main: one flat, safe name. */
export function cacheFileName(owner: string, repository: string, branch: string, filePath: string): string {
  const flat = `${owner}_${repository}_${filePath.split('/').join('__')}`;
  const named = branch === 'main' ? flat : flat.replace(/\.gguf$/i, `@${branch}.gguf`);
  return named.replace(/[^A-Za-z0-9._@-]/g, '_');
}

interface FetchOptions extends EnsureLocalModelOptions {
  readonly endpoint: string;
  readonly token: string | undefined;
  readonly label: string;
}

/**
 * Downloads into `staged` with node-llama-cpp's downloader. Its `download()` resolves (with a path
 * that does not exist) when it is cancelled, rather than rejecting, so an abort or a stall is
 * decided here, not from its result.
 */
async function fetchInto(staged: string, uri: string, options: FetchOptions): Promise<void> {
  const { createModelDownloader } = await importNodeLlamaCpp();
  const fileName = staged.slice(staged.lastIndexOf('/') + 1);
  let lastProgressAt = Date.now();
  const report = (status: {
    totalSize: number;
    downloadedSize: number;
    averageSpeed: number;
    estimatedTimeLeft: number;
  }) => {
    lastProgressAt = Date.now();
    options.onProgress?.({
      model: options.label,
      fileName,
      downloadedBytes: status.downloadedSize,
      ...(status.totalSize > 0 ? { totalBytes: status.totalSize } : {}),
      ...(status.averageSpeed > 0 ? { bytesPerSecond: status.averageSpeed } : {}),
      // ipull gives milliseconds, capped at 35 days when it cannot tell.
      ...(status.averageSpeed > 0 && Number.isFinite(status.estimatedTimeLeft)
        ? { secondsLeft: Math.round(status.estimatedTimeLeft / 1000) }
        : {}),
    });
  };
  const authorization: Record<string, string> =
    options.token === undefined ? {} : { Authorization: `Bearer ${options.token}` };
  let downloader: Awaited<ReturnType<typeof createModelDownloader>>;
  try {
    downloader = await createModelDownloader({
      modelUri: uri,
      dirPath: staged.slice(0, staged.length - fileName.length - 1),
      fileName,
      headers: authorization,
      endpoints: { huggingFace: options.endpoint },
      ...(options.token === undefined ? {} : { tokens: { huggingFace: options.token } }),
      showCliProgress: false,
      // Kept on Ctrl-C: the next run resumes it with a range request.
      deleteTempFileOnCancel: false,
      parallelDownloads: 1,
      onProgress: report,
    });
  } catch (error) {
    if (options.signal?.aborted === true) throw new AbortedError('download stopped');
    throw downloadError(
      options,
      `${options.endpoint}: ${error instanceof Error ? error.message : String(error)}`,
      undefined,
      error,
    );
  }
  // Stopped by cancel() here, awaited and caught: given a signal, node-llama-cpp cancels without
  // awaiting, and a failure of that cancel (ipull renaming its file as it closes) would be an
  // unhandled rejection, which ends a Node process.
  const stop = { reason: undefined as 'aborted' | 'stalled' | undefined, cancelled: Promise.resolve() };
  const cancel = (reason: 'aborted' | 'stalled'): void => {
    if (stop.reason !== undefined) return;
    stop.reason = reason;
    stop.cancelled = downloader.cancel({ deleteTempFile: false }).catch(() => undefined);
  };
  const stallTimeoutMs = options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS;
  const watchdog = setInterval(
    () => {
      if (Date.now() - lastProgressAt >= stallTimeoutMs) cancel('stalled');
    },
    Math.min(1000, stallTimeoutMs / 4),
  );
  const onAbort = (): void => cancel('aborted');
  if (options.signal?.aborted === true) onAbort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  let failure: unknown;
  try {
    await downloader.download();
  } catch (error) {
    failure = error;
  } finally {
    clearInterval(watchdog);
    options.signal?.removeEventListener('abort', onAbort);
    await stop.cancelled;
  }
  switch (stop.reason) {
    case 'aborted':
      throw new AbortedError('download stopped; the next run resumes it');
    case 'stalled':
      throw downloadError(
        options,
        `${options.endpoint} sent nothing for ${stallTimeoutMs / 1000} s (the partial file is kept and resumed next time)`,
      );
    case undefined:
      break;
    default: {
      const unexpected: never = stop.reason;
      throw new TypeError(`unknown stop ${String(unexpected)}`);
    }
  }
  if (failure !== undefined)
    throw downloadError(
      options,
      `${options.endpoint}: ${failure instanceof Error ? failure.message : JSON.stringify(failure)}`,
      undefined,
      failure,
    );
  if ((await stat(staged).catch(() => undefined))?.isFile() !== true)
    throw downloadError(options, `the download of ${fileName} from ${options.endpoint} ended without a file`);
}

/** Size, GGUF header and SHA-256; a file that fails is deleted, never cached. Returns its SHA-256. */
async function checkDownload(
  staged: string,
  remote: { sizeBytes: number | undefined; sha256: string | undefined; url: string },
  label: string,
  signal?: AbortSignal,
): Promise<string> {
  const reject = async (why: string): Promise<never> => {
    await rm(staged, { force: true });
    throw new ProviderError(
      'local',
      `download of ${label} from ${remote.url} rejected: ${why}; it was not kept`,
      {
        retryable: false,
      },
    );
  };
  let size = (await stat(staged)).size;
  if (
    remote.sizeBytes !== undefined &&
    size > remote.sizeBytes &&
    (await endsWithIpullMetadata(staged, remote.sizeBytes))
  ) {
    // ipull keeps its resume state as JSON after the content and truncates it off when a download
    // finishes; a resumed download that had nothing to keep finishes without that step (seen with
    // ipull 3.9.5). What is cut here is ipull's JSON only; the SHA-256 below checks the rest.
    await truncate(staged, remote.sizeBytes);
    size = remote.sizeBytes;
  }
  if (remote.sizeBytes !== undefined && size !== remote.sizeBytes)
    return reject(`it is ${size} bytes, the server announced ${remote.sizeBytes}`);
  if (!(await hasGgufHeader(staged))) return reject('it is not a GGUF file (no GGUF header)');
  const sha256 = await sha256OfFile(staged, signal);
  if (remote.sha256 !== undefined && sha256 !== remote.sha256)
    return reject(`its SHA-256 is ${sha256}, the server announced ${remote.sha256}`);
  return sha256;
}

async function endsWithIpullMetadata(path: string, contentBytes: number): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const extra = Buffer.alloc(Math.min((await handle.stat()).size - contentBytes, 1024 * 1024));
    await handle.read(extra, 0, extra.length, contentBytes);
    const parsed: unknown = JSON.parse(extra.toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && 'chunks' in parsed;
  } catch {
    return false;
  } finally {
    await handle.close();
  }
}

/** One downloaded model, for `mcphost models list`. */
export interface LocalModelEntry {
  /** The short name or URI it was pulled by; undefined for a file put there by hand. */
  readonly name: string | undefined;
  readonly path: string;
  readonly sizeBytes: number;
}

/** The models in the cache folder, and the partial downloads waiting to be resumed. */
export async function listLocalModels(
  cacheFolder: string,
): Promise<{ models: LocalModelEntry[]; partial: Array<{ path: string; sizeBytes: number }> }> {
  const { files, partial } = await readModelCache(cacheFolder);
  return { models: files.map(entryOf), partial };
}

function entryOf(file: CachedModelFile): LocalModelEntry {
  return {
    name: file.record?.shortName ?? file.record?.reference,
    path: file.path,
    sizeBytes: file.sizeBytes,
  };
}

/**
 * Deletes a downloaded model (its file, record and any partial download). Returns the paths
 * removed; an empty list when nothing of it was downloaded. A file path is the user's own file,
 * which this refuses to delete.
 */
export async function removeLocalModel(
  reference: LocalModelReference,
  cacheFolder: string,
): Promise<string[]> {
  if (reference.kind === 'file')
    throw new ConfigError(
      'models rm',
      `${reference.path} is your own file, not a download; delete it yourself`,
    );
  const { files, partial } = await readModelCache(cacheFolder);
  const removed: string[] = [];
  for (const file of files.filter((candidate) => candidate.record?.reference === reference.uri)) {
    await removeModelFile(file.path);
    removed.push(file.path);
    const leftover = partial.filter((item) =>
      item.path.startsWith(join(cacheFolder, PARTIAL_FOLDER, file.record?.file ?? '')),
    );
    for (const item of leftover) await rm(item.path, { force: true });
  }
  if (reference.kind === 'hugging-face-file') {
    const prefix = join(
      cacheFolder,
      PARTIAL_FOLDER,
      cacheFileName(reference.owner, reference.repository, reference.branch, reference.filePath),
    );
    for (const item of partial.filter((candidate) => candidate.path.startsWith(prefix))) {
      await rm(item.path, { force: true });
      removed.push(item.path);
    }
  }
  return removed;
}
