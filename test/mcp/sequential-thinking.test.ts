/**
 * server-sequential-thinking from npm: one tool with a long description (2,700+ characters, more
 * than OpenAI takes) and a stateful protocol, reached through the pool.
 */
import { describe, expect, it } from 'vitest';
import { npmServer } from '../support/cli.js';
import { closePoolsAfterEach, firstText, startPool, testEnvironment, toolCall } from './support.js';

describe('server-sequential-thinking', () => {
  closePoolsAfterEach();

  it('offers its tool and keeps count of the thoughts across calls', async () => {
    const pool = await startPool({
      servers: {
        thinking: {
          transport: 'stdio',
          command: process.execPath,
          args: [npmServer('sequential-thinking')],
          env: {},
          inheritEnv: false,
        },
      },
      env: testEnvironment(),
    });
    const tools = await pool.tools();
    expect(tools.map((tool) => tool.name)).toEqual(['thinking__sequentialthinking']);
    expect(tools[0]?.description.length).toBeGreaterThan(1024);

    const thought = (thoughtNumber: number) =>
      pool.call(
        toolCall('thinking__sequentialthinking', {
          thought: `step ${thoughtNumber}`,
          thoughtNumber,
          totalThoughts: 2,
          nextThoughtNeeded: thoughtNumber < 2,
        }),
      );
    const first = await thought(1);
    const second = await thought(2);
    expect([first.isError, second.isError]).toEqual([false, false]);
    const state = JSON.parse(firstText(second)) as { thoughtNumber: number; thoughtHistoryLength: number };
    expect(state).toMatchObject({ thoughtNumber: 2, thoughtHistoryLength: 2 });
  });
});
