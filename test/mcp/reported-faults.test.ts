/** Faults reported as what they are: a stdout that closes while the server lives, a start that fails before a page of usage text. */
import { describe, expect, it } from 'vitest';
import {
  closePoolsAfterEach,
  firstText,
  fixture,
  logCollector,
  startPool,
  testEnvironment,
  toolCall,
} from './support.js';

closePoolsAfterEach();

describe('a server that closes its stdout and lives on', () => {
  it('fails the call in flight at once, says why, and is ended', async () => {
    const collector = logCollector();
    const pool = await startPool({
      servers: { mute: fixture('closes-stdout.mjs') },
      env: testEnvironment(),
      log: collector.log,
      toolTimeoutMs: 30_000,
    });
    const started = performance.now();
    const result = await pool.call(toolCall('mute__vanish'));
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(
      /stopped during the call to "vanish" \(it closed its stdout while still running\)/,
    );
    expect(pool.status()[0]).toMatchObject({ state: 'down' });
    expect(pool.status()[0]?.pid).toBeUndefined();
  });
});

describe('a server that fails to start with its reason before a page of usage', () => {
  it('is reported with its first stderr lines as well as its last', async () => {
    const collector = logCollector();
    const pool = await startPool({
      servers: { kube: fixture('usage-after-error.mjs') },
      env: testEnvironment(),
      log: collector.log,
    });
    expect(pool.status()[0]).toMatchObject({ state: 'failed' });
    const warning = collector.warnings()[0] ?? '';
    expect(warning).toMatch(/^server "kube" failed to start: exited with code 2/);
    expect(warning).toContain('first and last stderr lines:\n    error: unknown flag --kubeconfig-typo\n');
    expect(warning).toContain('lines not shown');
    expect(warning).toContain('--option-40');
  });
});
