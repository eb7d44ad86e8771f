/**
 * "Always allow" answers kept per project folder: the store (real files in a temporary folder) and
 * how GuardedToolHost uses it — a kept answer stands in for the user's, never for a deny rule nor
 * for a rule set that always asks (the built-in bash server's).
 */
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildToolNameTable } from '../../src/mcp/naming.js';
import type { ApprovalDecision, ApprovalRequest } from '../../src/safety/approval.js';
import { GuardedToolHost } from '../../src/safety/guarded-tool-host.js';
import { KeptPermissions } from '../../src/safety/kept-permissions.js';
import type { ApprovalFallback, ApprovalRuleSet } from '../../src/safety/policy.js';
import type { ToolCallBlock } from '../../src/core/types.js';
import { FakeToolHost } from '../support/fake-tool-host.js';

let folder: string;
let file: string;
let project: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcphost-kept-'));
  file = join(folder, 'state', 'permissions.json');
  project = join(folder, 'project');
  await mkdir(project);
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

const now = () => Date.parse('2026-01-02T03:04:05.000Z');

describe('KeptPermissions', () => {
  it('keeps answers per real folder path, in a 0600 file outside the project, and removes them', async () => {
    const kept = await KeptPermissions.open({ file, projectDir: project, now });
    expect(kept.list()).toEqual([]);
    await kept.keep({ server: 'files', tool: 'write' });
    await kept.keep({ server: 'memory' });
    await kept.keep({ server: 'files', tool: 'write' }); // already kept: not twice
    expect(kept.list()).toEqual([
      { kind: 'tool', server: 'files', tool: 'write', keptAt: '2026-01-02T03:04:05.000Z' },
      { kind: 'server', server: 'memory', keptAt: '2026-01-02T03:04:05.000Z' },
    ]);
    expect(kept.covers('files', 'write')).toBe(true);
    expect(kept.covers('files', 'delete')).toBe(false);
    expect(kept.covers('memory', 'anything')).toBe(true);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(await readFile(file, 'utf8')) as { projects: Record<string, unknown> };
    expect(Object.keys(stored.projects)).toEqual([project]);

    // The same folder through a symbolic link is the same project; another folder has nothing.
    const link = join(folder, 'link');
    await symlink(project, link);
    expect((await KeptPermissions.open({ file, projectDir: link })).list()).toHaveLength(2);
    const other = join(folder, 'other');
    await mkdir(other);
    const elsewhere = await KeptPermissions.open({ file, projectDir: other });
    expect(elsewhere.list()).toEqual([]);
    await elsewhere.keep({ server: 'x' });

    await expect(kept.remove({ index: 5 })).rejects.toThrow('there is no kept permission 6: give 1-2');
    expect(await kept.remove({ index: 0 })).toBe(1);
    expect(kept.covers('files', 'write')).toBe(false);
    expect(await kept.remove('all')).toBe(1);
    // Removing this folder's answers leaves the other folder's.
    const after = JSON.parse(await readFile(file, 'utf8')) as { projects: Record<string, unknown> };
    expect(Object.keys(after.projects)).toEqual([other]);
  });

  it('refuses a store it cannot read, naming the file', async () => {
    await mkdir(join(folder, 'state'));
    await writeFile(file, '{"version": 1, "projects": {"/p": [{"kind": "tool", "server": "s"}]}}');
    await expect(KeptPermissions.open({ file, projectDir: project })).rejects.toThrow(
      `${file}: not a kept-permissions file at projects./p.0.tool`,
    );
    await writeFile(file, 'not json');
    await expect(KeptPermissions.open({ file, projectDir: project })).rejects.toThrow(`${file}: not JSON`);
  });
});

const TOOLS = [
  { server: 'files', tool: 'write' },
  { server: 'files', tool: 'delete' },
  { server: 'bash', tool: 'run' },
];

let nextId = 0;
function call(name: string): ToolCallBlock {
  nextId += 1;
  return { type: 'tool-call', id: `call-${nextId}`, name, input: {} };
}

