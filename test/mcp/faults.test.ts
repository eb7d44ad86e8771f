/**
 * Servers that misbehave: hang on startup, print junk, crash, take too long. Each fault is a
 * fixture server in test/fixtures/servers.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  firstText,
  fixture,
  isAlive,
  liveChildren,
  logCollector,
  testEnvironment,
  toolCall,
  startPool,
  closePoolsAfterEach,
} from './support.js';

closePoolsAfterEach();

describe('startup faults', () => {
  it('gives up on a server that never answers initialize, and uses the others', async () => {
    const collector = logCollector();
    const pool = await startPool({
      servers: {
        stuck: fixture('never-initializes.mjs', { initTimeoutMs: 1_000 }),
        good: fixture('good-server.mjs'),
      },
      env: testEnvironment(),
      log: collector.log,
    });
    expect(pool.status().map((status) => [status.name, status.state])).toEqual([
      ['stuck', 'failed'],
      ['good', 'ready'],
    ]);
    const stuck = pool.status()[0];
    expect(stuck?.lastError).toBe('failed to start: did not answer "initialize" within 1000 ms');
    expect(stuck?.pid).toBeUndefined();
    expect(collector.warnings()).toEqual([
      'server "stuck" failed to start: did not answer "initialize" within 1000 ms\n' +
        '  last stderr lines:\n' +
        '    stuck waiting for something',
    ]);
    // The stuck process was ended, not left waiting.
    expect(liveChildren()).toHaveLength(1);
    expect((await pool.tools()).map((tool) => tool.name)).toContain('good__echo');
  });

  it('takes the pool-wide init timeout when the server has none', async () => {
    const pool = await startPool({
      servers: { stuck: fixture('never-initializes.mjs') },
      env: testEnvironment(),
      initTimeoutMs: 700,
    });
    expect(pool.status()[0]?.lastError).toBe('failed to start: did not answer "initialize" within 700 ms');
  });

  it('skips junk lines on stdout and logs them for --debug', async () => {
    const collector = logCollector();
    const pool = await startPool({
      servers: { junk: fixture('junk-stdout.mjs') },
      env: testEnvironment(),
      log: collector.log,
    });
    expect(pool.status()[0]?.state).toBe('ready');
    const result = await pool.call(toolCall('junk__echo', { message: 'through the noise' }));
    expect(result).toMatchObject({
      isError: false,
      content: [{ type: 'text', text: 'echo: through the noise' }],
    });
    const debug = collector.entries.filter((entry) => entry.level === 'debug').map((entry) => entry.message);
    expect(debug).toContain('skipped a stdout line (not JSON): Starting junk server v1.2...');
    expect(debug).toContain('skipped a stdout line (not JSON): { this is not json');
    expect(debug).toContain(
      'skipped a stdout line (not a JSON-RPC message): {"hello":"valid JSON but not JSON-RPC"}',
    );
    expect(debug).toContain('skipped a stdout line (not JSON): handling echo');
    expect(collector.warnings()).toEqual([]);
  });
});

describe('crashes', () => {
  it('fails the call in flight as data, marks the server down, and restarts it on next use', async () => {
    const collector = logCollector();
    const pool = await startPool({
      servers: { fragile: fixture('exits-mid-call.mjs') },
      env: testEnvironment(),
      log: collector.log,
    });
    const firstPid = Number(firstText(await pool.call(toolCall('fragile__pid'))));

    const crashed = await pool.call(toolCall('fragile__crash'));
    expect(crashed.isError).toBe(true);
    expect(firstText(crashed)).toBe(
      'server "fragile" stopped during the call to "crash" (the server exited with code 7); ' +
        'it will be restarted on the next call.\nLast stderr lines:\nfatal: out of cheese',
    );
    // It quotes the server's stderr: screened and marked as the server's words.
    expect(crashed.origin).toBe('server');
    expect(pool.status()[0]).toMatchObject({
      state: 'down',
      lastError: 'stopped unexpectedly (exited with code 7)',
      stderrTail: ['fatal: out of cheese'],
      toolCount: 2,
    });
    expect(collector.warnings()[0]).toContain(
      'server "fragile" stopped unexpectedly (exited with code 7); it will be restarted when next used',
    );
    // Its tools are still offered, so that the model can use them again.
    expect((await pool.tools()).map((tool) => tool.name)).toEqual(['fragile__crash', 'fragile__pid']);

    const again = await pool.call(toolCall('fragile__pid'));
    expect(again.isError).toBe(false);
    const secondPid = Number(firstText(again));
    expect(secondPid).not.toBe(firstPid);
    expect(isAlive(firstPid)).toBe(false);
    expect(pool.status()[0]).toMatchObject({ state: 'ready', restarts: 1, pid: secondPid });
  });

  it('backs off after a failed restart and gives up after three failures in a row', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'mcphost-restart-'));
    let clock = 1_000_000;
    const collector = logCollector();
    try {
      const pool = await startPool({
        servers: {
          fragile: fixture('exits-mid-call.mjs', { env: { RESTART_MARKER: join(directory, 'started') } }),
        },
        env: testEnvironment(),
        log: collector.log,
        now: () => clock,
      });
      expect((await pool.call(toolCall('fragile__crash'))).isError).toBe(true); // failure 1: crash

      const second = await pool.call(toolCall('fragile__pid')); // failure 2: the restart fails
      expect(firstText(second)).toBe(
        'server "fragile" is down: could not be restarted: exited with code 5 before answering "initialize"',
      );
      expect(collector.warnings()[1]).toContain('it will be restarted when next used, after 1 s');
      expect(collector.warnings()[1]).toContain('refusing to start again');

      clock += 1_000; // the backoff has passed
      const third = await pool.call(toolCall('fragile__pid')); // failure 3: given up
      expect(third.isError).toBe(true);
      expect(firstText(third)).toBe(
        'server "fragile" is not available: could not be restarted: exited with code 5 before answering "initialize"',
      );
      expect(pool.status()[0]).toMatchObject({ state: 'failed', toolCount: 0 });
      expect(collector.warnings()[2]).toContain('giving up after 3 failures in a row');
      expect(collector.warnings()).toHaveLength(3);
      // Its tools are withdrawn from the model.
      expect(await pool.tools()).toEqual([]);
      expect(firstText(await pool.call(toolCall('fragile__pid')))).toContain('unknown tool');
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describe('slow tools', () => {
  it('times a call out, cancels it on the server, and answers with an error result', async () => {
    const collector = logCollector();
    const pool = await startPool({
      servers: { slow: fixture('slow-tool.mjs', { toolTimeoutMs: 300 }) },
      env: testEnvironment(),
      log: collector.log,
    });
    const result = await pool.call(toolCall('slow__sleep', { ms: 20_000 }));
    expect(result).toMatchObject({
      isError: true,
      origin: 'host',
      content: [
        {
          type: 'text',
          text: '"sleep" on server "slow" did not finish within 300 ms; the call was cancelled',
        },
      ],
    });
    await expect
      .poll(() => collector.entries.some((entry) => /^stderr: stopped request \d+$/.test(entry.message)))
      .toBe(true);
    // The server is still usable.
    expect(firstText(await pool.call(toolCall('slow__sleep', { ms: 1 })))).toBe('slept 1 ms');
  });

  it('lets progress notifications extend the timeout', async () => {
    const pool = await startPool({
      servers: { slow: fixture('slow-tool.mjs') },
      env: testEnvironment(),
      toolTimeoutMs: 600,
    });
    const result = await pool.call(toolCall('slow__sleep', { ms: 2_000, progressEveryMs: 50 }));
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'slept 2000 ms' }] });
  });

  it('stops a call that keeps reporting progress at the maximum', async () => {
    const pool = await startPool({
      servers: { slow: fixture('slow-tool.mjs') },
      env: testEnvironment(),
      toolTimeoutMs: 400,
      maxToolTimeoutMs: 1_000,
    });
    const result = await pool.call(toolCall('slow__sleep', { ms: 20_000, progressEveryMs: 50 }));
    expect(firstText(result)).toBe(
      '"sleep" on server "slow" did not finish within the maximum of 1000 ms; the call was cancelled',
    );
  });

  it('cancels a call when the signal aborts, on the server too', async () => {
    const collector = logCollector();
    const pool = await startPool({
      servers: { slow: fixture('slow-tool.mjs') },
      env: testEnvironment(),
      log: collector.log,
    });
    const controller = new AbortController();
    const pending = pool.call(
      toolCall('slow__sleep', { ms: 20_000, progressEveryMs: 20 }),
      controller.signal,
    );
    // Abort once the server is working on it (it reports progress).
    await expect.poll(() => collector.entries.some((entry) => entry.message.includes('progress'))).toBe(true);
    controller.abort();
    expect(firstText(await pending)).toBe('the call to "sleep" was cancelled');
    await expect
      .poll(() => collector.entries.some((entry) => entry.message.startsWith('stderr: stopped request')))
      .toBe(true);
  });

  it('answers at once when the signal is already aborted', async () => {
    const pool = await startPool({ servers: { slow: fixture('slow-tool.mjs') }, env: testEnvironment() });
    const result = await pool.call(toolCall('slow__sleep', { ms: 20_000 }), AbortSignal.abort());
    expect(result).toMatchObject({
      isError: true,
      origin: 'host',
      content: [{ type: 'text', text: 'the call to "sleep" was cancelled' }],
    });
  });
});

describe('tool lists', () => {
  it('reads every page of tools/list', async () => {
    const pool = await startPool({ servers: { paged: fixture('paginated.mjs') }, env: testEnvironment() });
    expect((await pool.tools()).map((tool) => tool.name)).toEqual([
      'paged__one',
      'paged__two',
      'paged__three',
      'paged__add_tool',
    ]);
  });

  it('refreshes a server’s tools after it announces tools/list_changed', async () => {
    const pool = await startPool({ servers: { paged: fixture('paginated.mjs') }, env: testEnvironment() });
    expect((await pool.tools()).map((tool) => tool.name)).not.toContain('paged__four');
    expect(firstText(await pool.call(toolCall('paged__add_tool')))).toBe('added');
    expect((await pool.tools()).map((tool) => tool.name)).toContain('paged__four');
    expect(firstText(await pool.call(toolCall('paged__four')))).toBe('called four');
    expect(pool.status()[0]?.toolCount).toBe(5);
  });

  it('offers only allowedTools', async () => {
    const pool = await startPool({
      servers: { good: fixture('good-server.mjs', { allowedTools: ['echo', 'pid'] }) },
      env: testEnvironment(),
    });
    expect((await pool.tools()).map((tool) => tool.name)).toEqual(['good__echo', 'good__pid']);
    const refused = await pool.call(toolCall('good__environment'));
    expect(firstText(refused)).toContain('unknown tool "good__environment"');
  });

  it('never offers excludedTools', async () => {
    const pool = await startPool({
      servers: { good: fixture('good-server.mjs', { excludedTools: ['environment', 'fail'] }) },
      env: testEnvironment(),
    });
    expect((await pool.tools()).map((tool) => tool.name)).toEqual(['good__echo', 'good__pid']);
    expect(pool.status()[0]?.toolCount).toBe(2);
  });
});

describe('server environment', () => {
  const parent = testEnvironment({
    OPENAI_API_KEY: 'sk-secret',
    MCPHOST_TEST_LOCALE: 'x',
    LC_ALL: 'C.UTF-8',
  });

  async function environmentSeenBy(extra: Parameters<typeof fixture>[1]): Promise<Record<string, string>> {
    const pool = await startPool({ servers: { good: fixture('good-server.mjs', extra) }, env: parent });
    return JSON.parse(firstText(await pool.call(toolCall('good__environment')))) as Record<string, string>;
  }

  it('gives a stdio server a minimal environment plus its configured env, never our keys', async () => {
    const seen = await environmentSeenBy({ env: { SERVER_SETTING: 'on', HOME: '/custom/home' } });
    expect(seen.OPENAI_API_KEY).toBeUndefined();
    expect(seen.MCPHOST_TEST_LOCALE).toBeUndefined();
    expect(seen.SERVER_SETTING).toBe('on');
    expect(seen.HOME).toBe('/custom/home');
    expect(seen.PATH).toBe(parent.PATH);
    expect(seen.LC_ALL).toBe('C.UTF-8');
  });

  it('passes our whole environment with inheritEnv', async () => {
    const seen = await environmentSeenBy({ inheritEnv: true });
    expect(seen.OPENAI_API_KEY).toBe('sk-secret');
    expect(seen.MCPHOST_TEST_LOCALE).toBe('x');
  });
});
