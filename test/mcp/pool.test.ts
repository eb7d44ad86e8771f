/**
 * The pool against real MCP servers from npm and small fixture servers: naming, routing, calls,
 * failures as data, startup failures, and process-tree cleanup.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpPool } from '../../src/mcp/pool.js';
import { isValidToolName } from '../../src/mcp/naming.js';
import {
  firstText,
  fixture,
  isAlive,
  liveChildren,
  liveGroupMembers,
  logCollector,
  npmServer,
  stdio,
  fixturePath,
  testEnvironment,
  toolCall,
  startPool,
  closePoolsAfterEach,
} from './support.js';

describe('McpPool with servers from npm', () => {
  let directory: string;
  let pool: McpPool;
  const collector = logCollector();

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'mcphost-pool-'));
    await writeFile(join(directory, 'notes.txt'), 'remember the milk\n');
    pool = await McpPool.start({
      servers: {
        everything: npmServer('@modelcontextprotocol/server-everything', ['stdio']),
        filesystem: npmServer('@modelcontextprotocol/server-filesystem', [directory]),
        memory: npmServer('@modelcontextprotocol/server-memory', [], {
          env: { MEMORY_FILE_PATH: join(directory, 'memory.jsonl') },
        }),
      },
      env: testEnvironment(),
      log: collector.log,
    });
  });

  afterAll(async () => {
    await pool.close();
    await rm(directory, { recursive: true, force: true });
    expect(liveChildren()).toEqual([]);
  });

  it('starts every server and offers their tools as server__tool', async () => {
    expect(pool.status().map((status) => [status.name, status.state])).toEqual([
      ['everything', 'ready'],
      ['filesystem', 'ready'],
      ['memory', 'ready'],
    ]);
    const names = (await pool.tools()).map((tool) => tool.name);
    expect(names).toContain('everything__echo');
    expect(names).toContain('filesystem__read_text_file');
    expect(names).toContain('memory__create_entities');
    for (const name of names) expect(isValidToolName(name)).toBe(true);
    expect(collector.warnings()).toEqual([]);
  });

  it('gives each tool its description and input schema', async () => {
    const echo = (await pool.tools()).find((tool) => tool.name === 'everything__echo');
    expect(echo?.description).toBe('Echoes back the input string');
    expect(echo?.inputSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } } });
  });

  it('describes tools with their real server and tool names', async () => {
    const descriptions = await pool.describeTools();
    expect(descriptions).toContainEqual({
      exposedName: 'filesystem__list_directory',
      server: 'filesystem',
      tool: 'list_directory',
      description: expect.any(String) as string,
      // server-filesystem annotates it as read-only; the pool passes the server's hints on.
      hints: expect.objectContaining({ readOnly: true }) as unknown,
    });
  });

  it('routes a call to the right server and maps its result', async () => {
    const result = await pool.call(toolCall('everything__echo', { message: 'hello pool' }, 'id-1'));
    expect(result).toEqual({
      type: 'tool-result',
      toolCallId: 'id-1',
      toolName: 'everything__echo',
      content: [{ type: 'text', text: 'Echo: hello pool' }],
      isError: false,
    });
  });

  it('reads a file through the filesystem server', async () => {
    const result = await pool.call(
      toolCall('filesystem__read_text_file', { path: join(directory, 'notes.txt') }),
    );
    expect(result.isError).toBe(false);
    expect(firstText(result)).toBe('remember the milk\n');
  });

  it('maps an image result to an image block', async () => {
    const result = await pool.call(toolCall('everything__get-tiny-image'));
    const image = result.content.find((block) => block.type === 'image');
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png' });
  });

  it('stores and reads back through the memory server', async () => {
    const created = await pool.call(
      toolCall('memory__create_entities', {
        entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }],
      }),
    );
    expect(created.isError).toBe(false);
    const found = await pool.call(toolCall('memory__open_nodes', { names: ['Ada'] }));
    expect(firstText(found)).toContain('wrote the first program');
  });

  it('answers a failing tool call as an error result, not an exception', async () => {
    const result = await pool.call(toolCall('filesystem__read_text_file', { path: '/etc/hostname' }));
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(/denied|outside|not allowed/i);
  });

  it('answers bad arguments as an error result', async () => {
    const result = await pool.call(toolCall('everything__echo', { wrong: 1 }));
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain('message');
  });

  it('answers an unknown tool as an error result naming it', async () => {
    const result = await pool.call(toolCall('nowhere__nothing', {}, 'id-9'));
    expect(result).toEqual({
      type: 'tool-result',
      toolCallId: 'id-9',
      toolName: 'nowhere__nothing',
      content: [
        { type: 'text', text: 'unknown tool "nowhere__nothing": no MCP server offers a tool by that name' },
      ],
      isError: true,
      // The host's words: sent to the model plain, not screened as a server's output.
      origin: 'host',
    });
  });
});

describe('McpPool startup failures', () => {
  closePoolsAfterEach();

  it('uses the good server and reports the one that cannot start, with its stderr', async () => {
    const collector = logCollector();
    const pool = await startPool({
      servers: { broken: fixture('fail-on-start.mjs'), good: fixture('good-server.mjs') },
      env: testEnvironment(),
      log: collector.log,
    });

    expect((await pool.tools()).map((tool) => tool.name)).toEqual([
      'good__echo',
      'good__environment',
      'good__fail',
      'good__pid',
    ]);
    expect(firstText(await pool.call(toolCall('good__echo', { message: 'still here' })))).toBe(
      'echo: still here',
    );

    const broken = pool.status().find((status) => status.name === 'broken');
    expect(broken).toMatchObject({ state: 'failed', toolCount: 0 });
    expect(broken?.lastError).toContain('exited with code 3');
    expect(broken?.stderrTail).toEqual(['loading configuration', 'Error: DATABASE_URL is not set']);

    const warnings = collector.warnings();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('server "broken" failed to start: exited with code 3');
    expect(warnings[0]).toContain('Error: DATABASE_URL is not set');
    expect(collector.entries.every((entry) => entry.server === 'broken' || entry.level === 'debug')).toBe(
      true,
    );
  });

  it('reports the exit status of a server that exits at once, not the failed write to it', async () => {
    const collector = logCollector();
    const pool = await startPool({
      servers: { quick: stdio('sh', ['-c', 'echo boom >&2; exit 3']) },
      env: testEnvironment(),
      log: collector.log,
    });
    expect(collector.warnings()[0]).toContain('server "quick" failed to start: exited with code 3');
    expect(collector.warnings()[0]).not.toContain('EPIPE');
    await pool.close();
  });

  it('reports a command that does not exist', async () => {
    const collector = logCollector();
    const pool = await startPool({
      servers: { missing: stdio('/definitely/not/a/command', []) },
      env: testEnvironment(),
      log: collector.log,
    });
    expect(pool.status()[0]).toMatchObject({ name: 'missing', state: 'failed' });
    expect(collector.warnings()[0]).toMatch(
      /server "missing" failed to start: no such command "\/definitely\/not\/a\/command"/,
    );
    expect(await pool.tools()).toEqual([]);
  });

  it('says a missing working folder is the cause, not the command (Node reports both as ENOENT)', async () => {
    const collector = logCollector();
    const pool = await startPool({
      servers: { misplaced: stdio('sh', [], { cwd: '/definitely/not/a/folder' }) },
      env: testEnvironment(),
      log: collector.log,
    });
    expect(collector.warnings()).toEqual([
      'server "misplaced" failed to start: its working folder "/definitely/not/a/folder" does not exist',
    ]);
    await pool.close();
  });

  it('answers a call to a server that failed as an error result', async () => {
    const pool = await startPool({
      servers: { broken: fixture('fail-on-start.mjs') },
      env: testEnvironment(),
    });
    const result = await pool.call(toolCall('broken__anything'));
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain('unknown tool');
  });
});

describe('McpPool process cleanup', () => {
  closePoolsAfterEach();

  it('ends a server started through sh -c together with the child it spawned', async () => {
    const pool = await startPool({
      servers: {
        // "; exit" keeps sh alive as the parent (no exec), like npx keeps node under it.
        spawner: stdio('sh', ['-c', `"${process.execPath}" "${fixturePath('spawner.mjs')}"; exit $?`]),
      },
      env: testEnvironment(),
    });
    const shellPid = pool.status()[0]?.pid;
    expect(shellPid).toBeTypeOf('number');
    const { pid, childPid } = JSON.parse(firstText(await pool.call(toolCall('spawner__pids')))) as {
      pid: number;
      childPid: number;
    };
    expect(pid).not.toBe(shellPid);
    expect([shellPid, pid, childPid].map((each) => isAlive(each!))).toEqual([true, true, true]);

    await pool.close();

    expect([shellPid, pid, childPid].map((each) => isAlive(each!))).toEqual([false, false, false]);
    expect(liveGroupMembers(shellPid!)).toEqual([]);
  });

  it('close() is idempotent and later calls are answered as errors', async () => {
    const pool = await startPool({ servers: { good: fixture('good-server.mjs') }, env: testEnvironment() });
    expect(await pool.tools()).toHaveLength(4);
    const pid = pool.status()[0]?.pid;
    await Promise.all([pool.close(), pool.close()]);
    await pool.close();
    expect(isAlive(pid!)).toBe(false);
    const result = await pool.call(toolCall('good__echo', { message: 'late' }));
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain('shut down');
  });

  it('killSync() ends every server at once', async () => {
    const pool = await startPool({
      servers: { one: fixture('good-server.mjs'), two: fixture('spawner.mjs') },
      env: testEnvironment(),
    });
    const { childPid } = JSON.parse(firstText(await pool.call(toolCall('two__pids')))) as {
      childPid: number;
    };
    const pids = pool.status().map((status) => status.pid!);
    pool.killSync();
    await expect.poll(() => [...pids, childPid].filter((pid) => isAlive(pid))).toEqual([]);
  });

  it('removes its process exit hook on close', async () => {
    const before = process.listenerCount('exit');
    const pool = await startPool({ servers: {}, env: testEnvironment() });
    expect(process.listenerCount('exit')).toBe(before + 1);
    await pool.close();
    expect(process.listenerCount('exit')).toBe(before);
  });
});
