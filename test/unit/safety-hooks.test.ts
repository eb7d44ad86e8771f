/**
 * Hooks with real shell scripts (test/fixtures/hooks): block and pass paths for every event, and
 * the process rules (minimal environment, time limit, nothing left running).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GuardedToolHost } from '../../src/safety/guarded-tool-host.js';
import { hookMatcherMatches } from '../../src/safety/hooks.js';
import { hookCommand } from '../fixtures/hooks/commands.js';
import { isAlive } from '../support/cli.js';
import {
  call,
  folder,
  hookRunner,
  one,
  recorded,
  text,
  tools,
  useHookFolder,
} from '../support/hook-fixtures.js';

useHookFolder();

describe('hook matchers (the Go mcphost semantics)', () => {
  it.each([
    [undefined, 'files__write', true],
    ['', 'files__write', true],
    ['*', 'files__write', true],
    ['files__write', 'files__write', true],
    ['write', 'files__write', true],
    ['^files__', 'files__read', true],
    ['^files__', 'myfiles__read', false],
    ['^files__read$', 'files__read_all', false],
    ['write|delete', 'memory__delete_entities', true],
    ['(', 'files__write', false],
  ])('%s matches %s: %s', (matcher, name, expected) => {
    expect(hookMatcherMatches(matcher, name)).toBe(expected);
  });
});

describe('PreToolUse', () => {
  it('blocks by exit code 2: the call is never run and the model reads the hook reason', async () => {
    const host = tools();
    const guard = new GuardedToolHost({
      host,
      hooks: hookRunner({ PreToolUse: one(hookCommand('block-exit2.sh', 'no writing today'), 'write') }),
    });
    const result = await guard.call(call('files__write', { path: '/tmp/x' }));
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      'A PreToolUse hook blocked the call to files__write: no writing today. It was not run.',
    );
    expect(host.calls).toEqual([]);
    // The matcher leaves other tools alone.
    expect(text(await guard.call(call('files__read')))).toBe('the secret word is mango');
  });

  it('blocks by {"decision": "block"} on stdout', async () => {
    const host = tools();
    const guard = new GuardedToolHost({
      host,
      hooks: hookRunner({ PreToolUse: one(hookCommand('block-json.sh', 'policy says no')) }),
    });
    const result = await guard.call(call('files__read'));
    expect(text(result)).toBe(
      'A PreToolUse hook blocked the call to files__read: policy says no. It was not run.',
    );
    expect(host.calls).toEqual([]);
  });

  it('passes the event as JSON on stdin with the Go mcphost fields, and lets the call run', async () => {
    const log = join(folder, 'pre.jsonl');
    const host = tools();
    const guard = new GuardedToolHost({
      host,
      locate: async () => ({ server: 'files', tool: 'write' }),
      hooks: hookRunner({ PreToolUse: one(hookCommand('record.sh', log)) }),
    });
    expect(text(await guard.call(call('files__write', { path: '/tmp/y' })))).toBe('wrote /tmp/y');
    expect(await recorded(log)).toEqual([
      {
        session_id: 'session-1',
        transcript_path: '',
        cwd: folder,
        hook_event_name: 'PreToolUse',
        timestamp: 1_700_000_000,
        model: 'ollama:test',
        interactive: false,
        tool_name: 'files__write',
        tool_input: { path: '/tmp/y' },
        mcp_server: 'files',
        mcp_tool: 'write',
      },
    ]);
  });

  it('blocks the call that matches, by content, and passes the others', async () => {
    const host = tools();
    const guard = new GuardedToolHost({
      host,
      hooks: hookRunner({ PreToolUse: one(hookCommand('block-if.sh', '/etc/')) }),
    });
    expect((await guard.call(call('files__write', { path: '/etc/passwd' }))).isError).toBe(true);
    expect((await guard.call(call('files__write', { path: '/tmp/ok' }))).isError).toBe(false);
    expect(host.calls.map((c) => c.input)).toEqual([{ path: '/tmp/ok' }]);
  });

  it('approve: a call the policy would ask about runs without asking', async () => {
    const host = tools();
    const guard = new GuardedToolHost({
      host,
      safety: { approval: [{ source: 'cfg', rules: [], default: 'ask' }] },
      questions: { approveToolCall: () => Promise.reject(new Error('must not ask')) },
      hooks: hookRunner({ PreToolUse: one(hookCommand('approve.sh')) }),
    });
    expect((await guard.call(call('files__read'))).isError).toBe(false);
    expect(host.calls).toHaveLength(1);
  });

  it('ask: the user is asked even where the policy allows, with the hook reason', async () => {
    const reasons: string[] = [];
    const guard = new GuardedToolHost({
      host: tools(),
      questions: {
        approveToolCall: async (request) => {
          reasons.push(request.reason);
          return { kind: 'deny' };
        },
      },
      hooks: hookRunner({ PreToolUse: one(hookCommand('ask.sh')) }),
    });
    expect((await guard.call(call('files__read'))).isError).toBe(true);
    expect(reasons).toEqual(['the hook wants a human to look']);
  });

  it('a deny rule wins before any hook runs', async () => {
    const log = join(folder, 'never.jsonl');
    const guard = new GuardedToolHost({
      host: tools(),
      safety: { approval: [{ source: 'cfg', rules: [{ tool: '*', decision: 'deny' }] }] },
      hooks: hookRunner({ PreToolUse: one(hookCommand('record.sh', log)) }),
    });
    expect((await guard.call(call('files__read'))).isError).toBe(true);
    await expect(readFile(log, 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('a failing hook, a timed-out hook and unreadable output warn but do not block', async () => {
    const warnings: string[] = [];
    const pidFile = join(folder, 'child.pid');
    const host = tools();
    const guard = new GuardedToolHost({
      host,
      hooks: hookRunner(
        {
          PreToolUse: [
            { hooks: [{ command: hookCommand('fail.sh') }] },
            { hooks: [{ command: hookCommand('not-json.sh') }] },
            { hooks: [{ command: hookCommand('sleeper.sh', pidFile), timeoutSeconds: 0.5 }] },
          ],
        },
        warnings,
      ),
    });
    expect((await guard.call(call('files__read'))).isError).toBe(false);
    expect(host.calls).toHaveLength(1);
    expect(warnings).toHaveLength(3);
    expect(warnings.find((warning) => warning.includes('fail.sh'))).toContain(
      'failed with exit code 1: the hook itself broke; it did not block anything',
    );
    expect(warnings.find((warning) => warning.includes('not-json.sh'))).toContain('not valid JSON');
    expect(warnings.find((warning) => warning.includes('sleeper.sh'))).toContain(
      'did not finish within 0.5s',
    );
    // The child the timed-out hook started went with it: its whole process group was killed.
    const childPid = Number(await readFile(pidFile, 'utf8'));
    expect(childPid).toBeGreaterThan(0);
    await expect.poll(() => isAlive(childPid)).toBe(false);
  });
});

describe('hook processes', () => {
  it('get a minimal environment: no API keys', async () => {
    const dump = join(folder, 'env.txt');
    await hookRunner({ Stop: one(hookCommand('environment.sh', dump)) }).run('Stop', {});
    const seen = await readFile(dump, 'utf8');
    expect(seen).toContain('HOME=/home/ada');
    expect(seen).toContain(`MCPHOST_PROJECT_DIR=${folder}`);
    expect(seen).not.toContain('ANTHROPIC_API_KEY');
    expect(seen).not.toContain('sk-ant-secret-value');
  });

  it('leave nothing running behind them', async () => {
    const pidFile = join(folder, 'background.pid');
    const verdict = await hookRunner({ Stop: one(hookCommand('leave-background.sh', pidFile)) }).run(
      'Stop',
      {},
    );
    expect(verdict).toEqual({ kind: 'none' });
    const pid = Number(await readFile(pidFile, 'utf8'));
    expect(pid).toBeGreaterThan(0);
    await expect.poll(() => isAlive(pid)).toBe(false);
  });

  it('answer when the shell exits, even if a detached job still holds their stdout', async () => {
    const detachedFile = join(folder, 'detached.pid');
    const groupFile = join(folder, 'group.pid');
    const warnings: string[] = [];
    // The detached job outlives the 4 s limit: waiting for the pipes to close would time out.
    const command = hookCommand('detach-background.sh', detachedFile, groupFile, '10');
    try {
      const verdict = await hookRunner({ PreToolUse: one(command, undefined, 4) }, warnings).run(
        'PreToolUse',
        {},
        { toolName: 'files__write' },
      );
      expect(warnings).toEqual([]);
      expect(verdict).toEqual({ kind: 'block', reason: 'answered before the background jobs ended' });
      // The job left in the hook's process group is still killed with it.
      const inGroup = Number(await readFile(groupFile, 'utf8'));
      expect(inGroup).toBeGreaterThan(0);
      await expect.poll(() => isAlive(inGroup)).toBe(false);
    } finally {
      const detached = Number(await readFile(detachedFile, 'utf8').catch(() => '0'));
      if (detached > 0 && isAlive(detached)) process.kill(detached, 'SIGKILL');
    }
  }, 40_000);

  it('run every matching hook, and report every blocking reason', async () => {
    const verdict = await hookRunner({
      PreToolUse: [
        { matcher: 'files', hooks: [{ command: hookCommand('block-exit2.sh', 'first reason') }] },
        { matcher: 'memory', hooks: [{ command: hookCommand('block-exit2.sh', 'not this one') }] },
        { hooks: [{ command: hookCommand('block-json.sh', 'second reason') }] },
      ],
    }).run('PreToolUse', { tool_name: 'files__read' }, { toolName: 'files__read' });
    expect(verdict).toEqual({ kind: 'block', reason: 'first reason; second reason' });
  });
});

describe('PostToolUse', () => {
  it('gets the result and lets it through', async () => {
    const log = join(folder, 'post.jsonl');
    const guard = new GuardedToolHost({
      host: tools(),
      hooks: hookRunner({ PostToolUse: one(hookCommand('record.sh', log), 'read') }),
    });
    expect(text(await guard.call(call('files__read')))).toBe('the secret word is mango');
    const [event] = await recorded(log);
    expect(event).toMatchObject({
      hook_event_name: 'PostToolUse',
      tool_name: 'files__read',
      tool_response: { content: [{ type: 'text', text: 'the secret word is mango' }], isError: false },
    });
  });

  it('withholds the result from the model when a hook blocks (the call did run)', async () => {
    const host = tools();
    const guard = new GuardedToolHost({
      host,
      hooks: hookRunner({ PostToolUse: one(hookCommand('block-if.sh', 'secret word')) }),
    });
    const result = await guard.call(call('files__read'));
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      'The call to files__read ran, but a PostToolUse hook withheld its result: found secret word in the input',
    );
    expect(text(result)).not.toContain('mango');
    expect(host.calls).toHaveLength(1);
  });
});
