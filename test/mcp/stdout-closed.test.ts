/** A server whose stdout closes while its process lives is down at once, not after the tool timeout. */
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
