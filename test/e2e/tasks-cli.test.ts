/**
 * Tasks from the command line: a tool call that runs as a task is journaled with its id, so that
 * `-c` after mcphost was killed mid-task follows the task to its result and the model reads it.
 * Against the tasks fixture (v2 server SDK), whose tasks outlive its process as a durable server's do.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { textReply, toolCallReply } from '../fakes/ollama-server.js';
import { REPOSITORY, runCli, startCli } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';

const TASKS_SERVER = join(REPOSITORY, 'test/fixtures/servers/tasks-server.mjs');

let stateDir: string;
const fixture = useCliFixture({});

beforeEach(async () => {
  stateDir = await fixture.temporaryFolder('mcphost-tasks-state-');
  await fixture.home.writeConfig({
    mcpServers: {
      jobs: { command: process.execPath, args: [TASKS_SERVER], env: { TASKS_STATE_DIR: stateDir } },
    },
  });
});

const sessions = () =>
  join(
    fixture.home.path,
    '.local/state/mcphost/sessions',
    resolve(fixture.home.path).replace(/[^A-Za-z0-9._-]/g, '-'),
  );

function journalText(): string {
  const folder = sessions();
  if (!existsSync(folder)) return '';
  return readdirSync(folder)
    .map((file) => readFileSync(join(folder, file), 'utf8'))
    .join('');
}

describe('tasks from the command line', () => {
  it('-c after mcphost was killed mid-task follows the task to its result, and the model reads it', async () => {
    await fixture.startModel([toolCallReply(['jobs__slow_job', { ms: 3000, steps: 3 }])], {
      fallback: textReply('the job said: done'),
    });
    const first = startCli(
      ['-p', 'run the slow job', '--approve-all', '--provider-url', fixture.model.url],
      fixture.home.path,
    );
    first.child.stdin.end();
    // Killed (no chance to cancel anything) once the task is in the journal.
    const taskEntry = await new Promise<{ taskId: string; toolCallId: string }>((resolvePoll, reject) => {
      const started = Date.now();
      const look = setInterval(() => {
        const line = journalText()
          .split('\n')
          .find((text) => text.includes('"type":"task"'));
        if (line !== undefined) {
          clearInterval(look);
          resolvePoll(JSON.parse(line) as { taskId: string; toolCallId: string });
        } else if (Date.now() - started > 20_000) {
          clearInterval(look);
          reject(new Error(`no task in the journal; stderr:\n${first.stderr()}`));
        }
      }, 50);
    });
    first.child.kill('SIGKILL');
    await first.done;
    expect(taskEntry).toMatchObject({ type: 'task', server: 'jobs', tool: 'slow_job' });

    const auditLog = join(stateDir, 'audit.jsonl');
    const second = await runCli(
      ['-c', '-p', 'what did the job say?', '--provider-url', fixture.model.url, '--audit-log', auditLog],
      fixture.home.path,
    );
    expect(second.stderr).toContain(
      `following task ${taskEntry.taskId} ("slow_job" on server "jobs"), left running by the previous session`,
    );
    expect(second.stderr).toContain(`task ${taskEntry.taskId} finished`);
    expect(second.code).toBe(0);
    const request = fixture.model.chatRequests.at(-1);
    const toolMessage = request?.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toContain('slow job done after 3 steps');
    expect(request?.messages.at(-1)).toMatchObject({ role: 'user', content: 'what did the job say?' });
    // The real result is in the journal now, so a third run has it without following anything.
    expect(journalText()).toContain('slow job done after 3 steps');
    // The followed result passed the guard's result stages like any call's: it has its audit line.
    const audited = readFileSync(auditLog, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(audited).toEqual([
      expect.objectContaining({
        server: 'jobs',
        tool: 'slow_job',
        decidedBy: 'resumed-task',
        isError: false,
      }),
    ]);
  });

  it('-p shows the statuses of a task as stream-json progress events with the task id, and its result as the tool result', async () => {
    await fixture.startModel([toolCallReply(['jobs__slow_job', { ms: 300, steps: 2 }]), textReply('done')]);
    const run = await runCli(
      [
        '-p',
        'run it',
        '--approve-all',
        '--output-format',
        'stream-json',
        '--provider-url',
        fixture.model.url,
      ],
      fixture.home.path,
    );
    expect(run.code).toBe(0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map(
        (line) => JSON.parse(line) as { type: string; id?: string; task?: { id: string; status: string } },
      );
    const call = events.find((event) => event.type === 'tool-call');
    const progress = events.filter((event) => event.type === 'progress');
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.every((event) => event.id === call?.id && event.task?.id === progress[0]?.task?.id)).toBe(
      true,
    );
    expect(progress[0]).toMatchObject({
      server: 'jobs',
      tool: 'slow_job',
      progress: 1,
      task: { status: 'working' },
    });
    expect(progress.at(-1)).toMatchObject({
      message: 'task completed: all steps done',
      task: { status: 'completed' },
    });
    expect(JSON.stringify(events.find((event) => event.type === 'tool-result'))).toContain(
      'slow job done after 2 steps',
    );
  });

  it('a closed terminal (SIGHUP) leaves the task running, unlike Ctrl-C; -c then follows it', async () => {
    await fixture.startModel([toolCallReply(['jobs__slow_job', { ms: 2500, steps: 2 }])], {
      fallback: textReply('noted'),
    });
    const first = startCli(
      ['-p', 'run the slow job', '--approve-all', '--provider-url', fixture.model.url],
      fixture.home.path,
    );
    first.child.stdin.end();
    await expect.poll(() => journalText().includes('"type":"task"'), { timeout: 20_000 }).toBe(true);
    first.child.kill('SIGHUP');
    const stopped = await first.done;
    expect(stopped.code).toBe(129);
    const taskId = /"taskId":"([0-9a-f-]+)"/.exec(journalText())?.[1];
    expect(existsSync(join(stateDir, 'cancels.log'))).toBe(false);

    const second = await runCli(['-c', '-p', 'and?', '--provider-url', fixture.model.url], fixture.home.path);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain(`task ${taskId} finished`);
    const toolMessage = fixture.model.chatRequests
      .at(-1)
      ?.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toContain('slow job done after 2 steps');
  });
});
