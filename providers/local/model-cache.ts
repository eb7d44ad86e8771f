/**
 * The model cache folder (`<cache>/models`). It holds only whole, checked files: each
 * `NAME.gguf` beside a record `NAME.gguf.json` saying which model it is, its size and its SHA-256.
 * Downloads happen in `<cache>/models/.partial/`, where node-llama-cpp's downloader (ipull) keeps
 * its resumable `NAME.gguf.ipull` file; a file moves into the cache only after its checks pass, by
 * a rename on the same file system, so a half file is never taken for a whole one.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';

/** The folder of partial downloads, inside the cache folder. */
export const PARTIAL_FOLDER = '.partial';
const RECORD_SUFFIX = '.json';

const recordSchema = z.object({
  /** The model's canonical URI (`hf:owner/repo:Q4_K_M`): what a later run looks it up by. */
  reference: z.string().min(1),
  /** The short name it was pulled by, if any, for `mcphost models list`. */
  shortName: z.string().optional(),
  file: z.string().min(1),
  sizeBytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** Where it came from. */
  url: z.string(),
  downloadedAt: z.string(),
});

/** What the cache knows of one downloaded model. */
export type ModelRecord = z.infer<typeof recordSchema>;

/** A file in the cache folder, with its record when it has one. */
export interface CachedModelFile {
  readonly path: string;
  readonly sizeBytes: number;
  /** Undefined for a `.gguf` put there by hand (or whose record is unreadable). */
  readonly record: ModelRecord | undefined;
}

/** A partial download waiting to be resumed. */
export interface PartialModelFile {
  readonly path: string;
  readonly sizeBytes: number;
}

/** The whole files and the partial downloads of a cache folder (empty when it does not exist). */
export async function readModelCache(
  cacheFolder: string,
): Promise<{ files: CachedModelFile[]; partial: PartialModelFile[] }> {
  const files: CachedModelFile[] = [];
  for (const name of await namesIn(cacheFolder)) {
    if (!name.toLowerCase().endsWith('.gguf')) continue;
    const path = join(cacheFolder, name);
    const size = await fileSize(path);
    if (size === undefined) continue;
    files.push({ path, sizeBytes: size, record: await readRecord(path) });
  }
  const partial: PartialModelFile[] = [];
  const partialFolder = join(cacheFolder, PARTIAL_FOLDER);
  for (const name of await namesIn(partialFolder)) {
    const size = await fileSize(join(partialFolder, name));
    if (size !== undefined && !name.endsWith('.lock'))
      partial.push({ path: join(partialFolder, name), sizeBytes: size });
  }
  return { files, partial };
}

/**
 * The cached file of a model, when one is there whole: its record names the reference and the
 * file still has the recorded size. Reads no file content and makes no request.
 */
export async function findCachedModel(cacheFolder: string, reference: string): Promise<string | undefined> {
  const { files } = await readModelCache(cacheFolder);
  const found = files.find(
    (file) => file.record?.reference === reference && file.record.sizeBytes === file.sizeBytes,
  );
  return found?.path;
}

/** The record beside a model file, or undefined when it is missing or not ours. */
export async function readRecord(modelPath: string): Promise<ModelRecord | undefined> {
  try {
    const parsed = recordSchema.safeParse(JSON.parse(await readFile(`${modelPath}${RECORD_SUFFIX}`, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Moves a checked download into the cache: the record first (written to a temporary name and
 * renamed), then the model file by one rename. A crash between the two leaves a record whose file
 * is missing, which {@link findCachedModel} ignores.
 */
export async function admitModelFile(staged: string, target: string, record: ModelRecord): Promise<void> {
  const recordPath = `${target}${RECORD_SUFFIX}`;
  const temporary = `${recordPath}.${process.pid}.tmp`;
  // Hand-written rather than src/atomic-file.ts: providers import nothing from src/ but core types
  // and errors (the layering rule in docs/design.md).
  await writeFile(temporary, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o644 });
  await rename(temporary, recordPath);
  await rename(staged, target);
}

/** Deletes a model file and its record: the file first, so a record never outlives it for long. */
export async function removeModelFile(path: string): Promise<void> {
  await rm(path, { force: true });
  await rm(`${path}${RECORD_SUFFIX}`, { force: true });
}

/** The SHA-256 of a file, read as a stream (a model is gigabytes). */
export async function sha256OfFile(path: string, signal?: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, signal === undefined ? {} : { signal }))
    hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * GGUF files start with the magic `GGUF` and a little-endian version (3 today). Any version is
 * taken: whether it can be loaded is the binding's to say, not the download's.
 */
export async function hasGgufHeader(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const header = Buffer.alloc(8);
    const { bytesRead } = await handle.read(header, 0, 8, 0);
    if (bytesRead < 8 || header.toString('latin1', 0, 4) !== 'GGUF') return false;
    const version = header.readUInt32LE(4);
    return version >= 1;
  } finally {
    await handle.close();
  }
}

async function namesIn(folder: string): Promise<string[]> {
  try {
    return (await readdir(folder)).sort();
  } catch {
    return [];
  }
}

async function fileSize(path: string): Promise<number | undefined> {
  try {
    const info = await stat(path);
    return info.isFile() ? info.size : undefined;
  } catch {
    return undefined;
  }
}
