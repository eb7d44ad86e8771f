/**
 * Built-in servers end to end: the built CLI with `-p`, the loopback fake Ollama as the model, the
 * built-in servers turned on by `--builtin` and by a `"type": "builtin"` config entry, through the
 * same approval rules and audit log as any server.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { textReply, toolCallReply, type FakeChatRequest } from '../fakes/ollama-server.js';
import { runCli } from '../support/cli.js';
import { useCliFixture } from '../support/cli-fixture.js';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback.js';
import { unwrapped } from '../support/untrusted.js';

const fixture = useCliFixture();
let work: string;
let site: LoopbackServer | undefined;

beforeEach(async () => {
  work = await fixture.temporaryFolder('mcphost-builtin-work-');
});
afterEach(async () => {
  await site?.close();
  site = undefined;
});

/** The tool results the model was sent in its last request, in order (the text inside the envelope). */
function toolResults(request: FakeChatRequest): string[] {
  const messages = request.messages;
  const lastAssistant = messages.map((message) => message.role).lastIndexOf('assistant');
  return messages
    .slice(lastAssistant + 1)
    .filter((message) => message.role === 'tool')
    .map((message) => unwrapped(message.content));
}

function cli(args: readonly string[]) {
  return runCli([...args, '--provider-url', fixture.model.url], fixture.home.path, { cwd: work });
}

describe('built-in servers through the CLI', () => {
  it('without a config file, says that the built-in servers run, not that none do', async () => {
    await fixture.startModel([textReply('done'), textReply('done')]);
    const run = await cli(['-p', 'hi', '--builtin', 'fs,todo']);
    expect(run.stderr).toContain('running with the built-in servers only (fs, todo)');
    expect(run.stderr).not.toContain('running without MCP servers');
    expect(run.code).toBe(0);
    const bare = await cli(['-p', 'hi']);
    expect(bare.stderr).toContain('running without MCP servers');
  });

  it('plans, writes, runs, edits and fetches in one scripted conversation', async () => {
    site = await startLoopbackServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html><body><h2>Weather</h2><p>Sunny, <em>22°C</em>.</p></body></html>');
    });
    await fixture.home.writeConfig({
      mcpServers: { web: { type: 'builtin', name: 'fetch', options: { allowedAddresses: ['127.0.0.1'] } } },
    });
    const seen: string[][] = [];
    const remember = (request: FakeChatRequest) => {
      seen.push(toolResults(request));
    };
    await fixture.startModel([
      toolCallReply(
        ['todo__todo_write', { todos: [{ content: 'write the greeting', status: 'in_progress' }] }],
        ['fs__write_file', { path: 'greeting.txt', content: 'hello world\n' }],
      ),
      (request) => {
        remember(request);
        return toolCallReply(['bash__run_command', { command: 'tr a-z A-Z < greeting.txt' }]);
      },
      (request) => {
        remember(request);
        return toolCallReply(
          ['fs__edit_file', { path: 'greeting.txt', old_text: 'world', new_text: 'mcphost' }],
          ['web__fetch', { url: `${site?.url ?? ''}/weather` }],
        );
      },
      (request) => {
        remember(request);
        return toolCallReply(['fs__read_file', { path: 'greeting.txt' }]);
      },
      (request) => {
        remember(request);
        return textReply(`done: ${toolResults(request).join(' | ')}`);
      },
    ]);
    const audit = join(work, 'audit.jsonl');
    const run = await cli([
      '-p',
      'do the chores',
      '--builtin',
      'fs,todo,bash',
      '--approve-all',
      '--audit-log',
      audit,
    ]);
    expect(run.stderr).not.toContain('failed');
    expect(run.code).toBe(0);
    expect(seen[0]).toEqual([
      '1. [~] write the greeting\n(0 of 1 done)',
      expect.stringContaining('wrote 12 bytes'),
    ]);
    expect(seen[1]).toEqual(['HELLO WORLD\n[exit code 0]']);
    expect(seen[2]?.[0]).toContain('replaced 1 occurrence');
    expect(seen[2]?.[1]).toBe(`${site.url}/weather (200)\n\n## Weather\n\nSunny, _22°C_.`);
    expect(run.stdout).toContain('done: hello mcphost');
    expect(await readFile(join(work, 'greeting.txt'), 'utf8')).toBe('hello mcphost\n');
    const lines = (await readFile(audit, 'utf8')).trim().split('\n');
    const records = lines.map(
      (line) => JSON.parse(line) as { exposedName: string; decision: string; outcome: string },
    );
    const tools = records.map((record) => record.exposedName);
    expect(records.every((record) => record.decision === 'allowed' && record.outcome === 'ok')).toBe(true);
    expect(tools.sort()).toEqual(
      [
        'bash__run_command',
        'fs__edit_file',
        'fs__read_file',
        'fs__write_file',
        'todo__todo_write',
        'web__fetch',
      ].sort(),
    );
  });

  it('asks before a bash command by default: in -p mode it is denied and not run', async () => {
    const marker = join(work, 'ran');
    await fixture.startModel([
      toolCallReply(['bash__run_command', { command: `touch ${marker}` }]),
      (request) => textReply(`told: ${toolResults(request).join('')}`),
    ]);
    const run = await cli(['-p', 'touch it', '--builtin', 'bash']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("told: Error: The call to bash__run_command needs the user's approval");
    expect(run.stdout).toContain('runs a shell command on this machine');
    await expect(readFile(marker)).rejects.toThrow();
  });

  it('runs bash without asking when its options say so', async () => {
    const marker = join(work, 'ran');
    await fixture.home.writeConfig({
      mcpServers: { sh: { type: 'builtin', name: 'bash', options: { requireApproval: false } } },
    });
    await fixture.startModel([
      toolCallReply(['sh__run_command', { command: `touch ${marker} && echo made` }]),
      (request) => textReply(`told: ${toolResults(request).join('')}`),
    ]);
    const run = await cli(['-p', 'touch it']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('told: made');
    await expect(readFile(marker)).resolves.toBeDefined();
  });

  it('keeps fs inside the folder it was started in', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'mcphost-builtin-outside-'));
    try {
      await writeFile(join(outside, 'secret.txt'), 'the secret');
      await fixture.startModel([
        toolCallReply(['fs__read_file', { path: join(outside, 'secret.txt') }]),
        (request) => textReply(`told: ${toolResults(request).join('')}`),
      ]);
      const run = await cli(['-p', 'read it', '--builtin', 'fs']);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('access denied');
      expect(run.stdout).not.toContain('the secret');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('names a bad --builtin value and exits 2', async () => {
    await fixture.startModel([]);
    const run = await cli(['-p', 'hi', '--builtin', 'fs,ftp']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--builtin: "ftp" is not a built-in server (fs, bash, todo, fetch)');
  });
});
