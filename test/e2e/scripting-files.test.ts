/**
 * `mcphost script FILE`, through the built CLI: front matter, variables, servers that replace the
 * config's, flags that win, errors, and a script run through its own shebang.
 */
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JsonResult } from '../../src/cli/output/schema.js';
import { startFakeOllama, textReply, type FakeChatRequest, type FakeOllama } from '../fakes/ollama-server.js';
import { CLI, npmServer, REPOSITORY, runCli, temporaryHome, type TemporaryHome } from '../support/cli.js';
import { startCli } from './scripting-helpers.js';
import { unwrapped } from '../support/untrusted.js';

const ECHO_SCRIPT = join(REPOSITORY, 'test/fixtures/scripts/echo.md');
const PLAIN_SCRIPT = join(REPOSITORY, 'test/fixtures/scripts/plain.md');
/** What echo.md reads from the environment. */
const SCRIPT_ENV = { NODE_BINARY: process.execPath, EVERYTHING_SERVER: npmServer('everything') };

let home: TemporaryHome;
let ollama: FakeOllama | undefined;

beforeEach(async () => {
  home = await temporaryHome();
  // A config whose only server cannot start: a script with its own servers must not start it.
  await home.writeConfig({
    mcpServers: {
      broken: { command: process.execPath, args: ['-e', 'console.error("config server"); process.exit(3)'] },
    },
  });
});
afterEach(async () => {
  await ollama?.close();
  ollama = undefined;
  await home.remove();
});

function userText(request: FakeChatRequest | undefined): string | undefined {
  return request?.messages.find((message) => message.role === 'user')?.content;
}

function toolNames(request: FakeChatRequest | undefined): string[] {
  return (request?.tools ?? []).map((tool) => tool.function.name);
}

/** The model calls echo with the word it was asked for, then answers with the result. */
function echoModel() {
  return [
    (request: FakeChatRequest) => ({
      type: 'answer' as const,
      toolCalls: [
        {
          name: 'everything__echo',
          arguments: { message: /say (\w+)/.exec(userText(request) ?? '')?.[1] ?? '?' },
        },
      ],
    }),
    (request: FakeChatRequest) => textReply(`done: ${unwrapped(request.messages.at(-1)?.content ?? '')}`),
  ];
}

describe('mcphost script', () => {
  it('runs a script: variables and defaults filled, front matter settings and servers used', async () => {
    ollama = await startFakeOllama(echoModel());
    const run = await runCli(
      // A large window (the fake reports no num_ctx): every definition is sent, not the tool search.
      [
        'script',
        ECHO_SCRIPT,
        '--args:word',
        'mango',
        '--provider-url',
        ollama.url,
        '--context-window',
        '131072',
      ],
      home.path,
      { env: SCRIPT_ENV },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('done: Echo: mango\n');
    const [first] = ollama.chatRequests;
    expect(userText(first)).toBe('Ask the echo tool to say mango, then tell me about the weather.');
    expect(first?.model).toBe('qwen2.5:3b');
    expect(first?.options?.temperature).toBe(0.25);
    expect(toolNames(first)).toContain('everything__echo');
    expect(toolNames(first).some((name) => name.startsWith('broken'))).toBe(false);
    expect(run.stderr).not.toContain('config server');
    expect(run.stderr).not.toContain('no config file');
  });

  it('lets flags win over the front matter, and --args fill front matter variables', async () => {
    ollama = await startFakeOllama(echoModel());
    const run = await runCli(
      [
        'script',
        ECHO_SCRIPT,
        '--args:word=kiwi',
        '--args:topic',
        'tides',
        '--args:model',
        'llama3.2',
        '--temperature',
        '0.9',
        '--provider-url',
        ollama.url,
      ],
      home.path,
      { env: SCRIPT_ENV },
    );
    expect(run.code).toBe(0);
    const [first] = ollama.chatRequests;
    expect(first?.model).toBe('llama3.2');
    expect(first?.options?.temperature).toBe(0.9);
    expect(userText(first)).toBe('Ask the echo tool to say kiwi, then tell me about tides.');

    ollama.push(textReply('ok'));
    const flagModel = await runCli(
      ['script', ECHO_SCRIPT, '--args:word', 'x', '-m', 'ollama:mistral-small', '--provider-url', ollama.url],
      home.path,
      { env: SCRIPT_ENV },
    );
    expect(flagModel.code).toBe(0);
    expect(ollama.chatRequests[2]?.model).toBe('mistral-small');
  });

  it('refuses a missing variable with exit code 2, naming it and the file, before anything starts', async () => {
    ollama = await startFakeOllama([]);
    const run = await runCli(['script', ECHO_SCRIPT, '--provider-url', ollama.url], home.path, {
      env: SCRIPT_ENV,
    });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      `mcphost: ${ECHO_SCRIPT}: line 13: variable "word" has no value: pass --args:word VALUE, or give it a default (\${word:-…})`,
    );
    expect(ollama.requests).toHaveLength(0);
  });

  it('runs a script without front matter with the config, and adds piped stdin to its prompt', async () => {
    await home.writeConfig({});
    ollama = await startFakeOllama([textReply('Hello')]);
    const run = await runCli(['script', PLAIN_SCRIPT, '--provider-url', ollama.url], home.path, {
      stdin: 'Context: a greeting card.\n',
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Hello\n');
    expect(userText(ollama.chatRequests[0])).toBe('Say hello in one word.\n\nContext: a greeting card.');
  });

  it('runs as an executable through its shebang line', async () => {
    ollama = await startFakeOllama(echoModel());
    const body = (await readFile(ECHO_SCRIPT, 'utf8')).split('\n').slice(1).join('\n');
    const executable = join(home.path, 'echo-task');
    await writeFile(executable, `#!/usr/bin/env -S ${process.execPath} ${CLI} script\n${body}`);
    await chmod(executable, 0o755);
    const cli = startCli(
      ['--args:word', 'plum', '--output-format', 'json', '--provider-url', ollama.url],
      home.path,
      {
        command: [executable],
        env: SCRIPT_ENV,
      },
    );
    cli.child.stdin.end();
    const run = await cli.done;
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as JsonResult;
    expect(result).toMatchObject({ ok: true, text: 'done: Echo: plum', model: 'ollama:qwen2.5:3b' });
    expect(result.toolCalls).toMatchObject([
      { server: 'everything', tool: 'echo', arguments: { message: 'plum' } },
    ]);
  });
});