function guarded(
  approval: ApprovalRuleSet[],
  kept: KeptPermissions,
  answers: ApprovalDecision[],
  approvalFallback: ApprovalFallback = 'allow',
) {
  const host = new FakeToolHost({
    files__write: () => 'wrote',
    files__delete: () => 'deleted',
    bash__run: () => 'ran',
  });
  const asked: string[] = [];
  const warnings: string[] = [];
  const table = buildToolNameTable(TOOLS);
  const guard = new GuardedToolHost({
    host,
    locate: (name) => table.lookup.get(name),
    safety: { approval, keptPermissions: kept, approvalFallback },
    questions: {
      approveToolCall: async (request: ApprovalRequest) => {
        asked.push(request.call.name);
        const answer = answers.shift();
        if (answer === undefined) throw new Error(`not expected to be asked about ${request.call.name}`);
        return answer;
      },
    },
    onWarning: (message) => warnings.push(message),
  });
  return { guard, host, asked, warnings };
}

const askFiles: ApprovalRuleSet = {
  source: '/home/ada/.mcp.json',
  rules: [
    { server: 'files', tool: 'delete', decision: 'deny' },
    { server: 'files', decision: 'ask' },
    { server: 'bash', decision: 'allow' },
  ],
};
const bashAlwaysAsks: ApprovalRuleSet = {
  source: 'the built-in "bash" server\'s default',
  rules: [{ server: 'bash', decision: 'ask' }],
  alwaysAsk: true,
};

describe('kept answers in the guard', () => {
  it('an answer with keep is kept and, in the next run, allows without asking', async () => {
    const first = guarded([askFiles], await KeptPermissions.open({ file, projectDir: project }), [
      { kind: 'allow-tool', keep: true },
    ]);
    expect((await first.guard.call(call('files__write'))).isError).toBe(false);
    expect(first.asked).toEqual(['files__write']);

    // A new run (a new guard, the store read again): not asked.
    const next = guarded([askFiles], await KeptPermissions.open({ file, projectDir: project }), []);
    const result = await next.guard.call(call('files__write'));
    expect(result.isError).toBe(false);
    expect(next.asked).toEqual([]);
    expect(next.host.calls.map((made) => made.name)).toEqual(['files__write']);
  });

  it("lifts the chat's question about a tool no rule speaks to (the fallback's ask)", async () => {
    const first = guarded(
      [],
      await KeptPermissions.open({ file, projectDir: project }),
      [{ kind: 'allow-tool', keep: true }],
      'ask-unless-read-only',
    );
    expect((await first.guard.call(call('files__write'))).isError).toBe(false);
    expect(first.asked).toEqual(['files__write']);
    const next = guarded(
      [],
      await KeptPermissions.open({ file, projectDir: project }),
      [],
      'ask-unless-read-only',
    );
    expect((await next.guard.call(call('files__write'))).isError).toBe(false);
    expect(next.asked).toEqual([]);
  });

  it('never lifts a deny rule, nor the bash server that always asks; such a keep is for the session only', async () => {
    const kept = await KeptPermissions.open({ file, projectDir: project });
    await kept.keep({ server: 'files' });
    await kept.keep({ server: 'bash' });
    const run = guarded([bashAlwaysAsks, askFiles], kept, [{ kind: 'allow-server', keep: true }]);
    const denied = await run.guard.call(call('files__delete'));
    expect(denied.isError).toBe(true);
    expect(run.asked).toEqual([]);
    // bash asks although a kept answer names it, and the answer to keep it is not kept.
    expect((await run.guard.call(call('bash__run'))).isError).toBe(false);
    expect(run.asked).toEqual(['bash__run']);
    expect(run.warnings).toEqual([
      'not kept for this folder: bash asks before every call, in every run; allowed for this session',
    ]);
    expect(kept.list().map((entry) => entry.server)).toEqual(['files', 'bash']);
    const again = await KeptPermissions.open({ file, projectDir: project });
    expect(again.list()).toHaveLength(2);
  });
});
