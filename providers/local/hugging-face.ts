/**
 * The few Hugging Face requests made before a download: which file a `hf:owner/repo:QUANT` names
 * (the manifest endpoint llama.cpp and node-llama-cpp use), and the file's size and SHA-256 (the
 * `resolve` endpoint's headers), so that a download can be checked. node-llama-cpp resolves URIs
 * too, but it reads `process.env`, retries rate limits for minutes and reports failures as bare
 * `Error`s; asking here keeps the endpoint and token injected and every failure one clear line.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { ConfigError, ProviderError } from '../../src/core/errors.js';
import { definedProperties } from '../../src/util/defined-properties.js';

export type Environment = Readonly<Record<string, string | undefined>>;

export const DEFAULT_HUGGING_FACE_ENDPOINT = 'https://huggingface.co/';

/** How long one metadata request may take before the download is given up as unreachable. */
export const METADATA_TIMEOUT_MS = 15_000;

/**
 * The endpoint: `MODEL_ENDPOINT`, then `HF_ENDPOINT` (the variables llama.cpp and node-llama-cpp
 * read), else huggingface.co. Always ends with a slash.
 */
export function huggingFaceEndpoint(env: Environment): string {
  for (const variable of ['MODEL_ENDPOINT', 'HF_ENDPOINT'] as const) {
    const value = env[variable]?.trim();
    if (value === undefined || value === '') continue;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new ConfigError(variable, `"${value}" is not a URL (for example https://huggingface.co)`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new ConfigError(variable, `"${value}" is not an http(s) URL`);
    return url.href.endsWith('/') ? url.href : `${url.href}/`;
  }
  return DEFAULT_HUGGING_FACE_ENDPOINT;
}

/**
 * The access token, found where the Hugging Face tools look: `HF_TOKEN`, then the file
 * `HF_TOKEN_PATH`, else `$HF_HOME/token`, else `~/.cache/huggingface/token`.
 */
export async function huggingFaceToken(env: Environment, homeDir: string): Promise<string | undefined> {
  const direct = env.HF_TOKEN?.trim();
  if (direct !== undefined && direct !== '') return direct;
  const home =
    nonEmpty(env.HF_HOME) ?? join(nonEmpty(env.XDG_CACHE_HOME) ?? join(homeDir, '.cache'), 'huggingface');
  const tokenPath = nonEmpty(env.HF_TOKEN_PATH) ?? join(home, 'token');
  try {
    const token = (await readFile(tokenPath, 'utf8')).trim();
    return token === '' ? undefined : token;
  } catch {
    return undefined;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

/** Where a request goes and with what; `signal` is the caller's (Ctrl-C). */
export interface HubRequestOptions {
  readonly endpoint: string;
  readonly token: string | undefined;
  readonly signal?: AbortSignal | undefined;
  /** The model as the user named it, for messages. */
  readonly label: string;
  readonly fetch?: typeof fetch;
  readonly timeoutMs?: number;
}

const manifestSchema = z.object({ ggufFile: z.object({ rfilename: z.string().min(1) }) });

/** The file a repository's manifest gives for a tag (`Q4_K_M`, `latest`). */
export async function manifestFileName(
  owner: string,
  repository: string,
  tag: string,
  options: HubRequestOptions,
): Promise<string> {
  const url = `${options.endpoint}v2/${encodeURIComponent(owner)}/${encodeURIComponent(repository)}/manifests/${encodeURIComponent(tag)}`;
  // The `ggufFile` field comes only for llama.cpp's user agent (ggml-org/llama.cpp#11195).
  const response = await hubRequest(url, 'GET', { 'User-Agent': 'llama-cpp' }, options);
  if (response.status === 404 || response.status === 400)
    throw downloadError(
      options,
      `${options.endpoint} has no quantization ${tag} of ${owner}/${repository}`,
      response.status,
    );
  if (!response.ok) throw httpFailure(response, url, options);
  let body: unknown;
  try {
    body = await response.json();
  } catch (error) {
    throw downloadError(options, `the manifest at ${url} is not JSON`, undefined, error);
  }
  const parsed = manifestSchema.safeParse(body);
  if (!parsed.success) throw downloadError(options, `the manifest at ${url} names no GGUF file`);
  return parsed.data.ggufFile.rfilename;
}

/** What the `resolve` endpoint says of a file before it is fetched. */
export interface RemoteFile {
  readonly url: string;
  readonly sizeBytes: number | undefined;
  /** The SHA-256 of the content, when the endpoint gives it (Git LFS files: `X-Linked-Etag`). */
  readonly sha256: string | undefined;
}

/** The URL of a file in a repository, as node-llama-cpp builds it. */
export function resolveUrl(
  endpoint: string,
  owner: string,
  repository: string,
  branch: string,
  path: string,
): string {
  const encodedPath = path.split('/').map(encodeURIComponent).join('/');
  return `${endpoint}${encodeURIComponent(owner)}/${encodeURIComponent(repository)}/resolve/${encodeURIComponent(branch)}/${encodedPath}`;
}

/**
 * A HEAD request that does not follow the redirect: Hugging Face answers a Git LFS file with a
 * redirect to its CDN carrying `X-Linked-Size` and `X-Linked-Etag` (the SHA-256), and a small file
 * with 200, `Content-Length` and a Git hash as `ETag` (not a SHA-256, so not used).
 */
export async function remoteFile(url: string, options: HubRequestOptions): Promise<RemoteFile> {
  const response = await hubRequest(url, 'HEAD', {}, options, 'manual');
  if (response.status === 404) throw downloadError(options, `${url} was not found (HTTP 404)`, 404);
  const redirected = response.status >= 300 && response.status < 400;
  if (!redirected && !response.ok) throw httpFailure(response, url, options);
  const size = Number(
    (redirected ? response.headers.get('x-linked-size') : null) ?? response.headers.get('content-length'),
  );
  const etag = (response.headers.get('x-linked-etag') ?? response.headers.get('etag') ?? '')
    .replace(/^W\//, '')
    .replaceAll('"', '')
    .toLowerCase();
  return {
    url,
    sizeBytes: Number.isSafeInteger(size) && size > 0 ? size : undefined,
    sha256: /^[0-9a-f]{64}$/.test(etag) ? etag : undefined,
  };
}

async function hubRequest(
  url: string,
  method: 'GET' | 'HEAD',
  headers: Record<string, string>,
  options: HubRequestOptions,
  redirect: RequestRedirect = 'follow',
): Promise<Response> {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? METADATA_TIMEOUT_MS);
  const signal = options.signal === undefined ? timeout : AbortSignal.any([options.signal, timeout]);
  const authorization: Record<string, string> =
    options.token === undefined ? {} : { Authorization: `Bearer ${options.token}` };
  try {
    return await (options.fetch ?? fetch)(url, {
      method,
      headers: { ...headers, ...authorization },
      signal,
      redirect,
    });
  } catch (error) {
    if (options.signal?.aborted === true) throw options.signal.reason;
    const why = timeout.aborted
      ? `no answer within ${(options.timeoutMs ?? METADATA_TIMEOUT_MS) / 1000} s`
      : causeText(error);
    throw new ProviderError(
      'local',
      `cannot download ${options.label}: ${options.endpoint} is unreachable (${why})`,
      {
        // Not retried by the Runner: a first run with nothing reachable must fail at once.
        retryable: false,
        cause: error,
      },
    );
  }
}

function httpFailure(response: Response, url: string, options: HubRequestOptions): ProviderError {
  const hint =
    response.status === 401 || response.status === 403 ? ' (a gated or private model: set HF_TOKEN)' : '';
  return downloadError(options, `${url} answered HTTP ${response.status}${hint}`, response.status);
}

/** A download failure: the provider's error, so the CLI exits with code 3. */
export function downloadError(
  options: Pick<HubRequestOptions, 'label'>,
  detail: string,
  status?: number,
  cause?: unknown,
): ProviderError {
  // Never retryable: a download is not a model call, and the Runner must not repeat it.
  return new ProviderError('local', `cannot download ${options.label}: ${detail}`, {
    retryable: false,
    status,
    ...definedProperties({ cause }),
  });
}

/** The innermost message of a fetch failure (`fetch failed` hides `ECONNREFUSED 127.0.0.1:9`). */
function causeText(error: unknown): string {
  let current: unknown = error;
  let text = error instanceof Error ? error.message : String(error);
  while (current instanceof Error && current.cause !== undefined) {
    current = current.cause;
    if (current instanceof Error && current.message !== '') text = current.message;
  }
  return text;
}
