import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import {
  formatAuditLine,
  MAX_AUDIT_STRING_LENGTH,
  openAuditLog,
  type AuditEntry,
} from '../../src/safety/audit-log.js';
import { GuardedToolHost } from '../../src/safety/guarded-tool-host.js';
import { FakeToolHost } from '../support/fake-tool-host.js';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-audit-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

const entry: AuditEntry = {
  time: '2025-01-01T00:00:00.000Z',
  server: 'github',
  tool: 'create_issue',
  exposedName: 'github__create_issue',
  callId: 'c1',
  arguments: {
    title: 'Bug',
    token: 'ghp_abcdefghijklmnopqrstuvwxyz0123',
    body: 'see https://u:pw@x.example/',
  },
  decision: 'allowed',
  decidedBy: 'policy',
  outcome: 'ok',
  durationMs: 12,
  isError: false,
};

async function lines(path: string): Promise<Array<Record<string, unknown>>> {
  return (await readFile(path, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('audit lines', () => {
  it('are one JSON object per line with secrets redacted', () => {
    const line = formatAuditLine(entry);
    expect(line).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({
      ...entry,
      arguments: { title: 'Bug', token: '[REDACTED]', body: 'see https://u:[REDACTED]@x.example/' },
    });
    expect(line).not.toContain('ghp_');
  });

  it('cut very long strings', () => {
    const line = formatAuditLine({
      ...entry,
      arguments: { content: 'y'.repeat(MAX_AUDIT_STRING_LENGTH + 5) },
    });
    const parsed = JSON.parse(line) as { arguments: { content: string } };
    expect(parsed.arguments.content).toBe(`${'y'.repeat(MAX_AUDIT_STRING_LENGTH)}…[5 more characters]`);
  });
});

describe('openAuditLog', () => {
  it('appends to an existing file, creating none of its content anew', async () => {
    const path = join(folder, 'audit.jsonl');
    await writeFile(path, '{"earlier":true}\n');
    const log = await openAuditLog(path);
    log.record(entry);
    log.record({ ...entry, callId: 'c2' });
    await log.flush();
    const written = await lines(path);
    expect(written.map((line) => line.callId ?? 'earlier')).toEqual(['earlier', 'c1', 'c2']);
  });

  it('creates the file readable by its owner only', async () => {
    const path = join(folder, 'new.jsonl');
    await openAuditLog(path);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('fails at once, naming the file, when it cannot be written', async () => {
    const path = join(folder, 'no-such-folder', 'audit.jsonl');
    const error = await openAuditLog(path).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(
      new RegExp(`^${path}: cannot write the audit log: ENOENT`),
    );
  });

  it('gets one line for every call: run, denied, failed', async () => {
    const path = join(folder, 'calls.jsonl');
    const audit = await openAuditLog(path);
    const host = new FakeToolHost({
      files__read: () => 'content',
      files__delete: () => 'deleted',
      files__broken: () => {
        throw new Error('disk on fire');
      },
    });
    let clock = 1_000;
    const guard = new GuardedToolHost({
      host,
      audit,
      locate: async (name) => ({ server: 'files', tool: name.slice('files__'.length) }),
      safety: { approval: [{ source: 'cfg', rules: [{ tool: 'files__delete', decision: 'deny' }] }] },
      now: () => (clock += 5),
    });
    await guard.call({
      type: 'tool-call',
      id: 'a',
      name: 'files__read',
      input: { path: '/x', api_key: 'k-123' },
    });
    await guard.call({ type: 'tool-call', id: 'b', name: 'files__delete', input: { path: '/x' } });
    await guard.call({ type: 'tool-call', id: 'c', name: 'files__broken', input: {} });
    await guard.close();
    const written = await lines(path);
    const digestOf = (line: unknown) => String((line as { resultDigest?: unknown }).resultDigest);
    expect(digestOf(written[0])).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(written).toEqual([
      {
        time: new Date(1_005).toISOString(),
        server: 'files',
        tool: 'read',
        exposedName: 'files__read',
        callId: 'a',
        arguments: { path: '/x', api_key: '[REDACTED]' },
        decision: 'allowed',
        decidedBy: 'policy',
        outcome: 'ok',
        durationMs: 5,
        isError: false,
        resultBytes: 7,
        resultDigest: digestOf(written[0]),
      },
      expect.objectContaining({
        callId: 'b',
        decision: 'denied',
        outcome: 'not-run',
        durationMs: 0,
        isError: true,
      }),
      expect.objectContaining({ callId: 'c', decision: 'allowed', outcome: 'error', isError: true }),
    ]);
  });
});
