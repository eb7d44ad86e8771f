/**
 * A loopback server that answers as the Hugging Face Hub does for what node-llama-cpp and mcphost
 * request (driven through HF_ENDPOINT):
 * - `GET /v2/{owner}/{repo}/manifests/{tag}` with `User-Agent: llama-cpp` → `{ ggufFile: { rfilename } }`
 *   (404 for an unknown repository or tag, as the Hub answers);
 * - `HEAD|GET /{owner}/{repo}/resolve/{branch}/{path}` → for a Git LFS file a 302 to the CDN with
 *   `X-Linked-Size` and `X-Linked-Etag` (the SHA-256); for a plain file 200 with a Git `ETag`;
 * - `HEAD|GET /cdn/{owner}/{repo}/{path}` → the bytes, `Accept-Ranges: bytes`, `Content-Length`,
 *   and 206 with `Content-Range` for a range request (how ipull resumes).
 * A repository can require a bearer token, stall its body after some bytes, announce a size or
 * SHA-256 other than what it serves, and every request is recorded.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback.js';

export interface FakeHubFile {
  readonly content: Buffer;
  /** Served through a redirect with X-Linked-* headers, as the Hub serves LFS files. Default true. */
  readonly lfs?: boolean;
  /** Announce this size instead of the real one (a wrong size). */
  readonly announcedSize?: number;
  /** Announce this SHA-256 instead of the real one. */
  readonly announcedSha256?: string;
  /** Send this many bytes of a body, then nothing more (the connection stays open). */
  readonly stallAfterBytes?: number;
  /** Pause between chunks, so a test can stop a download half way. */
  readonly chunkDelayMs?: number;
  /** Bytes per chunk written (default 16 KiB). */
  readonly chunkBytes?: number;
}

export interface FakeHubRepository {
  /** Files by path in the repository. */
  readonly files: Readonly<Record<string, FakeHubFile>>;
  /** Manifest tags (`Q4_K_M`, `latest`) → file path. */
  readonly tags?: Readonly<Record<string, string>>;
  /** When set, every request must carry `Authorization: Bearer <token>` (else 401). */
  readonly token?: string;
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
}

export interface FakeHub extends LoopbackServer {
  readonly requests: RecordedRequest[];
  /** Bytes of file content sent so far. */
  bytesSent(): number;
}

const CHUNK_BYTES = 16 * 1024;

export async function startFakeHub(
  repositories: Readonly<Record<string, FakeHubRepository>>,
): Promise<FakeHub> {
  const requests: RecordedRequest[] = [];
  let sent = 0;
  /** The repository, when it exists and the request may read it; otherwise the Hub's answer is sent. */
  const admitted = (
    key: string,
    request: IncomingMessage,
    response: ServerResponse,
  ): FakeHubRepository | undefined => {
    const repository = repositories[key];
    if (repository === undefined) notFound(response, 'Repository not found');
    else if (!authorized(request, repository)) unauthorized(response);
    else return repository;
    return undefined;
  };
  const server = await startLoopbackServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const path = decodeURIComponent(url.pathname);
    requests.push({
      method: request.method ?? 'GET',
      path: url.pathname + url.search,
      headers: request.headers,
    });
    const manifest = /^\/v2\/([^/]+)\/([^/]+)\/manifests\/([^/]+)$/.exec(path);
    if (manifest !== null) {
      const [, owner = '', name = '', tag = ''] = manifest;
      const repository = admitted(`${owner}/${name}`, request, response);
      if (repository === undefined) return;
      const file = Object.entries(repository.tags ?? {}).find(
        ([key]) => key.toUpperCase() === tag.toUpperCase(),
      )?.[1];
      if (file === undefined) {
        notFound(response, `Tag ${tag} not found`);
        return;
      }
      if (request.headers['user-agent'] !== 'llama-cpp') {
        json(response, 200, { layers: [] });
        return;
      }
      json(response, 200, {
        ggufFile: { rfilename: file, size: repository.files[file]?.content.length },
      });
      return;
    }
    const resolve = /^\/([^/]+)\/([^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(path);
    const cdn = /^\/cdn\/([^/]+)\/([^/]+)\/(.+)$/.exec(path);
    const match = resolve ?? cdn;
    if (match === null) {
      notFound(response, 'Not found');
      return;
    }
    const owner = match[1] ?? '';
    const name = match[2] ?? '';
    const filePath = (resolve === null ? match[3] : match[4]) ?? '';
    const repository = admitted(`${owner}/${name}`, request, response);
    if (repository === undefined) return;
    const file = repository.files[filePath];
    if (file === undefined) {
      notFound(response, 'Entry not found');
      return;
    }
    const sha256 = file.announcedSha256 ?? createHash('sha256').update(file.content).digest('hex');
    const size = file.announcedSize ?? file.content.length;
    if (resolve !== null && file.lfs !== false) {
      response.writeHead(302, {
        location: `/cdn/${owner}/${name}/${filePath.split('/').map(encodeURIComponent).join('/')}`,
        'x-linked-size': String(size),
        'x-linked-etag': `"${sha256}"`,
        etag: `"${createHash('sha1').update(file.content).digest('hex')}"`,
        'content-length': '0',
      });
      response.end();
      return;
    }
    sent += await serveBytes(request, response, file);
    return undefined;
  });
  return { ...server, requests, bytesSent: () => sent };
}

function authorized(request: IncomingMessage, repository: FakeHubRepository): boolean {
  return repository.token === undefined || request.headers.authorization === `Bearer ${repository.token}`;
}

async function serveBytes(
  request: IncomingMessage,
  response: ServerResponse,
  file: FakeHubFile,
): Promise<number> {
  const total = file.content.length;
  const range = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range ?? '');
  const start = range === null ? 0 : Number(range[1]);
  const end = range === null || range[2] === '' ? total - 1 : Math.min(Number(range[2]), total - 1);
  const headers = {
    'accept-ranges': 'bytes',
    'content-type': 'application/octet-stream',
    etag: `"${createHash('sha1').update(file.content).digest('hex')}"`,
    'content-length': String(end - start + 1),
    ...(range === null ? {} : { 'content-range': `bytes ${start}-${end}/${total}` }),
  };
  response.writeHead(range === null ? 200 : 206, headers);
  if (request.method === 'HEAD') {
    response.end();
    return 0;
  }
  let sent = 0;
  const chunkBytes = file.chunkBytes ?? CHUNK_BYTES;
  for (let offset = start; offset <= end; offset += chunkBytes) {
    const stallAt = file.stallAfterBytes;
    if (stallAt !== undefined && offset >= stallAt) {
      // Headers and some bytes went out; the rest never comes (until the client gives up).
      await new Promise<void>((resolve) => response.once('close', resolve));
      return sent;
    }
    if (response.destroyed) return sent;
    const chunk = file.content.subarray(offset, Math.min(offset + chunkBytes, end + 1));
    sent += chunk.length;
    // Backpressure, as a real server has it: a client that reads only the headers (ipull's first
    // GET) gets no more than the socket holds.
    if (!response.write(chunk)) {
      const open = await new Promise<boolean>((resolve) => {
        response.once('drain', () => resolve(true));
        response.once('close', () => resolve(false));
      });
      if (!open) return sent;
    }
    if (file.chunkDelayMs !== undefined)
      await new Promise((resolve) => setTimeout(resolve, file.chunkDelayMs));
  }
  response.end();
  return sent;
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function notFound(response: ServerResponse, message: string): void {
  json(response, 404, { error: message });
}

function unauthorized(response: ServerResponse): void {
  json(response, 401, { error: 'Invalid credentials in Authorization header' });
}
