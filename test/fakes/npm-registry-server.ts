/**
 * A loopback fake of the npm registry, as the runtime fetch (providers/local/runtime-fetch.ts) and
 * npm itself use it: `GET /NAME` (scoped names as `@scope%2fname`) answers the abbreviated
 * packument (`versions[v].dist.tarball`, `dist.integrity`), `GET /NAME/-/FILE.tgz` the tarball.
 * Packages are made here from a few files (a real gzipped tar, `package/` inside, as npm packs).
 * `tamper` serves other bytes than the packument's integrity promises; `pinWrong` publishes another
 * integrity than the test's pin.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { create } from 'tar';
import { startLoopbackServer } from '../support/loopback.js';

export interface FakePackage {
  readonly name: string;
  readonly version: string;
  /** Files under the package's folder, by relative path (package.json is added when missing). */
  readonly files?: Readonly<Record<string, string>>;
  /** Serve a tarball whose bytes differ from the integrity the packument gives. */
  readonly tamper?: boolean;
}

export interface FakeNpmRegistry {
  readonly url: string;
  /** Each package's SRI integrity (sha512), as a lock pins it. */
  readonly integrity: ReadonlyMap<string, string>;
  /** Every request path, in order. */
  readonly requests: readonly string[];
  close(): Promise<void>;
}

/** A gzipped tarball of the package, with its files under `package/`. */
export async function packFakePackage(fakePackage: FakePackage): Promise<Buffer> {
  const folder = await mkdtemp(join(tmpdir(), 'mcphost-fake-package-'));
  try {
    const files = {
      'package.json': JSON.stringify({
        name: fakePackage.name,
        version: fakePackage.version,
        type: 'module',
      }),
      ...fakePackage.files,
    };
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(folder, 'package', path)), { recursive: true });
      await writeFile(join(folder, 'package', path), text);
    }
    const chunks: Buffer[] = [];
    for await (const chunk of create({ gzip: true, cwd: folder, portable: true }, ['package'])) {
      chunks.push(Buffer.from(chunk as Uint8Array));
    }
    return Buffer.concat(chunks);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

export function sriOf(bytes: Buffer): string {
  return `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
}

export async function startFakeNpmRegistry(packages: readonly FakePackage[]): Promise<FakeNpmRegistry> {
  const tarballs = new Map<string, { bytes: Buffer; integrity: string; fakePackage: FakePackage }>();
  const integrity = new Map<string, string>();
  for (const fakePackage of packages) {
    const bytes = await packFakePackage(fakePackage);
    const sri = sriOf(bytes);
    integrity.set(fakePackage.name, sri);
    const served = fakePackage.tamper === true ? Buffer.concat([bytes, Buffer.from('tampered')]) : bytes;
    tarballs.set(fakePackage.name, { bytes: served, integrity: sri, fakePackage });
  }
  const requests: string[] = [];
  const server = await startLoopbackServer((request, response) => {
    const path = request.url ?? '/';
    requests.push(path);
    const tarballMatch = /^\/(.+)\/-\/[^/]+\.tgz$/.exec(path);
    if (tarballMatch !== null) {
      const entry = tarballs.get(decodeURIComponent(tarballMatch[1]!));
      if (entry === undefined) {
        notFound(response);
        return;
      }
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      response.end(entry.bytes);
      return;
    }
    const entry = tarballs.get(decodeURIComponent(path.slice(1)));
    if (entry === undefined) {
      notFound(response);
      return;
    }
    const { name, version } = entry.fakePackage;
    const file = `${name.slice(name.indexOf('/') + 1)}-${version}.tgz`;
    response.writeHead(200, { 'content-type': 'application/vnd.npm.install-v1+json' });
    response.end(
      JSON.stringify({
        name,
        'dist-tags': { latest: version },
        versions: {
          [version]: {
            name,
            version,
            dist: { tarball: `${url}/${name}/-/${file}`, integrity: entry.integrity },
          },
        },
      }),
    );
  });
  const url = server.url;
  return { url, integrity, requests, close: () => server.close() };
}

function notFound(response: ServerResponse): void {
  response.writeHead(404, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ error: 'Not found' }));
}
