/**
 * Tool calls that run as tasks (SEP-2663), against the tasks fixture on the v2 server SDK over
 * stdio and Streamable HTTP, through the real pool and the real SDK client.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ServerDefinition } from '../../src/mcp/definition.js';
import type { ToolProgress } from '../../src/mcp/pool.js';
import { unusedPort } from '../support/loopback.js';
import {
  closePoolsAfterEach,
  firstText,
  fixture,
  fixturePath,
  startPool,
  testEnvironment,
  toolCall,
} from './support.js';

const stateDirs: string[] = [];
function stateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcphost-tasks-'));
  stateDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of stateDirs) rmSync(dir, { recursive: true, force: true });
});

function lines(file: string): string[] {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];
}

let httpServer: { child: ChildProcess; url: string; dir: string } | undefined;
closePoolsAfterEach(() => (httpServer?.child.pid === undefined ? [] : [httpServer.child.pid]));

beforeAll(async () => {
  const dir = stateDir();
  const port = await unusedPort();
  const child = spawn(process.execPath, [fixturePath('tasks-server.mjs'), '--http', String(port)], {
    env: { PATH: process.env.PATH ?? '', TASKS_STATE_DIR: dir },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr.setEncoding('utf8');
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
      if (stderr.includes('listening')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`tasks fixture exited (${code}): ${stderr}`)));
  });
  httpServer = { child, url: `http://127.0.0.1:${port}/mcp`, dir };
});

afterAll(async () => {
  if (httpServer === undefined || httpServer.child.exitCode !== null) return;
  const exited = once(httpServer.child, 'exit');
  httpServer.child.kill('SIGKILL');
  await exited;
});

interface Transport {
  readonly name: 'stdio' | 'http';
  /** The server's definition and the folder its task state (and logs) is in. */
  readonly server: (extra?: Partial<ServerDefinition>) => { definition: ServerDefinition; dir: string };
}

const transports: Transport[] = [
  {
    name: 'stdio',
    server: (extra = {}) => {
      const dir = stateDir();
      return {
        definition: {
          ...fixture('tasks-server.mjs', { env: { TASKS_STATE_DIR: dir } }),
          ...extra,
        } as ServerDefinition,
        dir,
      };
    },
  },
  {
    name: 'http',
    server: (extra = {}) => {
      if (httpServer === undefined) throw new Error('no HTTP fixture');
      return {
        definition: { transport: 'http', url: httpServer.url, headers: {}, ...extra } as ServerDefinition,
        dir: httpServer.dir,
      };
    },
  },
];

async function poolWith(definition: ServerDefinition, progress: ToolProgress[] = []) {
  return startPool({
    servers: { jobs: definition },
    env: testEnvironment(),
    onProgress: (report) => progress.push(report),
  });
}

