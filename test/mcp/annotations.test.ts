/**
 * Approval rules by tool annotations, against the real server-memory (whose tools say which are
 * read-only and which destroy): the guard judges each call by what its server says about the tool,
 * and the approval question is told the hints.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src/safety/approval.js';
import type { AuditEntry } from '../../src/safety/audit-log.js';
import { GuardedToolHost } from '../../src/safety/guarded-tool-host.js';
import {
  closePoolsAfterEach,
  firstText,
  npmServer,
  startPool,
  testEnvironment,
  toolCall,
} from './support.js';

closePoolsAfterEach();

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-annotations-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('approval rules by annotation, against server-memory', () => {
  it('allow read-only tools, deny destructive ones, ask about the rest with the hints shown', async () => {
    const pool = await startPool({
      servers: {
        memory: npmServer('@modelcontextprotocol/server-memory', [], {
          env: { MEMORY_FILE_PATH: join(folder, 'memory.jsonl') },
        }),
      },
      env: testEnvironment(),
    });
    const asked: ApprovalRequest[] = [];
    const entries: AuditEntry[] = [];
    const guard = new GuardedToolHost({
      host: pool,
      locate: (name) => pool.locate(name),
      safety: {
        approval: [
          {
            source: 'test',
            rules: [
              { readOnly: true, decision: 'allow' },
              { destructive: true, decision: 'deny', reason: 'no deleting' },
            ],
            default: 'ask',
          },
        ],
      },
      questions: {
        approveToolCall: (request) => {
          asked.push(request);
          return Promise.resolve({ kind: 'allow-once' });
        },
      },
      audit: { record: (entry) => entries.push(entry), flush: () => Promise.resolve() },
    });
    await guard.tools();

    const read = await guard.call(toolCall('memory__read_graph'));
    expect(read.isError).toBe(false);
    expect(asked).toEqual([]);

    const deleted = await guard.call(toolCall('memory__delete_entities', { entityNames: ['x'] }));
    expect(deleted.isError).toBe(true);
    expect(firstText(deleted)).toContain('no deleting');
    expect(firstText(deleted)).toContain('destructive: true');

    // create_entities is neither read-only nor destructive (destructiveHint: false): asked, with hints.
    const created = await guard.call(
      toolCall('memory__create_entities', {
        entities: [{ name: 'ada', entityType: 'person', observations: [] }],
      }),
    );
    expect(created.isError).toBe(false);
    expect(asked.map((request) => [request.tool, request.hints])).toEqual([
      ['create_entities', { readOnly: false, destructive: false, openWorld: false }],
    ]);
    expect(entries.map((entry) => [entry.tool, entry.decision])).toEqual([
      ['read_graph', 'allowed'],
      ['delete_entities', 'denied'],
      ['create_entities', 'allowed'],
    ]);
  });
});
