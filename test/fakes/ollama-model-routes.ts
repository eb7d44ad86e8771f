/**
 * The fake Ollama's model management routes (`/api/pull`, `/api/delete`, `/api/ps`), answered as
 * Ollama answers them (see ollama-server.ts for the rest).
 */
import type { ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { normalizeModelName } from './ollama-validation.js';

/** What the fake's `/api/pull` can fetch unless told otherwise. */
export const FAKE_OLLAMA_LIBRARY: readonly string[] = [
  'mistral-small',
  'qwen2.5:3b',
  'llama3.2',
  'tinyllama',
];

/** `/api/ps`: the models a chat has loaded (and that are still installed). */
export function answerPs(
  response: ServerResponse,
  loaded: ReadonlySet<string>,
  installed: ReadonlySet<string>,
): void {
  sendJson(response, 200, { models: [...loaded].filter((name) => installed.has(name)).map(psEntry) });
}

/**
 * The model a management request names: `model`, or the deprecated `name` the `ollama` client still
 * sends for pull and delete (Ollama reads `model` first, then `name`).
 */
export function modelNameIn(body: unknown): string {
  if (typeof body !== 'object' || body === null) return '';
  const record = body as Record<string, unknown>;
  const value = typeof record.model === 'string' && record.model !== '' ? record.model : record.name;
  return typeof value === 'string' ? value : '';
}

/** The layers every fake pull downloads: sizes as a small model's (weights, template, params). */
const PULL_LAYERS: ReadonlyArray<readonly [digest: string, size: number]> = [
  [`sha256:${'a'.repeat(64)}`, 2_019_377_376],
  [`sha256:${'b'.repeat(64)}`, 1_429],
  [`sha256:${'c'.repeat(64)}`, 96],
];

/**
 * `/api/pull` as Ollama answers it. Streamed (the default): `pulling manifest`, each layer's
 * `pulling <digest>` with `total` and growing `completed`, `verifying sha256 digest`, `writing
 * manifest`, `success`; a name its library does not have gets, after `pulling manifest`, Ollama's
 * in-stream error line (the status is already 200). With `stream: false`, one object or a 500.
 */
export async function answerPull(
  body: unknown,
  response: ServerResponse,
  fake: {
    readonly installed: Set<string>;
    readonly library: ReadonlySet<string>;
    readonly options: { readonly pullDelayMs?: number };
  },
): Promise<void> {
  const name = modelNameIn(body);
  if (name === '') {
    sendJson(response, 400, { error: 'model is required' });
    return;
  }
  const stream = !(
    typeof body === 'object' &&
    body !== null &&
    (body as { stream?: unknown }).stream === false
  );
  const known = fake.library.has(normalizeModelName(name));
  const missing = 'pull model manifest: file does not exist';
  if (!stream) {
    if (!known) sendJson(response, 500, { error: missing });
    else {
      fake.installed.add(normalizeModelName(name));
      sendJson(response, 200, { status: 'success' });
    }
    return;
  }
  startStream(response);
  const lines: unknown[] = [{ status: 'pulling manifest' }];
  if (!known) lines.push({ error: missing });
  else {
    for (const [digest, total] of PULL_LAYERS) {
      const status = `pulling ${digest.slice('sha256:'.length, 'sha256:'.length + 12)}`;
      // Ollama's first line of a layer has no `completed`; later ones grow to `total`.
      lines.push({ status, digest, total });
      for (const part of [1, 2, 3, 4]) lines.push({ status, digest, total, completed: (total * part) / 4 });
    }
    lines.push({ status: 'verifying sha256 digest' }, { status: 'writing manifest' }, { status: 'success' });
  }
  for (const line of lines) {
    if (response.destroyed) return;
    if (fake.options.pullDelayMs !== undefined) await delay(fake.options.pullDelayMs);
    writeLine(response, line);
  }
  if (known) fake.installed.add(normalizeModelName(name));
  response.end();
}

/** `DELETE /api/delete`: 200 with no body, or Ollama's 404 for a model it does not have. */
export function answerDelete(body: unknown, response: ServerResponse, installed: Set<string>): void {
  const name = modelNameIn(body);
  if (name === '') {
    sendJson(response, 400, { error: 'model is required' });
    return;
  }
  if (!installed.delete(normalizeModelName(name))) {
    sendJson(response, 404, { error: `model '${name}' not found` });
    return;
  }
  response.writeHead(200);
  response.end();
}

export function psEntry(name: string): Record<string, unknown> {
  return {
    ...tagEntry(name),
    expires_at: '2030-01-01T00:05:00Z',
    size_vram: 1_000_000,
  };
}

export function tagEntry(name: string): Record<string, unknown> {
  return {
    name,
    model: name,
    modified_at: '2025-01-01T00:00:00Z',
    size: 1_000_000,
    digest: 'sha256:0000000000000000000000000000000000000000000000000000000000000000',
    details: {
      format: 'gguf',
      family: 'llama',
      families: ['llama'],
      parameter_size: '3B',
      quantization_level: 'Q4_K_M',
    },
  };
}

export function startStream(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'application/x-ndjson' });
}

export function writeLine(response: ServerResponse, value: unknown): void {
  if (!response.destroyed) response.write(`${JSON.stringify(value)}\n`);
}

export function sendJson(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(value));
}