describe.each(transports)('tasks over $name', ({ name, server }) => {
  it('follows a task that reports its steps to its result, shown as progress with the task', async () => {
    const progress: ToolProgress[] = [];
    const { definition, dir } = server();
    const pool = await poolWith(definition, progress);
    const result = await pool.call(toolCall('jobs__slow_job', { ms: 400, steps: 3 }, 'call-1'));
    expect(result.isError).toBe(false);
    expect(firstText(result)).toBe('slow job done after 3 steps');
    const taskIds = new Set(progress.map((report) => report.task?.taskId));
    expect(taskIds.size).toBe(1);
    const [taskId] = [...taskIds];
    expect(taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(progress.every((report) => report.toolCallId === 'call-1' && report.tool === 'slow_job')).toBe(
      true,
    );
    expect(progress[0]?.task?.status).toBe('working');
    expect(progress.at(-1)?.task?.status).toBe('completed');
    expect(progress.map((report) => report.message)).toContain('task working: step 1/3');
    expect(lines(join(dir, 'gets.log'))).toContain(taskId);
    // Finished tasks are no longer listed.
    expect(pool.runningTasks.list()).toEqual([]);
    if (name === 'http') {
      // SEP-2663: tasks/get carries the task id in the Mcp-Name header.
      expect(lines(join(dir, 'http.log'))).toContain(`tasks/get ${taskId}`);
    }
  });

  it('says what a failed task failed with', async () => {
    const pool = await poolWith(server().definition);
    const result = await pool.call(toolCall('jobs__failing_job', { ms: 100 }));
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(
      /^"failing_job" \(task [0-9a-f-]+ on server "jobs"\) failed: the job ran out of disk space \(code -32603\)$/,
    );
  });

  it('cancels a running task with tasks/cancel when the call is aborted, and lists it while it runs', async () => {
    const progress: ToolProgress[] = [];
    const { definition, dir } = server();
    const pool = await poolWith(definition, progress);
    const abort = new AbortController();
    const running = pool.call(toolCall('jobs__endless_job', {}, 'call-endless'), abort.signal);
    // Aborted once the task is seen working (its second status report would never come).
    await expect.poll(() => pool.runningTasks.list().length).toBe(1);
    const [listed] = pool.runningTasks.list();
    expect(listed).toMatchObject({
      server: 'jobs',
      tool: 'endless_job',
      status: 'working',
      toolCallId: 'call-endless',
    });
    abort.abort();
    const result = await running;
    expect(result.isError).toBe(true);
    expect(firstText(result)).toBe(
      `the call to "endless_job" was cancelled (task ${listed?.taskId} was told to stop)`,
    );
    expect(lines(join(dir, 'cancels.log'))).toContain(listed?.taskId);
    expect(pool.runningTasks.list()).toEqual([]);
  });

  it('applies the task timeout to the whole task, and cancels it', async () => {
    const { definition, dir } = server({ taskTimeoutMs: 300 });
    const pool = await poolWith(definition);
    const result = await pool.call(toolCall('jobs__endless_job'));
    expect(result.isError).toBe(true);
    const text = firstText(result);
    expect(text).toMatch(
      /^"endless_job" \(task ([0-9a-f-]+) on server "jobs"\) did not finish within 0.3 s \(the task timeout, "taskTimeout"\); it was told to stop$/,
    );
    const taskId = /task ([0-9a-f-]+)/.exec(text)?.[1];
    expect(lines(join(dir, 'cancels.log'))).toContain(taskId);
  });

  it.each([
    ['no-result', /^server "jobs": task [0-9a-f-]+ said "completed" but gave no result$/],
    [
      'result-working',
      /^server "jobs": task [0-9a-f-]+ said "completed" but gave a result that is not final \(resultType "task", status "working"\)$/,
    ],
    [
      'unknown',
      /^server "jobs": tasks\/get for task [0-9a-f-]+ failed: .*Unknown task: [0-9a-f-]+ \(code -32602\)$/,
    ],
    [
      'backwards',
      /^server "jobs": task [0-9a-f-]+ went from "completed" back to "working" \(a finished task does not change\)$/,
    ],
    [
      'other-id',
      /^server "jobs": it answered tasks\/get for task ([0-9a-f-]+) with another task \(\1-other\)$/,
    ],
  ])('says so when the server lies (%s)', async (lie, message) => {
    const pool = await poolWith(server().definition);
    const result = await pool.call(toolCall('jobs__lying_job', { lie }));
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(message);
  });

  it('with "tasks": "never", declares nothing: a server runs what it can at once, and a tool it runs only as a task fails with a line saying why', async () => {
    const pool = await poolWith(server({ tasks: 'never' }).definition);
    const inline = await pool.call(toolCall('jobs__slow_job', { ms: 400, steps: 2 }));
    expect(firstText(inline)).toBe('slow job done inline after 2 steps');
    const required = await pool.call(toolCall('jobs__required_job'));
    expect(required.isError).toBe(true);
    expect(firstText(required)).toBe(
      'server "jobs" runs "required_job" only as a task, and its config says "tasks": "never"',
    );
  });

  it('an ordinary result of a server that offers tasks is used as it is', async () => {
    const pool = await poolWith(server({ tasks: 'always' }).definition);
    expect(firstText(await pool.call(toolCall('jobs__quick')))).toBe('quick answer');
    expect(firstText(await pool.call(toolCall('jobs__required_job')))).toBe('required job done');
  });
});

describe('tasks: "always"', () => {
  afterEach(() => undefined);
  it('refuses a server that does not offer the extension, saying so', async () => {
    const pool = await startPool({
      servers: { plain: fixture('modern-server.mjs', { tasks: 'always' }) },
      env: testEnvironment(),
    });
    const result = await pool.call(toolCall('plain__echo', { message: 'hi' }));
    expect(result.isError).toBe(true);
    expect(firstText(result)).toBe(
      'server "plain" does not offer tasks (io.modelcontextprotocol/tasks), and its config says "tasks": "always"; "echo" was not called',
    );
  });
});
